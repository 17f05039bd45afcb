"""The MLX adapter: ``mlx.core.split`` called as a user calls it, on MLX's CPU device.

Route ``eager``: the case's data copied into an ``mlx.core.array`` on the CPU stream, the split
handed as the case states it (an int count, a list of split points, ``axis=`` only when the case
gives one), every piece evaluated and copied back into NumPy. MLX computes lazily; ``mx.eval``
makes the pieces exist before they are read, so a refusal that only evaluation finds is the
split's.

Element types: MLX holds the suite's types but complex128 and strings (its Data Types page). The
catalogue leaves strings out; complex128 data is unsupported here, since ``mx.array`` would take it
and narrow it to complex64. bfloat16 crosses as its 16-bit patterns (NumPy's buffer protocol has
no bfloat16), reinterpreted on each side, so no value is converted; every other type is named to
``mx.array``, which would otherwise make float64 data float32.

MLX aborts the process on some requests (split points past int32): the engine runs each item in a
worker, so an abort costs that item alone and is recorded as a crash.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from conformance import dtypes, reproducers
from conformance.plugin import (
    AdapterInfo,
    AdapterOptions,
    Route,
    Target,
    Task,
    Unsupported,
    backend_calls,
    installed_distribution,
)

NAME = "mlx"
DEVICES = ("cpu",)
DATA_TYPES_PAGE = "https://ml-explore.github.io/mlx/build/html/python/data_types.html"

Split = Callable[..., Sequence[Any]]
#: MLX's names for the suite's types where they differ (``mlx.core.bool_``).
_MLX_NAMES = {"bool": "bool_"}


def _mx() -> Any:
    """``mlx.core``, imported where first needed: in the workers, never in the run's main process."""
    import mlx.core

    return mlx.core


def _support(task: Task, target: Target) -> Unsupported | None:
    """complex128 has no MLX type: ``mx.array`` would narrow it to complex64, not refuse it."""
    if task.dtype == "complex128":
        return Unsupported(
            f"MLX has no complex128 (its Data Types page lists complex64 only): {DATA_TYPES_PAGE}"
        )
    return None


def _build(task: Task, target: Target) -> Split:
    """``mlx.core.split`` itself: there is no model to make."""
    split: Split = _mx().split
    return split


def _run(split: Split, task: Task) -> list[np.ndarray]:
    """The data into MLX on the CPU stream, the split as the case states it, the pieces back."""
    mx = _mx()
    with backend_calls():
        pieces = split(_to_mlx(mx, task.data), _argument(task), **_axis_keyword(task), stream=mx.cpu)
        mx.eval(*pieces)
        return [_to_numpy(mx, piece, task.data.dtype) for piece in pieces]


def _to_mlx(mx: Any, data: np.ndarray) -> Any:
    """An MLX array of the data's own type, named explicitly: ``mx.array`` left to infer it makes
    float64 data float32."""
    kind = dtypes.name_of(data.dtype)
    if kind == "bfloat16":
        return mx.array(data.view(np.uint16)).view(mx.bfloat16)
    return mx.array(data, dtype=getattr(mx, _MLX_NAMES.get(kind, kind)))


def _to_numpy(mx: Any, piece: Any, dtype: np.dtype) -> np.ndarray:
    if dtypes.name_of(dtype) == "bfloat16":
        return np.array(piece.view(mx.uint16), copy=True).view(dtype)
    return np.array(piece, copy=True)


def _argument(task: Task) -> int | list[int]:
    """A list of split points, or an int count, as the case states it."""
    form = task.request.form
    return list(form.values) if form.kind == "indices" else int(form.values[0])


def _axis_keyword(task: Task) -> dict[str, int]:
    return {} if task.request.axis is None else {"axis": task.request.axis}


def _reproducer(task: Task, target: Target) -> str:
    """The same call on the case's data, for every run of the case, with only MLX and NumPy."""
    axis = "".join(f", axis={value}" for value in _axis_keyword(task).values())
    bfloat16 = task.dtype == "bfloat16"
    kind = _MLX_NAMES.get(task.dtype, task.dtype)
    to_mlx = f"mx.array(data, dtype=mx.{kind})"
    if bfloat16:
        to_mlx = "mx.array(data.view(np.uint16)).view(mx.bfloat16)"
    return "import mlx.core as mx\n\n" + "".join(
        f"{reproducers.run_heading(run)}{reproducers.array_code(run.data)}\n"
        f"pieces = mx.split({to_mlx}, {_argument(run)!r}{axis}, stream=mx.cpu)\n"
        "mx.eval(*pieces)\nprint([piece.shape for piece in pieces])\n"
        for run in task.every_run
    )


def _prepare(target: Target) -> None:
    """Import MLX and split once, so that its start-up is not charged to the first item."""
    mx = _mx()
    mx.eval(*mx.split(mx.zeros((2, 4)), 2, axis=1, stream=mx.cpu))


ROUTES = (
    Route(
        "eager",
        ("mlx.core.split",),
        build=_build,
        run=_run,
        support=_support,
        reproducer=_reproducer,
        prepare=_prepare,
        description="mlx.core.split called on an mlx.core.array of the data, on the CPU stream",
        imports=("mlx.core",),
    ),
)


class MlxAdapter:
    """Runs mlx.core.split through MLX's CPU backend; see the module docstring."""

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = AdapterOptions.parse(options, devices=DEVICES)

    def info(self) -> AdapterInfo:
        """MLX's version from its installed metadata: the run's main process never imports MLX."""
        backend, version = installed_distribution("mlx") or ("mlx", "not installed")
        return AdapterInfo(
            name=NAME,
            backend=backend,
            version=version,
            routes=ROUTES,
            devices=self.options.devices,
            options=self.options.resolved,
        )
