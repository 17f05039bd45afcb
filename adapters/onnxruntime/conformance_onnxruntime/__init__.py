"""ONNX Runtime adapter for the split-conformance suite (entry point ``onnxruntime``).

Importing this package is cheap: onnxruntime and onnx are imported only when the adapter is
constructed or first runs, so ``conformance adapters`` lists adapters without loading backends.
"""

from __future__ import annotations

from conformance_onnxruntime.adapter import OnnxRuntimeAdapter

__all__ = ["OnnxRuntimeAdapter"]
