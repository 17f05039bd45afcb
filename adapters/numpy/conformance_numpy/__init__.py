"""NumPy adapter for the split-conformance suite (entry point ``numpy``)."""

from __future__ import annotations

from conformance_numpy.adapter import NumpyAdapter

__all__ = ["NumpyAdapter"]
