"""JAX adapter for the split-conformance suite (entry point ``jax``).

Importing this package is cheap and starts no thread: JAX is imported only in the workers, when
the adapter first needs it.
"""

from __future__ import annotations

from conformance_jax.adapter import JaxAdapter

__all__ = ["JaxAdapter"]
