"""ExecuTorch adapter for the split-conformance suite (entry point ``executorch``).

Importing this package is cheap: torch and ExecuTorch are imported only in the workers, when the
adapter first builds or runs, so ``conformance adapters`` lists adapters without loading them.
"""

from __future__ import annotations

from conformance_executorch.adapter import ExecuTorchAdapter

__all__ = ["ExecuTorchAdapter"]
