"""Standalone reproducers: Python statements that redo an item with Keras, its backend and NumPy.

Each sets ``KERAS_BACKEND`` before importing Keras (the backend is read then, once), makes the
same tensor the route makes, calls ``keras.ops.split`` as the route does and prints each piece's
shape, read through ``keras.ops.convert_to_numpy`` (on OpenVINO that is where the graph runs, and
where its refusals surface). Every run of a case with ``runs:`` is replayed.
"""

from __future__ import annotations

from typing import Final

from conformance import reproducers
from conformance.plugin import Task

#: per backend: the imports the tensor needs, and the statement that makes ``x`` from ``data``
_TENSOR: Final = {
    "tensorflow": ("import tensorflow as tf\n", "x = tf.constant(data)"),
    "jax": ("import jax\nimport jax.numpy as jnp\n", "x = jnp.asarray(data)"),
    "torch": ("import torch\n", "x = torch.from_numpy(data)"),
    "numpy": ("", "x = data"),
    "openvino": ("", "x = keras.ops.convert_to_tensor(data)"),
}
#: torch has no NumPy bfloat16: the tensor is made from the bit pattern, as the route makes it
_TORCH_BFLOAT16: Final = "x = torch.from_numpy(data.view(np.int16)).view(torch.bfloat16)"


def split_argument(task: Task) -> int | list[int]:
    """``indices_or_sections`` as the case writes it: an int, or a list of ints."""
    value = task.request.form.value
    return list(value) if isinstance(value, tuple) else value


def call_code(task: Task) -> str:
    """The ``keras.ops.split`` call of ``task``, on a tensor named ``x``."""
    axis = "" if task.request.axis is None else f", axis={task.request.axis}"
    return f"keras.ops.split(x, {split_argument(task)!r}{axis})"


def reproducer(task: Task, backend: str, *, x64: bool) -> str:
    """The snippet for the route ``backend``; ``x64``: the jax route's 64-bit types."""
    imports, plain = _TENSOR[backend]
    body = f"import os\n\nos.environ['KERAS_BACKEND'] = {backend!r}\nimport keras\n{imports}"
    if backend == "jax":
        body += f"jax.config.update('jax_enable_x64', {x64})\n"
    for run in task.every_run:
        tensor = _TORCH_BFLOAT16 if backend == "torch" and run.dtype == "bfloat16" else plain
        body += (
            f"\n{reproducers.run_heading(run)}{reproducers.array_code(run.data)}\n{tensor}\n"
            f"pieces = {call_code(run)}\n"
            "print([keras.ops.convert_to_numpy(piece).shape for piece in pieces])\n"
        )
    return body
