"""TensorFlow.js adapter for the split-conformance suite (entry point ``tfjs``): ``tf.split`` run by
TF.js in a Node.js process each suite worker starts and feeds over a pipe."""

from __future__ import annotations

from conformance_tfjs.adapter import TfjsAdapter

__all__ = ["TfjsAdapter"]
