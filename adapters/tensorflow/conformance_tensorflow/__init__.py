"""TensorFlow adapter for the split-conformance suite (entry point ``tensorflow``).

Importing this package is cheap and starts no thread: TensorFlow is imported only when the
adapter first needs it (``import tensorflow`` takes about 2 s and starts a thread, so workers
import it in ``prepare``, never the process they are forked from).
"""

from __future__ import annotations

from conformance_tensorflow.adapter import TensorflowAdapter

__all__ = ["TensorflowAdapter"]
