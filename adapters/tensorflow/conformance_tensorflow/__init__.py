"""TensorFlow adapter for the split-conformance suite (entry point ``tensorflow``).

Importing this package is cheap and starts no thread: TensorFlow (seconds to import) is imported
only in the workers, when the adapter first needs it.
"""

from __future__ import annotations

from conformance_tensorflow.adapter import TensorflowAdapter

__all__ = ["TensorflowAdapter"]
