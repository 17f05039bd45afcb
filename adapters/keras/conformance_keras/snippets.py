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
_IMPORTS: Final = {
    "tensorflow": "import tensorflow as tf\n",
    "jax": "import jax\nimport jax.numpy as jnp\n",
    "torch": "import torch\n",
    "numpy": "",
    "openvino": "",
}
_TENSOR: Final = {
    "tensorflow": "x = tf.constant(data)",
    "jax": "x = jnp.asarray(data)",
    "torch": "x = torch.from_numpy(data)",
    "numpy": "x = data",
    "openvino": "x = keras.ops.convert_to_tensor(data)",
}
#: torch has no NumPy bfloat16: the tensor is made from the bit pattern, as the route makes it
_TORCH_BFLOAT16: Final = "x = torch.from_numpy(data.view(np.int16)).view(torch.bfloat16)"


def call_code(task: Task) -> str:
    """The ``keras.ops.split`` call of ``task``, on a tensor named ``x``."""
    value = task.form.value
    argument = list(value) if isinstance(value, tuple) else value
    axis = "" if task.axis is None else f", axis={task.axis}"
    return f"keras.ops.split(x, {argument!r}{axis})"


def reproducer(task: Task, backend: str, *, x64: bool) -> str:
    """The snippet for the route ``backend``; ``x64``: the jax route's 64-bit types."""
    body = f"import os\n\nos.environ['KERAS_BACKEND'] = {backend!r}\nimport keras\n{_IMPORTS[backend]}"
    if backend == "jax":
        body += f"jax.config.update('jax_enable_x64', {x64})\n"
    for run in task.every_run:
        tensor = _TORCH_BFLOAT16 if backend == "torch" and run.dtype == "bfloat16" else _TENSOR[backend]
        body += (
            f"\n{reproducers.run_heading(run)}{reproducers.array_code(run.data)}\n{tensor}\n"
            f"pieces = {call_code(run)}\n"
            "print([keras.ops.convert_to_numpy(piece).shape for piece in pieces])\n"
        )
    return body
