"""A worker's place in the pool: its process, its pipe, its state, the jobs it has been sent, and
how it ends.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import time
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.reduction import ForkingPickler
from pathlib import Path
from typing import Literal, Protocol

from conformance.engine import settings, worker
from conformance.engine.variables import backend_variables, environment
from conformance.engine.worker import Job, Preload
from conformance.engine.zygote import Forked
from conformance.plugin import Target
from conformance.storage import scratch

#: how workers are started where the zygote cannot fork them
_CONTEXT = multiprocessing.get_context("spawn")


class Process(Protocol):
    """What the pool uses of a worker process, spawned or forked."""

    @property
    def pid(self) -> int | None: ...
    @property
    def sentinel(self) -> int: ...
    @property
    def exitcode(self) -> int | None: ...
    def is_alive(self) -> bool: ...
    def join(self, timeout: float | None = None) -> None: ...
    def kill(self) -> None: ...
    def close(self) -> None: ...


#: A worker's states: ``starting`` until it has said it prepared the targets it starts with (jobs
#: may wait in its pipe meanwhile), then ``serving`` (whether it runs a job is its ``inflight``),
#: ``retiring`` once it may take no more jobs (it is replaced when it has none), ``ended`` once
#: stopped.
State = Literal["starting", "serving", "retiring", "ended"]

#: The changes of state a worker may make, and no other (see Slot.become).
TRANSITIONS: dict[State, frozenset[State]] = {
    "starting": frozenset({"serving", "retiring", "ended"}),
    "serving": frozenset({"retiring", "ended"}),
    "retiring": frozenset({"ended"}),
    "ended": frozenset(),
}


@dataclass
class Slot:
    """One worker: its process, its pipe, where it is in its life (:data:`TRANSITIONS`), the jobs
    it has been sent, and how it is timed. A slot is replaced whole when its worker dies, overruns
    or is retired."""

    process: Process
    connection: Connection
    log: Path | None
    #: the targets it prepares before its first job, and the only jobs it runs (see Job.group)
    preload: tuple[Preload, ...] = ()
    group: str | None = None
    state: State = "starting"
    #: when it was started: its start limit runs from then (see clock)
    born: float = field(default_factory=time.monotonic)
    #: jobs sent and not answered yet, the running one first (the others wait in the pipe)
    inflight: deque[Job] = field(default_factory=deque)
    #: the targets it has said it has loaded and prepared (see waits_for)
    loaded: set[Preload] = field(default_factory=set)
    #: its last item's time in ms (0: none yet) and that item's target (see takes)
    pace_ms: float = 0.0
    pace_of: Target | None = None
    #: when the running job's time is up (see clock), and since when it has been the running job
    deadline: float = 0.0
    began: float = 0.0
    served: int = 0
    log_offset: int = 0
    #: the jobs it has finished, oldest first: what the crash review replays if it dies
    history: list[Job] = field(default_factory=list)
    #: its private temporary folder, removed once it has ended (see conformance.storage.scratch)
    scratch: Path | None = None
    #: while it replaces a dead worker and has no result yet: since when it loses time (Pool.lost_s)
    replaced_at: float | None = None

    def become(self, state: State) -> None:
        """Change state as :data:`TRANSITIONS` allows; any other change is the engine's bug."""
        if state not in TRANSITIONS[self.state]:
            raise RuntimeError(f"a worker cannot go from {self.state} to {state}")
        self.state = state

    def retire(self) -> None:
        """Send it no more jobs: it is replaced once it has none (a fresh worker for what comes)."""
        if self.state != "retiring" and self.state != "ended":
            self.become("retiring")

    @property
    def prepared(self) -> bool:
        """Whether it has said it prepared the targets it starts with."""
        return self.state != "starting"

    @property
    def job(self) -> Job | None:
        """The job the worker is running (the first sent and not answered)."""
        return self.inflight[0] if self.inflight else None

    def _room(self, depth: int) -> int:
        """How many jobs of its last item's target may wait behind the running one: fewer than
        ``depth`` in flight, within ``waiting_ms`` at its pace, one at least."""
        waiting_ms = settings.ENGINE.waiting_ms
        return max(1, min(depth - 1, int(waiting_ms / self.pace_ms))) if self.pace_ms > 0 else 1

    def has_room(self, depth: int | None = None) -> bool:
        """Whether any job could be sent now: asked before one is taken from the queue, so that a
        full pipe costs no taking and giving back."""
        return len(self.inflight) <= self._room(depth or settings.ENGINE.depth)

    def takes(self, job: Job, depth: int | None = None, size: int | None = None) -> bool:
        """Whether ``job`` (``size`` bytes pickled, if known) may be sent now: to an idle worker
        always; behind a running job while the pipe has room (one job of another target than the
        last item's, whose pace says nothing of it) and within ``waiting_bytes``."""
        if not self.inflight:
            return True
        room = self._room(depth or settings.ENGINE.depth) if job.target == self.pace_of else 1
        if len(self.inflight) > room:
            return False
        return (len(pickled(job)) if size is None else size) <= settings.ENGINE.waiting_bytes

    def slack_ms(self) -> float:
        """The work waiting in its pipe behind the running job, at its pace (0: none waiting)."""
        return (len(self.inflight) - 1) * self.pace_ms

    def started_next(self, timeout: float, start_limit: float, log_end: int | None = None) -> None:
        """Its next job is its running job from now; its output starts at ``log_end`` (where the
        worker said the last one's ended), or the log's end."""
        self.began = time.monotonic()
        self.clock(timeout, start_limit)
        if log_end is None:
            log_end = self.log.stat().st_size if self.log and self.log.exists() else 0
        self.log_offset = log_end

    @property
    def starting(self) -> bool:
        """Whether the running job waits for the worker's start, or for its adapter's loading and
        its target's prepare(), rather than running."""
        job = self.job
        return not self.prepared or (job is not None and job.preload not in self.loaded)

    def clock(self, timeout: float, start_limit: float) -> None:
        """Time the running job: ``timeout`` from now for the item itself; ``start_limit`` from the
        worker's start while it starts, from now while it loads the job's adapter."""
        if not self.prepared:
            self.deadline = self.born + start_limit
        else:
            self.deadline = time.monotonic() + (start_limit if self.starting else timeout)

    def ready(self, loaded: tuple[Preload, ...], timeout: float, start_limit: float) -> None:
        """The worker has loaded and prepared the targets ``loaded``: its running job's time starts."""
        if self.state == "starting":
            self.become("serving")
        self.loaded.update(loaded)
        if self.inflight:
            self.clock(timeout, start_limit)

    def log_tail(self, lines: int = 15) -> str:
        """What the worker printed since its current job started (native crash messages land here)."""
        if self.log is None or not self.log.exists():
            return ""
        with self.log.open("rb") as stream:
            stream.seek(self.log_offset)
            text = stream.read().decode("utf-8", "replace")
        return "\n".join(text.strip().splitlines()[-lines:])


