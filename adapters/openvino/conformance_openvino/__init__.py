"""OpenVINO adapter for the Split conformance suite.

Registered as the entry point ``openvino`` of the group ``conformance.adapters``. Importing this
package is cheap: OpenVINO itself, ONNX and torch are imported when an adapter is constructed or
a route is first used, so listing adapters never pays for them.
"""

from __future__ import annotations

from conformance_openvino.adapter import OpenVINOAdapter

__all__ = ["OpenVINOAdapter"]
