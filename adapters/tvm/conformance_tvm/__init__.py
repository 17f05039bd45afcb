"""Apache TVM adapter for the split-conformance suite (entry point ``tvm``); importing it is cheap:
TVM (seconds to import) loads only in the workers."""

from __future__ import annotations

from conformance_tvm.adapter import TvmAdapter

__all__ = ["TvmAdapter"]
