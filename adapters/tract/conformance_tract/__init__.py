"""tract adapter for the split-conformance suite (entry point ``tract``); importing it is cheap:
tract's native library loads only in the workers."""

from __future__ import annotations

from conformance_tract.adapter import TractAdapter

__all__ = ["TractAdapter"]
