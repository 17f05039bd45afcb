"""The NumPy adapter: NumPy's own split functions, and a NumPy emulation of every other op.

Routes:

``numpy``
    ``numpy.split``, ``numpy.array_split``, ``numpy.hsplit``, ``numpy.vsplit`` and
    ``numpy.dsplit`` called as a user would: the data array, the int or the list exactly as the
    case gives it, and ``axis`` only when the case states one (never for hsplit, vsplit and
    dsplit, which have no axis parameter: they choose the axis from the data's rank).
``emulated``
    The ops :mod:`conformance_numpy.emulation` implements (OpenVINO's, ONNX's Split versions and
    torch.split / tensor_split / chunk), an independent reading of their spec texts. It is not a
    backend with bugs of its own to find: it is the suite checking its reference, since two
    readings of one text written apart should agree everywhere but on the documented ambiguities.
    Its globs name exactly those ops, so an op added to the catalogue later (ONNX
    SplitToSequence, torch.hsplit ...) never reaches an emulation that has no rules for it.

NumPy has no devices and no graph, so ``device`` accepts ``cpu`` only and the graph options
that describe how a model is built (constant or runtime inputs, static or dynamic shapes) have
nothing to change; the emulation applies those a spec turns into rules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from conformance import reproducers
from conformance.plugin import AdapterError, AdapterInfo, AdapterOptions, Route, Target, Task
from conformance_numpy import emulation

NAME = "numpy"
DEVICES = ("cpu",)

_NUMPY_FUNCTIONS: dict[str, Callable[..., list[np.ndarray]]] = {
    "numpy.split": np.split,
    "numpy.array_split": np.array_split,
    "numpy.hsplit": np.hsplit,
    "numpy.vsplit": np.vsplit,
    "numpy.dsplit": np.dsplit,
}
#: The functions without an axis parameter: they pick the axis from the data's rank.
_NO_AXIS = frozenset({"numpy.hsplit", "numpy.vsplit", "numpy.dsplit"})


@dataclass(frozen=True)
class Call:
    """A split ready to apply to the data: the function and the arguments that follow the data."""

    function: Callable[..., Sequence[np.ndarray]]
    args: tuple[Any, ...]
    kwargs: Mapping[str, Any]


def _build(task: Task, target: Target) -> Call:
    """The call for the task; the request is passed as given, never checked here."""
    return Call(_NUMPY_FUNCTIONS[task.op], (_argument(task),), _axis_keyword(task))


def _run(compiled: Call, task: Task) -> Sequence[np.ndarray]:
    """NumPy has nothing to compile: the call runs as built, on this run's data."""
    return list(compiled.function(task.data, *compiled.args, **compiled.kwargs))


def _reproducer(task: Task, target: Target) -> str:
    """NumPy's own call, once per run of the case."""
    axis = "".join(f", axis={value}" for value in _axis_keyword(task).values())
    function = _NUMPY_FUNCTIONS[task.op].__name__
    return "".join(
        f"{reproducers.run_heading(run)}{reproducers.array_code(run.data)}\n"
        f"pieces = np.{function}(data, {_argument(task)!r}{axis})\n"
        "print([piece.shape for piece in pieces])\n"
        for run in task.every_run
    )


ROUTES = (
    Route(
        "numpy",
        ("numpy.*",),
        "numpy.split / array_split / hsplit / vsplit / dsplit called directly",
        build=_build,
        run=_run,
        reproducer=_reproducer,
    ),
    emulation.ROUTE,
)


class NumpyAdapter:
    """NumPy as a backend (route ``numpy``) and as a second reading of the specs (``emulated``)."""

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = AdapterOptions.parse(options, devices=DEVICES)

    def info(self) -> AdapterInfo:
        return AdapterInfo(
            name=NAME,
            backend="numpy",
            version=np.__version__,
            routes=ROUTES,
            devices=self.options.devices,
            options=self.options.resolved,
        )


def _argument(task: Task) -> int | list[int]:
    """The second argument as the case states it: a list of split points, or an int count."""
    return list(task.form.values) if task.form.kind == "indices" else int(task.form.values[0])


def _axis_keyword(task: Task) -> dict[str, int]:
    """``axis=`` when the case states one; hsplit, vsplit and dsplit have no such parameter, and the
    catalogue never hands them an axis, so one reaching them is the suite's defect, not NumPy's."""
    if task.axis is None:
        return {}
    if task.op in _NO_AXIS:
        raise AdapterError(f"{task.op} takes no axis, yet the task states axis {task.axis}")
    return {"axis": task.axis}
