"""The adapter plugin interface: what a backend implements to be judged by the suite.

An adapter is found through the entry-point group ``conformance.adapters``::

    [project.entry-points."conformance.adapters"]
    acme = "acme_conformance:AcmeAdapter"

The entry point names a callable (usually the class) taking the adapter's options (checked by
:meth:`AdapterOptions.parse`). Its ``info()`` lists its :class:`Route` objects, whose calls the
loader checks (:mod:`conformance.loading.hooks`); docs/adapters.md lists the ten concepts a
complete adapter needs and describes the whole contract.

An exception from build, compile or run is judged by who raised it: the backend's is its refusal
of the input, the adapter's own an adapter defect (never a pass, never claimed by a known issue),
the suite's model builders' an ``unsupported`` request. So an adapter lets backend exceptions
through, raises :class:`AdapterError` for its own defects, and marks refusals that surface through
its own code with :func:`backend_calls` or :class:`BackendRefusal`.

A complete adapter, runnable as is, whose backend is NumPy's own split functions::

    from collections.abc import Callable, Mapping, Sequence

    import numpy

    from conformance.plugin import AdapterInfo, AdapterOptions, Route, Target, Task

    def build(task: Task, target: Target) -> Callable[[numpy.ndarray], list[numpy.ndarray]]:
        split = numpy.split if task.op == "numpy.split" else numpy.array_split
        value, axis = task.request.form.value, task.request.axis
        argument = list(value) if isinstance(value, tuple) else value
        keywords = {} if axis is None else {"axis": axis}
        return lambda data: split(data, argument, **keywords)

    def run(model: Callable[[numpy.ndarray], list[numpy.ndarray]], task: Task) -> Sequence[numpy.ndarray]:
        return model(task.data)

    class NumpySplit:
        def __init__(self, options: Mapping[str, str]) -> None:
            self.options = AdapterOptions.parse(options, devices=("cpu",))

        def info(self) -> AdapterInfo:
            ops = ("numpy.split", "numpy.array_split")
            return AdapterInfo(
                name="npsplit", backend="numpy", version=numpy.__version__,
                routes=(Route("eager", ops, build=build, run=run, imports=("numpy",)),),
                devices=self.options.devices, options=self.options.resolved,
            )
"""

from __future__ import annotations

import contextlib
import functools
import getpass
import math
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

import numpy as np

from conformance import dtypes
from conformance.corpus.case import Case, GraphSpec, Request
from conformance.errors import UsageError
from conformance.ids import Target
from conformance.statuses import Judged

__all__ = [
    "ENTRY_POINT_GROUP",
    "Adapter",
    "AdapterError",
    "AdapterInfo",
    "AdapterOptions",
    "BackendRefusal",
    "ImpossibleOutput",
    "Judged",
    "Route",
    "Target",
    "Task",
    "Unsupported",
    "backend_calls",
    "comma_list",
    "distributions_by_package",
    "installed_distribution",
    "private_folder",
    "version_of",
]

#: The entry-point group adapters register under.
ENTRY_POINT_GROUP = "conformance.adapters"


@dataclass(frozen=True)
class Route:
    """One way an adapter reaches its backend (a native graph, a file read by a frontend, an eager
    call): the op ids or globs it runs, and the calls that take a task there (docs/adapters.md
    describes each; any may be a bound method). ``support`` refuses what the backend cannot be
    handed at all (it must not raise); ``prepare`` is the untimed start-up per target in each
    worker, which would otherwise land in the first item's build time.

    ``judged="shapes"``: the route infers outputs without computing them (ONNX's shape inference),
    so values are not judged. ``default=False`` leaves a slow route (over 20 ms an item: an exporter,
    a converter) out of a run unless a ``--target`` glob selects it. ``own_worker`` (a reason) gives
    the route's jobs workers of their own: for a backend that aborts the process when another was
    imported first (Paddle after TensorFlow).

    ``imports`` declares the modules the route's calls import to reach its backend: the backend's
    own, and what writes the input it reads (``("torch",)``; ``("onnx", "onnxruntime")``; Keras's
    numpy backend ``("numpy", "scipy", "jax")``). Every route of the default run declares them,
    unless its backend is no Python package (TF.js runs in Node.js): ``conformance adapters``
    imports them in a child process to say whether the route can load its backend, and a run
    preloads them for its workers where it can. Name the backend's modules, not the adapter's,
    and none whose import chooses something for the route (Keras binds its backend when imported:
    the keras routes declare the frameworks under it, not ``keras``).
    """

    name: str
    ops: tuple[str, ...]
    description: str = ""
    build: Callable[[Task, Target], Any] = field(kw_only=True)
    run: Callable[[Any, Task], Sequence[np.ndarray]] = field(kw_only=True)
    support: Callable[[Task, Target], Unsupported | None] | None = field(default=None, kw_only=True)
    compile: Callable[[Any, Target], Any] | None = field(default=None, kw_only=True)
    reproducer: Callable[[Task, Target], str | None] | None = field(default=None, kw_only=True)
    prepare: Callable[[Target], None] | None = field(default=None, kw_only=True)
    judged: Judged = field(default="values", kw_only=True)
    default: bool = field(default=True, kw_only=True)
    own_worker: str = field(default="", kw_only=True)
    imports: tuple[str, ...] = field(default=(), kw_only=True)


