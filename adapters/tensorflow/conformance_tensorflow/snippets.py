"""Standalone reproducers: Python statements that redo an item with TensorFlow and NumPy alone.

They write out what :mod:`conformance.models.tf_functions` builds (the call, the signature, the
feeds) as plain code, so that a TensorFlow developer can rerun a finding without the suite.
"""

from __future__ import annotations

import numpy as np

from conformance import reproducers
from conformance.plugin import Task


def _feed_code(array: np.ndarray, name: str) -> str:
    return f"{reproducers.array_code(array, name)}\n"


def reproducer(task: Task, route: str) -> str:
    """The snippet for ``route``: an eager call per run, or one traced (XLA-compiled) function
    called with each run's inputs."""
    from conformance.models import tf_functions

    body = "import tensorflow as tf\n\n"
    if route == "eager":
        for run in task.every_run:
            body += (
                f"{reproducers.run_heading(run)}{_feed_code(run.data, 'data')}"
                f"data = tf.constant(data)\npieces = {tf_functions.call_code(run, (tf_functions.DATA,))}\n"
                "print([tuple(piece.shape) for piece in pieces])\n"
            )
        return body
    names = tf_functions.input_names(task)
    body += tf_functions.function_code(task, jit_compile=route == "xla")
    for run in task.every_run:
        body += reproducers.run_heading(run)
        for name, array in tf_functions.feeds(run).items():
            body += _feed_code(array, name)
        body += (
            f"pieces = split({', '.join(f'tf.constant({name})' for name in names)})\n"
            "print([tuple(piece.shape) for piece in pieces])\n"
        )
    return body
