"""IREE adapter for the split-conformance suite (entry point ``iree``).

Importing this package is cheap: IREE's compiler and runtime and onnx are imported only when the
adapter is asked for its info or first runs, so ``conformance adapters`` lists adapters without
loading backends.
"""

from __future__ import annotations

from conformance_iree.adapter import IreeAdapter

__all__ = ["IreeAdapter"]
