"""Adapters for testing the executor itself: one that answers right, and ones that segfault,
abort, hang or misbehave on chosen cases. Named by import reference (``fake_adapters:Slicer``),
the way a vendor runs an adapter under development before registering it."""

from __future__ import annotations

import ctypes
import dataclasses
import fnmatch
import gc
import importlib
import itertools
import os
import signal
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from conformance.plugin import (
    AdapterError,
    AdapterInfo,
    BackendRefusal,
    ImpossibleOutput,
    Route,
    Target,
    Task,
    Unsupported,
    backend_calls,
)


def _calls(adapter: Any) -> dict[str, Any]:
    """A route's calls as the adapter's methods, so that each variant below overrides the one it
    breaks (``_prepare`` only where a variant has one)."""
    calls = {name: getattr(adapter, f"_{name}") for name in ("support", "build", "compile", "run")}
    return {**calls, "prepare": getattr(adapter, "_prepare", None)}


class Slicer:
    """numpy.array_split and torch.tensor_split by plain slicing (index form only)."""

    name = "slicer"

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = dict(options)

    def info(self) -> AdapterInfo:
        return AdapterInfo(
            self.name,
            "numpy",
            np.__version__,
            (Route("slices", ("numpy.array_split", "torch.tensor_split"), "basic slicing", **_calls(self)),),
            ("cpu",),
            self.options,
        )

    def _support(self, task: Task, target: Target) -> Unsupported | None:
        return None if task.request.form.kind == "indices" else Unsupported("split points only")

    def _build(self, task: Task, target: Target) -> tuple[int, ...]:
        return task.request.form.values

    def _compile(self, model: tuple[int, ...], target: Target) -> tuple[int, ...]:
        return model

    def _run(self, compiled: tuple[int, ...], task: Task) -> Sequence[np.ndarray]:
        self.misbehave(task)
        axis = 0 if task.request.axis is None else task.request.axis
        moved = np.moveaxis(task.data, axis, 0)
        points = (0, *compiled, moved.shape[0])
        return [np.moveaxis(moved[a:b], 0, axis).copy() for a, b in itertools.pairwise(points)]

    def chosen(self, task: Task) -> bool:
        return (
            fnmatch.fnmatchcase(task.case.id, self.options.get("on", "")) if "on" in self.options else False
        )

    def misbehave(self, task: Task) -> None:
        """Subclasses do something bad on the cases named by the ``on`` option."""


class Segfaulter(Slicer):
    name = "segfaulter"

    def misbehave(self, task: Task) -> None:
        if self.chosen(task):
            print("about to read address 0", flush=True)
            ctypes.string_at(0)


class Aborter(Slicer):
    """Aborts on the cases named by ``on``: in ``run`` after ``seconds`` (0 unless given), or in
    ``support``, outside the backend's phases, with the option ``in=support``."""

    name = "aborter"

    def _support(self, task: Task, target: Target) -> Unsupported | None:
        if self.options.get("in") == "support" and self.chosen(task):
            os.abort()
        return super()._support(task, target)

    def misbehave(self, task: Task) -> None:
        if self.chosen(task):
            time.sleep(float(self.options.get("seconds", "0")))
            os.abort()


class Impossible(Slicer):
    """Says the backend gave a piece of negative shape on the cases named by ``on``."""

    name = "impossible"

    def misbehave(self, task: Task) -> None:
        if self.chosen(task):
            raise ImpossibleOutput([[-3, 3], [9, 3]], task.dtype)


class Poisoner(Slicer):
    """Leaves its process broken after the cases the ``on`` option names, as a backend that
    corrupts its heap on one request: the next item on that worker dies (SIGFPE), though it
    passes alone in a fresh process."""

    name = "poisoner"
    #: the item that broke this process (a class attribute: one per worker process)
    broken_by: ClassVar[str | None] = None

    def misbehave(self, task: Task) -> None:
        if Poisoner.broken_by not in (None, task.item_id):
            print(f"the process was broken by {Poisoner.broken_by}", flush=True)
            os.kill(os.getpid(), signal.SIGFPE)
        if self.chosen(task):
            Poisoner.broken_by = task.item_id


class Litterer(Slicer):
    """Leaves a file in its temporary folder on every item and says where (in its log), then
    dies on the cases the ``on`` option names, as a backend killed inside a temporary folder."""

    name = "litterer"

    def misbehave(self, task: Task) -> None:
        handle, path = tempfile.mkstemp(prefix=f"litter-{task.case.id}-")
        os.close(handle)
        print(f"littered {path}", flush=True)
        if self.chosen(task):
            os.kill(os.getpid(), signal.SIGKILL)


