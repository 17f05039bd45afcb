"""CuPy adapter for the split-conformance suite (entry point ``cupy``).

Importing this package imports no CuPy: CuPy is imported in the workers, when an item first needs
it, so that the adapter loads (and reports its items ``unsupported``) on a machine without CuPy or
without a CUDA device.
"""

from __future__ import annotations

from conformance_cupy.adapter import CupyAdapter

__all__ = ["CupyAdapter"]
