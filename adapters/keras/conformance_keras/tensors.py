"""The case's data as each backend's own tensor, and each piece back, bit for bit.

``keras.ops.split`` is handed what a user of that backend holds: a ``tf.Tensor``, a ``jax.Array``, a
``torch.Tensor``, a NumPy array, and for OpenVINO, which has no eager tensor of its own, the
``OpenVINOKerasTensor`` of ``keras.ops.convert_to_tensor``. Each is made by the framework's exact
conversion, never by Keras's ``convert_to_tensor`` where the framework has one: that narrows types
on some backends (int64 to int32 on numpy), which would judge the conversion instead of the split.
Pieces come back by the framework's own conversion too, and for OpenVINO by
``keras.ops.convert_to_numpy``, which compiles and runs the graph (the backend at work).

Backends are imported inside the functions: see :mod:`conformance_keras.backends`.
"""

from __future__ import annotations

import contextlib
import importlib
import os
from contextlib import AbstractContextManager
from typing import Any

import numpy as np

from conformance.plugin import backend_calls


def to_backend(name: str, data: np.ndarray, keras: Any) -> Any:
    """``data`` as a tensor of the backend ``name`` with the same shape, type and bytes."""
    if name == "tensorflow":
        from conformance.models import tf_functions

        return tf_functions.to_tf(data)
    if name == "jax":
        import jax.numpy as jnp

        return jnp.asarray(data)
    if name == "torch":
        from conformance.models import torch_modules

        return torch_modules.to_torch(data)
    if name == "numpy":
        return data
    with backend_calls():  # Keras's own conversion: its refusal is the backend's
        return keras.ops.convert_to_tensor(data)


def to_numpy(name: str, piece: Any, keras: Any) -> np.ndarray:
    """A piece as a NumPy array in the suite's types (bfloat16 as ml_dtypes), bytes unchanged."""
    if name == "tensorflow":
        from conformance.models import tf_functions

        return tf_functions.to_numpy(piece)
    if name == "torch":
        from conformance.models import torch_modules

        return torch_modules.to_numpy(piece)
    if name in ("jax", "numpy"):
        return np.asarray(piece)
    with backend_calls():  # compiles and runs the OpenVINO graph: the backend at work
        return np.asarray(keras.ops.convert_to_numpy(piece))


def is_native(name: str, piece: Any) -> bool:
    """Whether ``piece`` is a tensor of the backend ``name``: evidence that it was that backend
    which ran the split, whatever Keras says of itself."""
    if name == "tensorflow":
        import tensorflow as tf  # type: ignore[import-untyped]  # TensorFlow ships no type information

        return isinstance(piece, tf.Tensor)
    if name == "jax":
        import jax

        return isinstance(piece, jax.Array)
    if name == "torch":
        import torch

        return isinstance(piece, torch.Tensor)
    if name == "numpy":
        return isinstance(piece, np.ndarray)
    kind = type(piece)
    return kind.__name__ == "OpenVINOKerasTensor" and kind.__module__.startswith("keras.src.backend.openvino")


def configured(name: str, x64: bool) -> AbstractContextManager[None]:
    """The backend's configuration for one item: on jax, 64-bit types on or off as the adapter's
    ``jax_x64`` option says, in a context (thread-local), so that neither another adapter in the
    same worker nor this one changes JAX's process-wide default for the other."""
    if name != "jax":
        return contextlib.nullcontext()
    import jax

    switched: AbstractContextManager[None] = jax.enable_x64(x64)
    return switched


def warm(name: str) -> None:
    """Import the backend's framework and size its thread pools to the worker's share of the
    cores, before any item is timed (torch reads ``OMP_NUM_THREADS``, which the suite sets)."""
    if name == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")  # TensorFlow's INFO lines say nothing of an item
        import tensorflow as tf

        threads = int(os.environ.get("CONFORMANCE_THREADS", "0") or 0)
        with contextlib.suppress(RuntimeError):  # set already: another target in this worker
            tf.config.threading.set_intra_op_parallelism_threads(threads)
            tf.config.threading.set_inter_op_parallelism_threads(threads)
    elif name in ("jax", "torch", "openvino"):
        importlib.import_module(name)
