"""JAX adapter for the split-conformance suite (entry point ``jax``).

Importing this package is cheap and starts no thread: JAX is imported when the adapter first needs
it, in the workers (``prepare``), and its CPU client, which does start threads, only at first use.
"""

from __future__ import annotations

from conformance_jax.adapter import JaxAdapter

__all__ = ["JaxAdapter"]