@dataclass(frozen=True)
class AdapterInfo:
    """What an adapter says of itself; recorded in every results file."""

    name: str
    backend: str  # the backend's distribution name, e.g. "openvino"
    version: str  # the backend's version, e.g. "2026.4.1"
    routes: tuple[Route, ...]
    devices: tuple[str, ...]  # the devices this run targets (from the "device" option, or the default)
    options: Mapping[str, str] = field(default_factory=dict)  # resolved options, e.g. precision hints
    #: devices the adapter also accepts through its ``device`` option, which ``conformance adapters``
    #: lists (JAX's ``gpu``): not targets of this run, and not recorded in results
    other_devices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Task:
    """One (case, op) handed to an adapter: the data and the request exactly as the case states it.

    ``request`` is the operator family's (for Split, a :class:`~conformance.corpus.case.SplitArguments`:
    ``axis``, None when the case omits it, and ``form``); its values may be invalid on purpose, and
    the adapter builds them as given. A case with ``runs:`` makes one task per run: ``build`` sees
    the first, which carries the others in ``runs``, and each is handed to ``run`` on the model
    built from the first, so ``run`` must feed the data and runtime inputs of the task it is given.
    """

    item_id: str
    op: str
    data: np.ndarray
    request: Request
    graph: GraphSpec
    case: Case
    #: 1 for the case's own request; 2, 3 ... for the tasks of a case's further runs
    run_number: int = 1
    runs: tuple[Task, ...] = ()

    @property
    def every_run(self) -> tuple[Task, ...]:
        """This task and its further runs, in order (what a reproducer replays)."""
        return (self, *self.runs)

    @property
    def run_label(self) -> str:
        """How messages and reproducers name this run: ``run 2 (shape [3, 4])``."""
        return self.case.all_runs[self.run_number - 1].describe()

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


class ImpossibleOutput(Exception):
    """Raised by a route's ``run`` when the backend returned outputs that no NumPy array can hold
    (a negative dim, more bytes than memory can address), with the shapes it gave. The item then
    fails whatever the spec expects: the backend answered, and no valid answer has such a shape."""

    def __init__(self, shapes: Sequence[Sequence[int]], dtype: str) -> None:
        self.shapes = [[int(dim) for dim in shape] for shape in shapes]
        self.dtype = dtype
        listed = ", ".join(str(shape) for shape in self.shapes)
        super().__init__(f"returned {len(self.shapes)} outputs of shapes {listed}, which no array can have")

    @staticmethod
    def found(shapes: Sequence[Sequence[int]], dtype: str) -> ImpossibleOutput | None:
        """The error for these output shapes if any of them no array can have, else None."""
        itemsize = dtypes.numpy_dtype(dtype).itemsize
        for shape in shapes:
            if any(dim < 0 for dim in shape) or math.prod(shape) * itemsize > sys.maxsize:
                return ImpossibleOutput(shapes, dtype)
        return None


#: Set on an exception that passed through :func:`backend_calls`: it came from the backend.
BACKEND_ORIGIN_ATTRIBUTE = "__conformance_backend__"


@contextmanager
def backend_calls() -> Iterator[None]:
    """Around calls into the backend: any exception leaving the block is the backend's refusal.
    Needed for native code called from the adapter's frame, which leaves no frame of the backend's
    package in the traceback (elsewhere the suite attributes exceptions by their traceback)."""
    try:
        yield
    except Exception as error:
        try:
            setattr(error, BACKEND_ORIGIN_ATTRIBUTE, True)
        except (AttributeError, TypeError):  # an exception type that takes no attributes
            raise BackendRefusal(f"{type(error).__name__}: {error}") from error
        raise


