"""tract adapter for the split-conformance suite (entry point ``tract``).

Importing this package is cheap: tract's native library is loaded only in the workers, when the
adapter first builds or runs, so ``conformance adapters`` lists adapters without loading it.
"""

from __future__ import annotations

from conformance_tract.adapter import TractAdapter

__all__ = ["TractAdapter"]
