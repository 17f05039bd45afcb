"""MLX adapter for the split-conformance suite (entry point ``mlx``): ``mlx.core.split`` called
eagerly on MLX's CPU backend."""

from __future__ import annotations

from conformance_mlx.adapter import MlxAdapter

__all__ = ["MlxAdapter"]
