"""IREE adapter for the split-conformance suite (entry point ``iree``).

Importing this package is cheap: IREE and onnx are imported only when the adapter first needs them.
"""

from __future__ import annotations

from conformance_iree.adapter import IreeAdapter

__all__ = ["IreeAdapter"]
