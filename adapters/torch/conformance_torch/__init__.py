"""PyTorch adapter for the split-conformance suite (entry point ``torch``).

Importing this package is cheap: torch is imported only when the adapter first needs it.
"""

from __future__ import annotations

from conformance_torch.adapter import TorchAdapter

__all__ = ["TorchAdapter"]
