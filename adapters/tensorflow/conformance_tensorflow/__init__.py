"""TensorFlow adapter for the split-conformance suite (entry point ``tensorflow``).

Importing this package is cheap and starts no thread: TensorFlow is imported only when the
adapter first needs it (``import tensorflow`` takes about 3 s). The routes list it in their
imports, so on Linux the process workers are forked from imports it once, before any of its
thread pools exist.
"""

from __future__ import annotations

from conformance_tensorflow.adapter import TensorflowAdapter

__all__ = ["TensorflowAdapter"]
