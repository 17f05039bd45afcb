"""Keras 3 adapter for the split-conformance suite (entry point ``keras``).

Importing this package is cheap and starts no thread: Keras, which imports its backend when it is
imported, is imported only in the workers, with the backend of the route each item runs on.
"""

from __future__ import annotations

from conformance_keras.adapter import KerasAdapter

__all__ = ["KerasAdapter"]