@dataclass(frozen=True)
class Start:
    """What a worker is started with (see ``worker.main``)."""

    number: int
    log: Path | None
    preload: tuple[Preload, ...]
    folder: Path
    threads: int
    memory_budget: int | None
    #: whether it prepares each further target it meets (see worker.main)
    prepares: bool = True

    @property
    def args(self) -> tuple[object, ...]:
        """``worker.main``'s arguments after its connection (what the zygote forks a worker with)."""
        log, folder = str(self.log) if self.log else None, str(self.folder)
        return (self.threads, log, self.preload, self.memory_budget, folder, self.prepares)


def slot_of(start: Start, forked: tuple[Forked, Connection] | None, group: str | None = None) -> Slot:
    """The slot of a worker the zygote forked, or of one spawned now where it could not, for the
    jobs of ``group`` alone if not None."""
    if forked is not None:
        process: Process = forked[0]
        connection = forked[1]
    else:
        connection, child = _CONTEXT.Pipe()
        spawned = _CONTEXT.Process(
            target=worker.spawned_main,
            args=(child, *start.args),
            daemon=True,
            name=f"conformance-worker-{start.number}",
        )
        with environment(backend_variables(start.threads)):
            spawned.start()
        child.close()
        process = spawned
    return Slot(process, connection, start.log, start.preload, group, scratch=start.folder)


def nap_s(busy: list[Slot]) -> float:
    """How long the parent may sleep before it looks at the ``busy`` workers' pipes: half the work
    the least supplied has waiting, at most ``nap_ms``. On two cores a wake-up per result cost the
    parent's share of the CPU; asleep while every worker has jobs waiting, it reads several."""
    slack = min((slot.slack_ms() for slot in busy), default=0.0)
    return min(slack / 2, settings.ENGINE.nap_ms) / 1000


def readable(slot: Slot) -> bool:
    """Whether the worker's pipe holds something unread (a result, or the end of the stream): a
    worker may send a result and die on its next item between the ``wait`` and the check that finds
    it dead, and the item that finished must not be blamed for the next one's death."""
    try:
        return slot.connection.poll()
    except (OSError, EOFError):  # closed here
        return False


def pickled(job: Job) -> bytes:
    """The job as its worker's ``recv`` reads it (what ``Connection.send`` would make of it)."""
    return bytes(ForkingPickler.dumps(job))


def ask_to_stop(slot: Slot) -> None:
    """Tell the worker to exit after its current job (None is the end of its job stream)."""
    if slot.process.is_alive():
        with contextlib.suppress(OSError):  # gone already
            slot.connection.send(None)


def stop_worker(slot: Slot, *, kill: bool) -> None:
    """End the worker: let it exit (it was asked) for up to ``stop_s`` unless ``kill``, then kill it
    and its process group. Stopping it again does nothing."""
    if slot.state == "ended":
        return
    slot.become("ended")
    stop_s = settings.ENGINE.stop_s
    if slot.process.pid is None:  # the zygote, importing, has not forked it: it is killed once
        slot.process.kill()  # forked (Forked.kill); waiting here would idle every worker
    else:
        if slot.process.is_alive() and not kill:
            slot.process.join(timeout=stop_s)
        if slot.process.is_alive():
            slot.process.kill()
            slot.process.join(timeout=stop_s)
        # whatever the worker started (it leads its own process group): no helper outlives it
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(slot.process.pid, signal.SIGKILL)
    with contextlib.suppress(ValueError):  # a spawned process still running cannot be closed
        slot.process.close()
    slot.connection.close()
    scratch.remove(slot.scratch)
