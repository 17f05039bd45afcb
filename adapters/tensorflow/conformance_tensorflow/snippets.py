"""Standalone reproducers: Python statements that redo an item with TensorFlow and NumPy alone.

They write out what :mod:`conformance.models.tf_functions` builds (the call, the signature, the
feeds) as plain code, so that a TensorFlow developer can rerun a finding without the suite.
"""

from __future__ import annotations

import numpy as np

from conformance import reproducers
from conformance.plugin import Task


def _argument_code(task: Task, names: tuple[str, ...]) -> str:
    """The second argument of the call: an int, split points, or the sizes (input or constant)."""
    from conformance.models import tf_functions

    if task.form.kind != "lengths":
        return repr(list(task.form.values) if task.form.kind == "indices" else int(task.form.values[0]))
    if tf_functions.LENGTHS in names:
        return tf_functions.LENGTHS
    sizes = tf_functions.lengths_array(task)
    return f"tf.constant(np.array({sizes.tolist()!r}, dtype=np.{sizes.dtype.name}))"


def call_code(task: Task, names: tuple[str, ...]) -> str:
    """The op's call as model code writes it, reading the inputs ``names`` by name."""
    from conformance.models import tf_functions

    function = "tf.experimental.numpy.split" if task.op in tf_functions.TNP_SPLIT_OPS else "tf.split"
    axis = "" if task.axis is None else f", axis={task.axis}"
    if tf_functions.AXIS in names:
        axis = ", axis=axis"
    return f"{function}(data, {_argument_code(task, names)}{axis})"


def _signature_code(task: Task) -> str:
    from conformance.models import tf_functions

    specs = [
        f"tf.TensorSpec({spec.shape.as_list()!r}, tf.{spec.dtype.name}, name={spec.name!r})"
        for spec in tf_functions.input_signature(task)
    ]
    return "[" + ", ".join(specs) + "]"


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
                f"data = tf.constant(data)\npieces = {call_code(run, ('data',))}\n"
                "print([tuple(piece.shape) for piece in pieces])\n"
            )
        return body
    names = tf_functions.input_names(task)
    jit = ", jit_compile=True" if route == "xla" else ""
    body += (
        f"def split({', '.join(names)}):\n    return {call_code(task, names)}\n\n"
        f"split = tf.function(split, input_signature={_signature_code(task)}, autograph=False{jit})"
        ".get_concrete_function()\n"
    )
    for run in task.every_run:
        body += reproducers.run_heading(run)
        for name, array in tf_functions.feeds(run).items():
            body += _feed_code(array, name)
        body += (
            f"pieces = split({', '.join(f'tf.constant({name})' for name in names)})\n"
            "print([tuple(piece.shape) for piece in pieces])\n"
        )
    return body
