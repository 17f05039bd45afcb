"""The adapter plugin interface: what a backend implements to be judged by the suite.

An adapter is found through the entry-point group ``conformance.adapters``::

    [project.entry-points."conformance.adapters"]
    acme = "acme_conformance:AcmeAdapter"

The entry point names a callable (usually the class) taking the adapter's options, a mapping of
strings given on the command line as ``--option acme.device=NPU``. The executor then works in
two phases per (case, op), the way ONNX's backend runner does, and times each phase itself:

1. ``support(task, target)``: None, or :class:`Unsupported` with the reason (an op version, a
   dtype or a graph option the backend cannot express). Never raise for lack of support.
2. ``build(task, target)`` makes the model exactly as the case says (op version, attribute vs
   input, constant vs runtime input, dynamic dims, axis and lengths types); ``compile(model,
   target)`` loads it on the device (session creation, compile_model); ``run(compiled, task)``
   feeds the task's inputs and returns the outputs as NumPy arrays in the suite's dtypes
   (bfloat16 as ml_dtypes.bfloat16, strings as object arrays of str).

Optionally, ``prepare(target) -> None`` is called once per target in each worker before its
first job, untimed: import the backend and its frontends, load the device plugin. Without it
that cost lands in the first item's build time, and again after every worker replacement.

Optionally, ``reproducer(task, target) -> str | None`` returns Python statements that redo the
task with only the backend, for the reports' copy-paste reproducers. They follow a header that
imports ``base64`` and ``numpy as np``; :func:`conformance.reproducers.array_code` writes the data.
A case with ``runs:`` is replayed in full: build once, then for each of ``task.every_run`` its
:func:`conformance.reproducers.run_heading`, its inputs, and one printed line of output shapes.

An exception from build, compile or run is judged by where it came from (the suite records
it as ``actual.raised.origin``): one raised by the backend is the backend refusing the input (a
pass where the spec says reject, an ``error`` where the spec accepts); one raised by the
adapter's own code is an adapter defect (``error``, never a pass); one raised by the suite's
model builders means the request cannot be built (``unsupported``). So an adapter lets backend
exceptions through untouched, raises :class:`AdapterError` for its own defects, and marks the
backend's refusals where they surface through its own code: with :func:`backend_calls` around
calls into native code (a compiled function called from the adapter's frame leaves no Python
frame of the backend to attribute the exception to), or by raising :class:`BackendRefusal`.

A complete adapter, runnable as is, for a backend that splits with NumPy slicing::

    class SliceAdapter:
        def __init__(self, options: Mapping[str, str]) -> None:
            self.options = dict(options)

        def info(self) -> AdapterInfo:
            return AdapterInfo(
                name="slice", backend="numpy", version=numpy.__version__,
                routes=(Route("eager", ("numpy.array_split",), "basic slicing"),),
                devices=("cpu",), options=self.options,
            )

        def support(self, task: Task, target: Target) -> Unsupported | None:
            return None if task.form.kind == "indices" else Unsupported("only split points")

        def build(self, task: Task, target: Target) -> tuple[int, ...]:
            return tuple(task.form.values)

        def compile(self, model: tuple[int, ...], target: Target) -> tuple[int, ...]:
            return model

        def run(self, compiled: tuple[int, ...], task: Task) -> Sequence[numpy.ndarray]:
            axis = 0 if task.axis is None else task.axis
            points = (0, *compiled, task.data.shape[axis])
            moved = numpy.moveaxis(task.data, axis, 0)
            return [numpy.moveaxis(moved[a:b], 0, axis) for a, b in zip(points, points[1:])]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from conformance.corpus.case import Case, Form, GraphSpec
from conformance.errors import UsageError
from conformance.ids import Target
from conformance.statuses import Judged

__all__ = [
    "ENTRY_POINT_GROUP",
    "Adapter",
    "AdapterError",
    "AdapterInfo",
    "AnyAdapter",
    "BackendRefusal",
    "Judged",
    "Route",
    "Target",
    "Task",
    "Unsupported",
    "backend_calls",
    "checked_options",
    "comma_list",
    "device_list",
]

ModelT = TypeVar("ModelT")
CompiledT = TypeVar("CompiledT")

#: The entry-point group adapters register under.
ENTRY_POINT_GROUP = "conformance.adapters"


@dataclass(frozen=True)
class Route:
    """One way an adapter reaches its backend (a native graph, a file read by a frontend ...).

    ``ops`` holds the op ids or globs the route can run at all; finer refusals go through
    :meth:`Adapter.support`. ``judged="shapes"`` is for a route that infers outputs without
    computing them (ONNX's shape inference): its ``run`` returns arrays of the inferred shapes and
    dtypes whose values mean nothing, and its results say that values were not judged.
    ``default=False`` leaves the route out of a run unless a ``--target`` glob selects it: for
    conversion routes that spend a second or more per item (an exporter, a converter), which would
    multiply the time of the default run.
    """

    name: str
    ops: tuple[str, ...]
    description: str = ""
    judged: Judged = "values"
    default: bool = True
    #: Python modules the route needs that start no thread when imported (torch, onnx; not
    #: openvino or onnxruntime, which do). A run imports them once, in the process its workers
    #: are forked from, so that a new worker (one per backend crash) does not import them again.
    #: Listing a module that starts a thread is harmless but turns forking off for the run.
    imports: tuple[str, ...] = ()


@dataclass(frozen=True)
class AdapterInfo:
    """What an adapter says of itself; recorded in every results file."""

    name: str
    backend: str  # the backend's distribution name, e.g. "openvino"
    version: str  # the backend's version, e.g. "2026.4.1"
    routes: tuple[Route, ...]
    devices: tuple[str, ...]  # the devices this run targets (from the "device" option, or the default)
    options: Mapping[str, str] = field(default_factory=dict)  # resolved options, e.g. precision hints


@dataclass(frozen=True)
class Task:
    """One (case, op) handed to an adapter: the data and the split exactly as the case states it.

    ``axis`` is None when the case omits it (the op's default applies, where it has one); form
    values may be invalid on purpose, and the adapter builds them as given.

    A case with ``runs:`` makes one task per run. The first (``run`` 1, the case's own request) is
    the one ``build`` sees and carries the others in ``runs``; the executor hands each of those to
    ``run`` on the model compiled from the first, so ``run`` must feed the data and the runtime
    inputs of the task it is given, never values kept from the build. Reproducers replay them all.
    """

    item_id: str
    op: str
    data: np.ndarray
    axis: int | None
    form: Form
    graph: GraphSpec
    case: Case
    run: int = 1
    runs: tuple[Task, ...] = ()

    @property
    def every_run(self) -> tuple[Task, ...]:
        """This task and its further runs, in order (what a reproducer replays)."""
        return (self, *self.runs)

    @property
    def run_label(self) -> str:
        """How messages and reproducers name this run: ``run 2 (shape [3, 4])``."""
        return self.case.all_runs[self.run - 1].describe()

    @property
    def dtype(self) -> str:
        return self.case.data.dtype


@dataclass(frozen=True)
class Unsupported:
    """The adapter cannot express this task; ``reason`` says what is missing."""

    reason: str


class AdapterError(Exception):
    """The adapter's own defect (a table it lacks, a case it mis-built): an ``error``, never a pass."""


class BackendRefusal(Exception):
    """The backend refused the request, said in the adapter's words: for a backend that is itself
    Python code inside the adapter's package (an emulation), or a refusal the adapter detects in
    the backend's return value. Raise it ``from`` the backend's exception where there is one."""


#: Set on an exception that passed through :func:`backend_calls`: it came from the backend.
BACKEND_ORIGIN_ATTRIBUTE = "__conformance_backend__"


@contextmanager
def backend_calls() -> Iterator[None]:
    """Around calls into the backend: any exception leaving the block is the backend's refusal.

    Needed where the backend is native code called straight from the adapter's frame (a pybind
    or C function raising a plain RuntimeError), which leaves no frame of the backend's package
    in the traceback; elsewhere the suite attributes exceptions by their traceback.
    """
    try:
        yield
    except Exception as error:
        try:
            setattr(error, BACKEND_ORIGIN_ATTRIBUTE, True)
        except (AttributeError, TypeError):  # an exception type that takes no attributes
            raise BackendRefusal(f"{type(error).__name__}: {error}") from error
        raise


@runtime_checkable
class Adapter(Protocol[ModelT, CompiledT]):
    """The role an adapter plays; see the module docstring for a complete example."""

    def info(self) -> AdapterInfo:
        """Name, backend version, routes, devices and resolved options."""
        ...

    def support(self, task: Task, target: Target) -> Unsupported | None:
        """None if the target can run ``task``, else why not. Must not raise."""
        ...

    def build(self, task: Task, target: Target) -> ModelT:
        """Make the model for ``task`` on ``target``'s route (timed as "build")."""
        ...

    def compile(self, model: ModelT, target: Target) -> CompiledT:
        """Load the model on ``target.device`` (timed as "compile")."""
        ...

    def run(self, compiled: CompiledT, task: Task) -> Sequence[np.ndarray]:
        """Feed ``task``'s inputs and return every output (timed per run)."""
        ...


AnyAdapter = Adapter[Any, Any]


def checked_options(options: Mapping[str, str], known: Iterable[str]) -> dict[str, str]:
    """The options as a dict; a :class:`~conformance.errors.UsageError` naming any unknown key.

    Adapters refuse options they do not know so that a misspelt one cannot silently leave a
    certification run on its defaults.
    """
    allowed = sorted(known)
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise UsageError(f"unknown option(s) {', '.join(unknown)}; known: {', '.join(allowed)}")
    return dict(options)


def comma_list(text: str) -> tuple[str, ...]:
    """``"a, b,"`` as ``("a", "b")``: how list-valued options are written on the command line."""
    return tuple(part.strip() for part in text.split(",") if part.strip())


def device_list(options: Mapping[str, str], default: str) -> tuple[str, ...]:
    """The targets' devices from the comma-separated ``device`` option, else ``default``."""
    return comma_list(options.get("device", default)) or (default,)