class Hanger(Slicer):
    name = "hanger"

    def misbehave(self, task: Task) -> None:
        if self.chosen(task):
            time.sleep(3600)


class Stubborn(Slicer):
    """Hangs on the cases named by ``on`` ignoring SIGTERM (only SIGKILL ends it), with a helper
    process it forked hanging too, once it has written its pid to the ``hung`` file; segfaults on
    those named by ``crash`` (a worker replaced: the zygote starts, and forks the next
    replacements); sleeps ``seconds`` on the others."""

    name = "stubborn"

    def misbehave(self, task: Task) -> None:
        if fnmatch.fnmatchcase(task.case.id, self.options.get("crash", "")):
            ctypes.string_at(0)
        if not self.chosen(task):
            time.sleep(float(self.options.get("seconds", "0")))
            return
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if os.fork() == 0:
            while True:
                time.sleep(3600)
        with open(self.options["hung"], "a", encoding="utf-8") as hung:
            hung.write(f"{os.getpid()}\n")
        while True:
            time.sleep(3600)


class Flaky(Slicer):
    """Dies (SIGKILL) on the cases the ``on`` option names the first time one runs anywhere (the
    ``flag`` file says it has, across processes), then passes after ``seconds``: a death that
    does not come back when the crash review runs the item again, in a review slow enough to
    stop with Ctrl-C."""

    name = "flaky"

    def misbehave(self, task: Task) -> None:
        if not self.chosen(task):
            return
        flag = self.options["flag"]
        if not os.path.exists(flag):
            with open(flag, "w"):
                pass
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(float(self.options.get("seconds", "0")))


class SlowLoader(Slicer):
    """Takes 0.2 s to load, like a backend importing its framework."""

    name = "slow-loader"

    def __init__(self, options: Mapping[str, str]) -> None:
        super().__init__(options)
        time.sleep(0.2)


class SlowStart(Slicer):
    """Takes ``load`` seconds to load and ``prepare`` seconds in its route's prepare() (0 unless
    given), like a backend importing its framework: neither is any item's time."""

    name = "slow-start"

    def __init__(self, options: Mapping[str, str]) -> None:
        super().__init__(options)
        time.sleep(float(self.options.get("load", "0")))

    def _prepare(self, target: Target) -> None:
        time.sleep(float(self.options.get("prepare", "0")))


class PrepareMarker(SlowStart):
    """Slow to load (``load`` seconds), then creates the file its ``marker`` option names when it
    prepares a target: whether a worker got as far as preparing."""

    name = "prepare-marker"

    def _prepare(self, target: Target) -> None:
        Path(self.options["marker"]).touch()


class GcReporter(Slicer):
    """Prints, on every item, how many objects the garbage collector leaves alone for good
    (``gc.freeze``): what the worker had loaded before the item."""

    name = "gc-reporter"

    def misbehave(self, task: Task) -> None:
        print(f"frozen objects: {gc.get_freeze_count()}", flush=True)


class Sleeper(Slicer):
    """Slow on every case (``seconds``), so a run can be interrupted part-way; the cases the ``on``
    option names wait besides until the file ``until`` exists: a run held as long as a test needs,
    whatever the machine's load."""

    name = "sleeper"

    def misbehave(self, task: Task) -> None:
        time.sleep(float(self.options.get("seconds", "0.05")))
        while self.chosen(task) and not os.path.exists(self.options["until"]):
            time.sleep(0.05)


class Snail(Sleeper):
    """A second slow target (named to sort between ``slicer`` and ``swift``)."""

    name = "snail"


class Swift(Slicer):
    """A second fast target."""

    name = "swift"


class _Heavy(tuple):  # type: ignore[type-arg]
    """A compiled model whose destructor takes 50 ms, like a backend tearing down its thread pool."""

    def __del__(self) -> None:
        time.sleep(0.05)


class SlowRelease(Slicer):
    """Frees its compiled model slowly: the time is the backend's, and the executor says so."""

    name = "slow-release"

    def _compile(self, model: tuple[int, ...], target: Target) -> tuple[int, ...]:
        return _Heavy(model)


class SlowRefusal(Slicer):
    """Refuses after 50 ms: in ``build`` on the cases named by ``on``, in ``run`` on the others. A
    refusal takes the backend's time, and the executor counts it as the backend's."""

    name = "slow-refusal"

    def _build(self, task: Task, target: Target) -> tuple[int, ...]:
        if self.chosen(task):
            time.sleep(0.05)
            raise BackendRefusal("refused while building")
        return task.request.form.values

    def misbehave(self, task: Task) -> None:
        time.sleep(0.05)
        raise BackendRefusal("refused while running")


