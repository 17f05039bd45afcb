"""ONNX Runtime adapter for the split-conformance suite (entry point ``onnxruntime``); importing it
is cheap: onnxruntime and onnx load only when the adapter is constructed or first runs."""

from __future__ import annotations

from conformance_onnxruntime.adapter import OnnxRuntimeAdapter

__all__ = ["OnnxRuntimeAdapter"]
