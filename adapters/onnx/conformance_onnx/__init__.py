"""ONNX's own tools judged as a backend (entry point ``onnx``): the reference evaluator, and the
checker with strict shape inference.

Importing this package is cheap: onnx is imported when the adapter first builds a model.
"""

from __future__ import annotations

from conformance_onnx.adapter import OnnxToolsAdapter

__all__ = ["OnnxToolsAdapter"]
