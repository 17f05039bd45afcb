"""Whether routes can load their backends: the modules each declares (``Route.imports``), imported
in child processes before a run rather than found missing by every item of it.

Never in the caller's process: a backend may abort the process that imports it (Paddle after
TensorFlow), hang, start threads or print to the terminal. So each distinct set of modules gets a
child of its own, started afresh as a spawned worker is (the workers' thread variables, tied to
the caller by :mod:`.lifeline`, its output in a log of its own), a few at a time, each within the
engine's start limit. The child says which module it imports before each import, so a death names
the module it died in.
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing
import os
import tempfile
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path

from conformance.engine import lifeline, settings, worker
from conformance.engine.deaths import describe_exit
from conformance.engine.variables import backend_variables, environment

_CONTEXT = multiprocessing.get_context("spawn")
#: How much of a dead child's output its message quotes (a backend's last words).
_QUOTED = 600


def check(
    declared: Iterable[tuple[str, ...]], timeout: float, at_once: int | None = None
) -> dict[tuple[str, ...], str | None]:
    """For each distinct set of modules in ``declared``: None when a fresh process imported them
    all, else why not, naming the module (``importing scipy: ModuleNotFoundError: No module named
    'scipy'``). Each child has the time a run under ``--timeout`` gives a worker to start (a
    loaded machine must not fail a backend that loads); ``at_once``: children at a time (default:
    one per core)."""
    limit_s = settings.ENGINE.start_limit(timeout)
    pending = deque(dict.fromkeys(modules for modules in declared if modules))
    width = max(1, at_once or os.cpu_count() or 1)
    verdicts: dict[tuple[str, ...], str | None] = {}
    running: list[_Child] = []
    with tempfile.TemporaryDirectory(prefix="conformance-loadable-") as logs:
        try:
            while pending or running:
                while pending and len(running) < width:
                    log = Path(logs) / f"{len(verdicts) + len(running)}.log"
                    running.append(_Child.start(pending.popleft(), log, limit_s))
                _wait(running)
                for child in [child for child in running if child.verdict is not None]:
                    running.remove(child)
                    verdicts[child.modules] = child.verdict or None
        finally:  # interrupted: no child outlives the check
            for child in running:
                child.stop()
    return verdicts


def _wait(running: list[_Child]) -> None:
    """Wait for word from a child (or its end, or its deadline) and take in what each said."""
    soonest = min(child.deadline for child in running)
    wait(
        [handle for child in running for handle in (child.connection, child.process.sentinel)],
        max(0.0, soonest - time.monotonic()),
    )
    for child in running:
        child.poll()


@dataclass
class _Child:
    """One child importing ``modules``; ``verdict`` is "" once it imported them all, the reason
    once it could not, and None while it imports."""

    modules: tuple[str, ...]
    process: BaseProcess
    connection: Connection
    log: Path
    limit_s: float
    deadline: float
    #: the module it said it imports now (before its first: the suite's own, which it imports to start)
    importing: str = "the suite's modules"
    verdict: str | None = None

    @classmethod
    def start(cls, modules: tuple[str, ...], log: Path, limit_s: float) -> _Child:
        ours, theirs = _CONTEXT.Pipe(duplex=False)
        process = _CONTEXT.Process(
            target=_import, args=(theirs, modules, str(log)), daemon=True, name="conformance-loadable"
        )
        with environment(backend_variables(1, blas=1)):
            process.start()
        theirs.close()
        return cls(modules, process, ours, log, limit_s, time.monotonic() + limit_s)

    def poll(self) -> None:
        """Take in what the child said; decide if it ended or ran past its deadline."""
        with contextlib.suppress(EOFError, OSError):
            while self.verdict is None and self.connection.poll():
                said, detail = self.connection.recv()
                if said == "importing":
                    self.importing = detail
                else:
                    self.verdict = "" if said == "loaded" else f"importing {self.importing}: {detail}"
        if self.verdict is not None:
            self.stop()
        elif not self.process.is_alive():
            self.process.join()
            ended = describe_exit(self.process.exitcode)
            self.verdict = f"importing {self.importing}: the process died ({ended}){self._said()}"
        elif time.monotonic() > self.deadline:
            self.stop()
            limit = self.limit_s
            self.verdict = f"importing {self.importing}: not done within {limit:g} s, killed{self._said()}"

    def _said(self) -> str:
        """The end of what the child printed, where a backend says why it died."""
        with contextlib.suppress(OSError):
            text = self.log.read_text(encoding="utf-8", errors="replace").strip()
            if text:
                return (
                    f"; it printed: ...{text[-_QUOTED:]}" if len(text) > _QUOTED else f"; it printed: {text}"
                )
        return ""

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.connection.close()


def _import(connection: Connection, modules: tuple[str, ...], log_path: str) -> None:
    """The child: import ``modules`` in order, saying each one first, then whether all loaded."""
    lifeline.tie_to_spawner()
    worker.redirect_output(log_path)
    worker.forgo_core_dumps()
    for name in modules:
        connection.send(("importing", name))
        try:
            importlib.import_module(name)
        except BaseException as error:  # whatever the backend raised: the caller says it
            connection.send(("failed", f"{type(error).__name__}: {error}"))
            return
    connection.send(("loaded", None))