class Hoarder(Slicer):
    """Keeps 400 MiB (written, so resident) for the rest of the worker's life on chosen cases:
    a backend that accumulates memory."""

    name = "hoarder"
    kept: ClassVar[list[np.ndarray]] = []

    def misbehave(self, task: Task) -> None:
        if self.chosen(task):
            self.kept.append(np.ones(400 * 1024 * 1024, dtype=np.uint8))


class Glutton(Slicer):
    """Asks for 20 GiB on chosen cases: a backend allocating without bound."""

    name = "glutton"

    def misbehave(self, task: Task) -> None:
        if self.chosen(task):
            np.ones(20 << 30, dtype=np.uint8)


class Forgetful(Slicer):
    """Returns None from run on chosen cases: an adapter breaking the return-value contract."""

    name = "forgetful"

    def _run(self, compiled: tuple[int, ...], task: Task) -> Sequence[np.ndarray]:
        return None if self.chosen(task) else super()._run(compiled, task)  # type: ignore[return-value]


class Closer(Slicer):
    """Closes sys.stdout and the descriptor of stderr on chosen cases: the worker must carry on."""

    name = "closer"

    def misbehave(self, task: Task) -> None:
        if self.chosen(task):
            sys.stdout.close()
            os.close(2)


class Orphaner(Slicer):
    """On chosen cases, starts a helper process (which keeps every descriptor of the worker and
    sleeps), writes its pid to the ``helpers`` file, then segfaults."""

    name = "orphaner"

    def misbehave(self, task: Task) -> None:
        if self.chosen(task):
            helper = os.fork()
            if helper == 0:
                time.sleep(120)
                os._exit(0)
            with open(self.options["helpers"], "a", encoding="utf-8") as helpers:
                helpers.write(f"{helper}\n")
            ctypes.string_at(0)


class BrokenPrepare(Slicer):
    """Segfaults in prepare(): the crash is the preparation's, not the first item's."""

    name = "broken-prepare"

    def _prepare(self, target: Target) -> None:
        ctypes.string_at(0)


class Liar(Slicer):
    """Swaps the first two outputs on chosen cases: a wrong answer the judge must catch."""

    name = "liar"

    def _run(self, compiled: tuple[int, ...], task: Task) -> Sequence[np.ndarray]:
        outputs = list(super()._run(compiled, task))
        if self.chosen(task) and len(outputs) > 1:
            outputs[0], outputs[1] = outputs[1], outputs[0]
        return outputs


class AbsentBackend(Slicer):
    """Its route declares a backend module that is not installed, which its build imports: as
    Keras's numpy route imported SciPy in a venv where nothing had installed it."""

    name = "absent"
    MODULE = "no_such_backend_module"

    def info(self) -> AdapterInfo:
        info = super().info()
        declared = ("numpy", self.MODULE)
        return dataclasses.replace(
            info, routes=tuple(dataclasses.replace(route, imports=declared) for route in info.routes)
        )

    def _build(self, task: Task, target: Target) -> tuple[int, ...]:
        importlib.import_module(self.MODULE)
        return super()._build(task, target)


class NotAnAdapter:
    """Constructs, but implements none of the interface."""

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = options


class WrongInfo(Slicer):
    def info(self) -> AdapterInfo:
        return {"name": "wrong"}  # type: ignore[return-value]


