"""LiteRT adapter for the split-conformance suite (entry point ``litert``).

Importing this package is cheap: TensorFlow and LiteRT are imported only when the adapter is
constructed or first runs, so ``conformance adapters`` lists adapters without loading backends.
"""

from __future__ import annotations

from conformance_litert.adapter import LiteRTAdapter

__all__ = ["LiteRTAdapter"]
