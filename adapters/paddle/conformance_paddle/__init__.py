"""PaddlePaddle adapter for the split-conformance suite (entry point ``paddle``).

Importing this package imports no Paddle: Paddle is imported in the workers (``prepare``).
"""

from __future__ import annotations

from conformance_paddle.adapter import PaddleAdapter

__all__ = ["PaddleAdapter"]