class TableAdapter:
    """The reviewers' adapters: a numpy backend driven through a lookup table and argument names
    that can be wrong, with a ``flaw`` option choosing the mistake. None of them may ever pass an
    invalid case: their exceptions are theirs, not the backend's."""

    name = "table"
    FUNCTIONS: ClassVar[dict[str, Any]] = {"numpy.split": np.split, "numpy.array_split": np.array_split}

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = dict(options)
        self.flaw = self.options.get("flaw", "none")

    def info(self) -> AdapterInfo:
        route = Route("table", tuple(self.FUNCTIONS), "numpy through a table", **_calls(self))
        return AdapterInfo(self.name, "numpy", np.__version__, (route,), ("cpu",), self.options)

    def _support(self, task: Task, target: Target) -> Unsupported | None:
        return None

    def _build(self, task: Task, target: Target) -> Task:
        if self.flaw == "keyerror":
            return {"my_table": task}["other_table"]  # a lookup the adapter got wrong
        if self.flaw == "adaptererror":
            raise AdapterError("no kernel registered for this op")
        if self.flaw == "builder":
            from conformance.models import onnx_graphs

            onnx_graphs.version_of(task.op)  # the suite's ONNX builder, handed a numpy op
        return task

    def _compile(self, model: Task, target: Target) -> Task:
        return model

    def _run(self, compiled: Task, task: Task) -> Sequence[np.ndarray]:
        if self.flaw == "stub":
            raise NotImplementedError("run() is not written yet")
        axis = 0 if task.request.axis is None else task.request.axis
        value = task.request.form.value
        argument = list(value) if isinstance(value, tuple) else value
        function = self.FUNCTIONS[task.op]
        if self.flaw == "dim":  # torch's keyword given to numpy
            return function(task.data, argument, dim=axis)  # type: ignore[call-arg]
        if self.flaw == "datetime":
            return [
                piece.view("datetime64[s]")
                for piece in function(np.zeros(task.data.shape, np.int64), argument, axis)
            ]
        if self.flaw == "refusal":
            try:
                return function(task.data, argument, axis=axis)
            except ValueError as error:
                raise BackendRefusal(f"numpy refused: {error}") from error
        with backend_calls():
            return function(task.data, argument, axis=axis)


class ReferenceBreaker(Slicer):
    """Breaks the reference itself, in the worker that constructs it: every answer raises. The
    worker must report each item as a harness error and live on, not die on the second call."""

    name = "breaker"

    def __init__(self, options: Mapping[str, str]) -> None:
        super().__init__(options)
        import multiprocessing

        if not multiprocessing.current_process().name.startswith("conformance-worker"):
            return  # the parent constructs it too, to plan: the reference must stay whole there
        from conformance.oracle import reference

        def broken(op: str, request: object) -> object:
            raise ZeroDivisionError("the reference broke")

        reference.answer = broken  # type: ignore[assignment]


class Answering:
    """Answers every request with the reference's own pieces: those of the task ``run`` is handed,
    or (option ``stale=1``) those of the task the model was built from, the way a backend that
    keeps the first run's runtime values would; ``refuse_run=N`` refuses that run."""

    name = "answering"

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = dict(options)
        self.stale = options.get("stale") == "1"
        self.refuse_run = int(options["refuse_run"]) if "refuse_run" in options else None

    def info(self) -> AdapterInfo:
        return AdapterInfo(
            self.name,
            "numpy",
            np.__version__,
            (Route("graph", ("*",), **_calls(self)),),
            ("cpu",),
            self.options,
        )

    def _support(self, task: Task, target: Target) -> Unsupported | None:
        return None

    def _build(self, task: Task, target: Target) -> Task:
        if self.options.get("refuse_build") == "1":
            raise BackendRefusal("no model for this request")
        return task

    def _compile(self, model: Task, target: Target) -> Task:
        return model

    def _run(self, compiled: Task, task: Task) -> Sequence[np.ndarray]:
        from conformance.oracle.reference import Pieces, SplitRequest, answer

        if task.run_number == self.refuse_run:
            raise BackendRefusal(f"refusing run {task.run_number}")
        source = compiled if self.stale else task
        request = SplitRequest(
            task.data.shape, task.dtype, source.request.axis, source.request.form, task.graph
        )
        outcome = answer(task.op, request).outcome
        if not isinstance(outcome, Pieces):
            raise BackendRefusal(f"the request is invalid: {outcome.rule}")
        return list(outcome.take(task.data))


class Planted(Answering):
    """Right everywhere but for three planted bugs, for ``conformance explore`` to find and shrink:
    8- and 16-bit integers come back negated (a wrong answer), an axis at or past the rank is
    taken modulo the rank (accepting what every spec rejects), and empty data split into three or
    more lengths aborts the process (a crash)."""

    name = "planted"

    def _run(self, compiled: Task, task: Task) -> Sequence[np.ndarray]:
        from conformance.oracle.reference import Pieces, SplitRequest, answer

        if task.data.size == 0 and task.request.form.kind == "lengths" and len(task.request.form.values) >= 3:
            os.abort()
        axis = task.request.axis
        rank = task.data.ndim
        if axis is not None and rank and axis >= rank:
            axis %= rank
        request = SplitRequest(task.data.shape, task.dtype, axis, task.request.form, task.graph)
        outcome = answer(task.op, request).outcome
        if not isinstance(outcome, Pieces):
            raise BackendRefusal(f"the request is invalid: {outcome.rule}")
        pieces = list(outcome.take(task.data))
        if task.dtype in ("int8", "uint8", "int16", "uint16"):
            pieces = [-piece for piece in pieces]
        return pieces
