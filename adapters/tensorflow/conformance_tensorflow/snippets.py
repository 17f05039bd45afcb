"""Standalone reproducers: Python statements that redo an item with TensorFlow and NumPy alone.

They write out what :mod:`conformance.models.tf_functions` and :mod:`conformance.models.tf_slices`
build (the call, the signature, the feeds) as plain code, so that a TensorFlow developer can rerun
a finding without the suite.
"""

from __future__ import annotations

from conformance import reproducers
from conformance.plugin import Target, Task


def eager(task: Task, target: Target) -> str:
    """An eager call per run, on that run's data."""
    from conformance.models import tf_functions, tf_slices

    if task.op in tf_slices.OPS:
        return _eager_slice(task)
    body = "import tensorflow as tf\n\n"
    for run in task.every_run:
        body += (
            f"{reproducers.run_heading(run)}{reproducers.array_code(run.data)}\n"
            f"data = tf.constant(data)\npieces = {tf_functions.call_code(run, (tf_functions.DATA,))}\n"
            "print([tuple(piece.shape) for piece in pieces])\n"
        )
    return body


def traced(task: Task, *, jit_compile: bool) -> str:
    """One traced (XLA-compiled) function called with each run's inputs."""
    from conformance.models import tf_functions, tf_slices

    if task.op in tf_slices.OPS:
        return _traced_slice(task, jit_compile=jit_compile)
    names = tf_functions.input_names(task)
    body = "import tensorflow as tf\n\n" + tf_functions.function_code(task, jit_compile=jit_compile)
    for run in task.every_run:
        body += reproducers.run_heading(run)
        for name, array in tf_functions.feeds(run).items():
            body += f"{reproducers.array_code(array, name)}\n"
        body += (
            f"pieces = split({', '.join(f'tf.constant({name})' for name in names)})\n"
            "print([tuple(piece.shape) for piece in pieces])\n"
        )
    return body


def _eager_slice(task: Task) -> str:
    """tf.slice or tf.strided_slice called eagerly per run, its indices typed constants."""
    from conformance.models import tf_slices

    body = "import tensorflow as tf\n\n"
    for run in task.every_run:
        body += (
            f"{reproducers.run_heading(run)}{reproducers.array_code(run.data)}\n"
            f"data = tf.constant(data)\nresult = {tf_slices.call_code(run, (tf_slices.DATA,))}\n"
            "print(tuple(result.shape))\n"
        )
    return body


def _traced_slice(task: Task, *, jit_compile: bool) -> str:
    """The one traced (XLA-compiled) Slice function called with each run's data and indices."""
    from conformance.models import tf_slices

    names = tf_slices.input_names(task)
    body = "import tensorflow as tf\n\n" + tf_slices.function_code(task, jit_compile=jit_compile)
    for run in task.every_run:
        body += reproducers.run_heading(run)
        for name, array in tf_slices.feeds(run).items():
            body += f"{reproducers.array_code(array, name)}\n"
        arguments = ", ".join(f"tf.constant({name})" for name in names)
        body += f"result = {tf_slices.FUNCTION}({arguments})\nprint(tuple(result.shape))\n"
    return body
