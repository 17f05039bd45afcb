"""MNN adapter for the split-conformance suite (entry point ``mnn``).

Importing this package is cheap: MNN's native library is loaded only in the workers, when the
adapter first loads or runs a model, and its converter only ever in a child process.
"""

from __future__ import annotations

from conformance_mnn.adapter import MnnAdapter

__all__ = ["MnnAdapter"]
