"""ONNX's own tools judged as a backend (entry point ``onnx``): the reference evaluator, and the
checker with strict shape inference. onnx is imported only when the adapter first needs it."""

from __future__ import annotations

from conformance_onnx.adapter import OnnxToolsAdapter

__all__ = ["OnnxToolsAdapter"]
