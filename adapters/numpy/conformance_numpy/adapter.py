"""The NumPy adapter: NumPy's own split functions, and a NumPy emulation of every other op.

Routes:

``numpy``
    ``numpy.split``, ``array_split``, ``hsplit``, ``vsplit`` and ``dsplit`` called as a user would:
    the data, the int or the list as the case gives it, and ``axis`` only when the case states one
    (never for hsplit, vsplit and dsplit, which have no axis parameter); and basic slicing,
    ``data[a:b:c, ...]`` (``numpy.ndarray.__getitem__``), with the selection tuple a user writes
    (see :func:`conformance.reproducers.selection`).
``emulated``
    The ops :mod:`conformance_numpy.emulation` implements (OpenVINO's, ONNX's Split versions and
    torch.split / tensor_split / chunk), an independent reading of their spec texts: not a backend
    with bugs of its own, but the suite checking its reference, since two readings of one text
    written apart should agree everywhere but on the documented ambiguities.

NumPy has no devices and no graph: ``device`` accepts ``cpu`` only, and the graph options change
nothing but what a spec turns into rules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from conformance import reproducers
from conformance.plugin import AdapterError, AdapterInfo, AdapterOptions, Route, Target, Task, backend_calls
from conformance_numpy import emulation

NAME = "numpy"
DEVICES = ("cpu",)

_NUMPY_FUNCTIONS: dict[str, Callable[..., list[np.ndarray]]] = {
    f"numpy.{function.__name__}": function
    for function in (np.split, np.array_split, np.hsplit, np.vsplit, np.dsplit)
}
_NO_AXIS = frozenset({"numpy.hsplit", "numpy.vsplit", "numpy.dsplit"})
SLICING = "numpy.ndarray.__getitem__"


@dataclass(frozen=True)
class Call:
    """A split ready to apply to the data: the function and the arguments that follow the data."""

    function: Callable[..., Sequence[np.ndarray]]
    args: tuple[Any, ...]
    kwargs: Mapping[str, Any]


def _build(task: Task, target: Target) -> Call:
    """The call for the task; the request is passed as given, never checked here."""
    if task.op == SLICING:
        return Call(_getitem, (reproducers.selection(task.request),), {})
    return Call(_NUMPY_FUNCTIONS[task.op], (_argument(task),), _axis_keyword(task))


def _getitem(data: np.ndarray, index: tuple[Any, ...]) -> list[np.ndarray]:
    """``data[index]``: basic slicing gives one array (a view). Indexing is NumPy's C code, called
    from this frame: its exceptions are NumPy's refusals. ``x[()]`` of a 0-d array is a scalar, the
    element itself, handed on as the 0-d array it was cut from."""
    with backend_calls():
        return [np.asarray(data[index])]


def _run(compiled: Call, task: Task) -> Sequence[np.ndarray]:
    """The call as built, on this run's data."""
    return list(compiled.function(task.data, *compiled.args, **compiled.kwargs))


def _reproducer(task: Task, target: Target) -> str:
    """NumPy's own call, once per run of the case."""
    if task.op == SLICING:
        call = f"[data{reproducers.selection_code(task.request)}]"
    else:
        axis = "".join(f", axis={value}" for value in _axis_keyword(task).values())
        call = f"np.{_NUMPY_FUNCTIONS[task.op].__name__}(data, {_argument(task)!r}{axis})"
    return "".join(
        f"{reproducers.run_heading(run)}{reproducers.array_code(run.data)}\n"
        f"pieces = {call}\n"
        "print([piece.shape for piece in pieces])\n"
        for run in task.every_run
    )


ROUTES = (
    Route(
        "numpy",
        ("numpy.*split", SLICING),
        "numpy.split / array_split / hsplit / vsplit / dsplit called directly; basic slicing data[a:b:c]",
        build=_build,
        run=_run,
        reproducer=_reproducer,
        imports=("numpy",),
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
    form = task.request.form
    return list(form.values) if form.kind == "indices" else int(form.values[0])


def _axis_keyword(task: Task) -> dict[str, int]:
    """``axis=`` when the case states one; hsplit, vsplit and dsplit have no such parameter, and the
    catalogue never hands them an axis, so one reaching them is the suite's defect, not NumPy's."""
    if task.request.axis is None:
        return {}
    if task.op in _NO_AXIS:
        raise AdapterError(f"{task.op} takes no axis, yet the task states axis {task.request.axis}")
    return {"axis": task.request.axis}
