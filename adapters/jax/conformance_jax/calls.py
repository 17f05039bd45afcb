"""What each route calls in JAX for a task, and how data crosses into JAX and back.

Every op id of this adapter is the dotted path of the JAX function it judges (``jax.numpy.split``,
``jax.lax.split``), so the call is found by that path and no table can drift from the catalogue.
The request goes to the function exactly as the case writes it: a count as an int, split points and
sizes as a list (a tuple where ``jax.jit`` needs a hashable static argument), the axis only when
the case states one. Nothing here checks a request: refusing one is JAX's part.

JAX is imported only inside the functions, so that the run's main process, which imports this
package for ``info()``, never pays for it; :func:`load` pins JAX to its CPU platform before its
first use in the process.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from conformance import dtypes
from conformance.plugin import Task

if TYPE_CHECKING:
    import jax

#: The device whose items run with ``jax_enable_x64`` on; ``cpu`` is JAX's default 32-bit mode.
X64_DEVICE = "cpu-x64"
DEVICES = ("cpu", X64_DEVICE)
_PLATFORM = "cpu"

Value = int | list[int] | tuple[int, ...]
Pieces = Sequence["jax.Array"]


def load() -> Any:
    """The ``jax`` module, its platform pinned to the CPU: the adapter judges JAX's CPU build, and
    without the pin JAX would look for GPU and TPU plugins at its first use. The setting only acts
    before JAX's backends start; later (another target in the same worker) it changes nothing."""
    import jax

    config: Any = jax.config  # its options are set and read by name: untyped
    if config.jax_platforms != _PLATFORM:
        config.update("jax_platforms", _PLATFORM)
    return jax


def x64(device: str) -> bool:
    """Whether items of ``device`` run in JAX's 64-bit mode."""
    return device == X64_DEVICE


def function(op: str) -> Callable[..., Pieces]:
    """The JAX function an op id names: ``jax.numpy.split`` is ``split`` of ``jax.numpy``."""
    module, _, name = op.rpartition(".")
    found: Callable[..., Pieces] = getattr(importlib.import_module(module), name)
    return found


def value(task: Task, *, hashable: bool = False) -> Value:
    """The split value as a user passes it: an int count, or a list of split points or sizes
    (a tuple when ``hashable``, as a static argument of ``jax.jit`` must be)."""
    if task.form.kind == "parts":
        return int(task.form.values[0])
    return tuple(task.form.values) if hashable else list(task.form.values)


def axis_keywords(axis: int | None) -> dict[str, int]:
    """``axis=`` only when the case states one, so that an omitted axis judges the default."""
    return {} if axis is None else {"axis": axis}


def traced(task: Task) -> bool:
    """Whether the jitted function takes the split value as a traced argument (``inputs: runtime``)."""
    return task.graph.runtime("lengths")


def traced_value(task: Task) -> np.ndarray:
    """The split value fed to a jitted function at run time: a scalar count or a 1-D list, of the
    case's ``lengths_dtype`` (int64 unless stated; JAX narrows it to int32 in 32-bit mode)."""
    shape: tuple[int, ...] = () if task.form.kind == "parts" else (len(task.form.values),)
    return np.array(task.form.values, dtype=dtypes.numpy_dtype(task.graph.lengths_dtype)).reshape(shape)


def jitted(task: Task) -> Any:
    """``jax.jit`` of the task's split: the value a static argument, or a traced one when the case
    feeds it at run time; the axis always static."""
    backend = load()
    split = function(task.op)

    def call(data: jax.Array, value: Any, axis: int | None) -> Pieces:
        return split(data, value, **axis_keywords(axis))

    static = ("axis",) if traced(task) else ("value", "axis")
    return backend.jit(call, static_argnames=static)


def lower_arguments(task: Task) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """What ``lower`` takes for the task: the data's shape and dtype (the dtype as the current x64
    mode makes it) and the traced value's, or the static value; the axis always."""
    backend = load()
    data = backend.ShapeDtypeStruct(task.data.shape, task.data.dtype)
    if traced(task):
        given = traced_value(task)
        return (data, backend.ShapeDtypeStruct(given.shape, given.dtype)), {"axis": task.axis}
    return (data,), {"value": value(task, hashable=True), "axis": task.axis}


def feeds(task: Task) -> tuple[np.ndarray, ...]:
    """What the compiled executable takes for a run: the data, and the traced split value."""
    return (task.data, traced_value(task)) if traced(task) else (task.data,)


def to_jax(array: np.ndarray) -> jax.Array:
    """A JAX array of ``array``, as ``jnp.asarray`` makes it: the bytes unchanged, except that the
    32-bit mode narrows 64-bit types (int64 to int32 by wrapping, float64 to float32 by rounding),
    which is JAX's behaviour being judged."""
    converted: jax.Array = load().numpy.asarray(array)
    return converted


def to_numpy(pieces: Pieces) -> list[np.ndarray]:
    """Every piece as a NumPy array of JAX's element type (bfloat16 is ml_dtypes' in both)."""
    return [np.asarray(piece) for piece in pieces]


def eager(task: Task) -> Callable[[jax.Array], Pieces]:
    """The op called as a user calls it, on a JAX array of the data."""
    split, given, keywords = function(task.op), value(task), axis_keywords(task.axis)
    return lambda data: split(data, given, **keywords)