@runtime_checkable
class Adapter(Protocol):
    """What every adapter has: its info, whose routes carry the calls (see the module docstring
    for a complete example)."""

    def info(self) -> AdapterInfo:
        """Name, backend, routes, devices and resolved options."""
        ...


#: Each call's parameters, by name: a route's callables.
ROUTE_CALLS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "build": ("task", "target"),
        "run": ("model", "task"),
        "support": ("task", "target"),
        "compile": ("model", "target"),
        "reproducer": ("task", "target"),
        "prepare": ("target",),
    }
)


@dataclass(frozen=True)
class AdapterOptions:
    """An adapter's options, checked once: a misspelt ``--option acme.devise=npu`` or an unknown
    device stops the run with a usage error instead of leaving a certification on its defaults."""

    #: the options as given, ``device`` included when it was
    values: Mapping[str, str]
    #: the targets' devices: the comma-separated ``device`` option, else the first known device
    devices: tuple[str, ...]

    @classmethod
    def parse(
        cls,
        given: Mapping[str, str],
        *,
        devices: Sequence[str],
        known: Iterable[str] = (),
        any_device: bool = False,
    ) -> AdapterOptions:
        """Check ``given``: keys other than ``device`` and ``known`` are refused, and so are
        devices outside ``devices`` (whose first is the default) unless ``any_device`` (a backend
        whose device names are open-ended, such as ``cuda:1``, and checked in ``support``)."""
        allowed = sorted({"device", *known})
        unknown = sorted(set(given) - set(allowed))
        if unknown:
            raise UsageError(f"unknown option(s) {', '.join(unknown)}; known: {', '.join(allowed)}")
        chosen = comma_list(given.get("device", "")) or (devices[0],)
        strangers = [device for device in chosen if device not in devices]
        if strangers and not any_device:
            raise UsageError(
                f"unknown device(s) {', '.join(strangers)}; this adapter has: {', '.join(devices)}"
            )
        return cls(dict(given), chosen)

    def get(self, key: str, default: str) -> str:
        return self.values.get(key, default)

    def list(self, key: str, default: str) -> tuple[str, ...]:
        """A list-valued option, written ``a,b`` on the command line (``default`` when empty)."""
        return comma_list(self.values.get(key, default)) or comma_list(default)

    @property
    def resolved(self) -> dict[str, str]:
        """The options with the devices spelled out: what ``info().options`` records."""
        return {**self.values, "device": ",".join(self.devices)}


def comma_list(text: str) -> tuple[str, ...]:
    """``"a, b,"`` as ``("a", "b")``: how list-valued options are written on the command line."""
    return tuple(part.strip() for part in text.split(",") if part.strip())


def installed_distribution(package: str) -> tuple[str, str] | None:
    """The normalised name and version of the distribution that installed import package
    ``package`` (``tensorflow`` may come as ``tensorflow-cpu``), or None. Read from the metadata,
    so ``info()`` names a framework without importing it (TensorFlow's import cost each worker 4 s)."""
    from importlib import metadata

    def names() -> Iterator[str]:
        yield package  # most packages are their distribution's name: no index needed
        yield from distributions_by_package().get(package, ())

    for name in names():
        with contextlib.suppress(metadata.PackageNotFoundError):
            found = metadata.distribution(name)
            return re.sub(r"[-_.]+", "-", str(found.metadata["Name"])).lower(), found.version
    return None


def version_of(distribution: str) -> str:
    """The installed version of ``distribution``, or ``not installed``: read from its metadata, so
    that ``info()`` can name a backend's version without loading its library."""
    from importlib import metadata

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


@functools.cache
def distributions_by_package() -> Mapping[str, tuple[str, ...]]:
    """Which installed distributions provide each import package. Read once per process (it reads
    every distribution's file list), before the zygote forks, so forked workers have it."""
    from importlib import metadata

    # read-only: one copy serves every caller in the process
    return MappingProxyType(
        {package: tuple(names) for package, names in metadata.packages_distributions().items()}
    )


def private_folder(backend: str) -> str:
    """A folder of the suite's for a backend's own files (Keras's keras.json), one per user under
    this process's temporary folder (a worker's private one): the user's home stays as it was."""
    return os.path.join(tempfile.gettempdir(), f"conformance-{backend}-{getpass.getuser()}")
