"""What each route calls in JAX for a task, and how data crosses into JAX and back.

Every op id of this adapter is the dotted path of the JAX function it judges (``jax.lax.split``), so
the call is found by that path and no table can drift from the catalogue. The request goes to the
function as the case writes it (a tuple where ``jax.jit`` needs a hashable static argument), the
axis only when the case states one; nothing here checks a request.

JAX is imported only inside the functions, so that the run's main process, which imports this
package for ``info()``, never pays for it.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Sequence
from importlib import metadata
from typing import TYPE_CHECKING, Any

import numpy as np

from conformance import dtypes
from conformance.plugin import AdapterError, Task, distributions_by_package

if TYPE_CHECKING:
    import jax

#: The devices whose names end so run with ``jax_enable_x64`` on; the others in JAX's default 32-bit mode.
X64_SUFFIX = "-x64"
#: Each device is a platform of JAX's (its first device) and a mode; ``gpu`` is a CUDA or ROCm GPU.
DEVICES = ("cpu", "cpu-x64", "gpu", "gpu-x64")
#: What a run judges without a ``device`` option: the CPU, in both modes.
DEFAULT_DEVICES = ("cpu", "cpu-x64")
GPU = "gpu"

Pieces = Sequence["jax.Array"]


def load(gpu: bool = False) -> Any:
    """The ``jax`` module, its platforms chosen for the run before its backends start: the CPU's
    alone unless the run asked for a GPU device (else JAX looks for GPU and TPU plugins); with
    ``gpu``, every backend, and no preallocation of GPU memory, since each worker starts its own GPU
    client and JAX's default share would leave none for the next. The adapter passes the same
    ``gpu`` from every method."""
    import jax

    config: Any = jax.config  # its options are set and read by name: untyped
    wanted = None if gpu else "cpu"
    if gpu:
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    if config.jax_platforms != wanted:
        config.update("jax_platforms", wanted)
    return jax


def x64(device: str) -> bool:
    """Whether items of ``device`` run in JAX's 64-bit mode."""
    return device.endswith(X64_SUFFIX)


def platform(device: str) -> str:
    """The JAX platform a device runs on: ``cpu`` or ``gpu``."""
    return device.removesuffix(X64_SUFFIX)


def device(device_name: str) -> Any:
    """The JAX device items of ``device_name`` run on: the first of its platform's."""
    return _jax().devices(platform(device_name))[0]


def gpu_problem() -> str | None:
    """Why JAX has no GPU here (no GPU plugin, no device it can see, a plugin that fails to start),
    or None. Starts JAX's backends in the calling process: asked only when a run names a GPU device."""
    jax = load(gpu=True)
    try:
        jax.devices(GPU)
    except RuntimeError as error:
        return f"JAX {jax.__version__} has no GPU backend here ({error})"
    return None


def gpu_description() -> str:
    """The GPU a run judges and the JAX plugin that drives it, for the results and certificates:
    ``cuda NVIDIA H200 (jax-cuda13-plugin 0.11.2, ...)``."""
    first = device(GPU)
    # JAX finds its plugins in the namespace package jax_plugins: the distributions that fill it
    names = sorted(set(distributions_by_package().get("jax_plugins", ())))
    plugins = ", ".join(f"{name} {metadata.version(name)}" for name in names) or "no jax_plugins distribution"
    return f"{first.platform} {first.device_kind} ({plugins})"


def check_placement(pieces: Pieces, device_name: str) -> None:
    """Every piece on the device the target names: a piece elsewhere would make the verdict one on
    another device's answer, the adapter's defect to report rather than a result to record."""
    expected = device(device_name)
    strays = {found for piece in pieces for found in piece.devices()} - {expected}
    if strays:
        where = ", ".join(sorted(map(str, strays)))
        raise AdapterError(f"pieces of a {device_name} item are on {where}, not on {expected}")


def _jax() -> Any:
    """The ``jax`` module as :func:`load` left it (the helpers below never choose its platforms)."""
    import jax

    return jax


def function(op: str) -> Callable[..., Pieces]:
    """The JAX function an op id names: ``jax.numpy.split`` is ``split`` of ``jax.numpy``."""
    module, _, name = op.rpartition(".")
    found: Callable[..., Pieces] = getattr(importlib.import_module(module), name)
    return found


def value(task: Task, *, hashable: bool = False) -> int | list[int] | tuple[int, ...]:
    """The split value as a user passes it: an int count, or a list of split points or sizes
    (a tuple when ``hashable``, as a static argument of ``jax.jit`` must be)."""
    if task.request.form.kind == "parts":
        return int(task.request.form.values[0])
    return tuple(task.request.form.values) if hashable else list(task.request.form.values)


def axis_keywords(axis: int | None) -> dict[str, int]:
    """``axis=`` only when the case states one, so that an omitted axis judges the default."""
    return {} if axis is None else {"axis": axis}


def traced(task: Task) -> bool:
    """Whether the jitted function takes the split value as a traced argument (``inputs: runtime``)."""
    return task.graph.runtime("lengths")


def traced_value(task: Task) -> np.ndarray:
    """The split value fed to a jitted function at run time: a scalar count or a 1-D list, of the
    case's ``lengths_dtype`` (int64 unless stated; JAX narrows it to int32 in 32-bit mode)."""
    form = task.request.form
    shape: tuple[int, ...] = () if form.kind == "parts" else (len(form.values),)
    return np.array(form.values, dtype=dtypes.numpy_dtype(task.graph.lengths_dtype)).reshape(shape)


def jitted(task: Task) -> Any:
    """``jax.jit`` of the task's split: the value a static argument, or a traced one when the case
    feeds it at run time; the axis always static."""
    backend = _jax()
    split = function(task.op)

    def call(data: jax.Array, value: Any, axis: int | None) -> Pieces:
        return split(data, value, **axis_keywords(axis))

    static = ("axis",) if traced(task) else ("value", "axis")
    return backend.jit(call, static_argnames=static)


def lower_arguments(task: Task) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """What ``lower`` takes for the task: the data's shape and dtype (the dtype as the current x64
    mode makes it) and the traced value's, or the static value; the axis always."""
    backend = _jax()
    data = backend.ShapeDtypeStruct(task.data.shape, task.data.dtype)
    if traced(task):
        given = traced_value(task)
        return (data, backend.ShapeDtypeStruct(given.shape, given.dtype)), {"axis": task.request.axis}
    return (data,), {"value": value(task, hashable=True), "axis": task.request.axis}


def feeds(task: Task) -> tuple[np.ndarray, ...]:
    """What the compiled executable takes for a run: the data, and the traced split value."""
    return (task.data, traced_value(task)) if traced(task) else (task.data,)


def to_jax(array: np.ndarray) -> jax.Array:
    """A JAX array of ``array``, as ``jnp.asarray`` makes it: the bytes unchanged, except that the
    32-bit mode narrows 64-bit types (int64 to int32 by wrapping, float64 to float32 by rounding),
    which is JAX's behaviour being judged."""
    converted: jax.Array = _jax().numpy.asarray(array)
    return converted


def eager(task: Task) -> Callable[[jax.Array], Pieces]:
    """The op called as a user calls it, on a JAX array of the data."""
    split, given, keywords = function(task.op), value(task), axis_keywords(task.request.axis)
    return lambda data: split(data, given, **keywords)
