"""Standalone reproducers: Python statements that redo an item with TensorFlow and NumPy alone.

They write out what :mod:`conformance.models.tf_functions` and :mod:`conformance.models.tf_slices`
build (the call, the signature, the feeds) as plain code, so that a TensorFlow developer can rerun
a finding without the suite.
"""

from __future__ import annotations

from typing import Any

from conformance import reproducers
from conformance.plugin import Target, Task


def eager(task: Task, target: Target) -> str:
    """An eager call per run, on that run's data."""
    models, _, printed = _family(task)
    body = "import tensorflow as tf\n\n"
    for run in task.every_run:
        body += (
            f"{reproducers.run_heading(run)}{reproducers.array_code(run.data)}\n"
            f"data = tf.constant(data)\n{printed[0]} = {models.call_code(run, (models.DATA,))}\n{printed[1]}"
        )
    return body


def traced(task: Task, *, jit_compile: bool) -> str:
    """One traced (XLA-compiled) function called with each run's inputs."""
    models, function, printed = _family(task)
    names = models.input_names(task)
    body = "import tensorflow as tf\n\n" + models.function_code(task, jit_compile=jit_compile)
    for run in task.every_run:
        body += reproducers.run_heading(run)
        for name, array in models.feeds(run).items():
            body += f"{reproducers.array_code(array, name)}\n"
        arguments = ", ".join(f"tf.constant({name})" for name in names)
        body += f"{printed[0]} = {function}({arguments})\n{printed[1]}"
    return body


def _family(task: Task) -> tuple[Any, str, tuple[str, str]]:
    """The models module that builds the task's op, the name its function code defines, and the
    variable a call's answer goes in with the line printing its shapes (a split's pieces, a
    slice's one tensor)."""
    from conformance.models import tf_functions, tf_slices

    if task.op in tf_slices.OPS:
        return tf_slices, tf_slices.FUNCTION, ("result", "print(tuple(result.shape))\n")
    return tf_functions, "split", ("pieces", "print([tuple(piece.shape) for piece in pieces])\n")
