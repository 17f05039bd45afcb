"""A pool of worker processes with per-job deadlines and replacement of dead workers. The parent
never runs backend code: it keeps each worker's next jobs waiting in its pipe, waits on the pipes
and process sentinels together, and turns a death into a ``crash`` result and an overrun into a
``timeout`` (counted from when the worker was ready for the item). Which job goes to which worker
is :mod:`.schedule`'s.
"""

from __future__ import annotations

import contextlib
import gc
import json
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import wait
from pathlib import Path

from conformance.engine import phase, settings
from conformance.engine.deaths import (
    Death,
    DeathStatus,
    Witness,
    death,
    describe_exit,
    died_preparing,
    overran_start,
    unstarted,
)
from conformance.engine.schedule import Schedule
from conformance.engine.slot import Slot, Start, ask_to_stop, nap_s, pickled, readable, slot_of, stop_worker
from conformance.engine.worker import Job, Preload
from conformance.engine.zygote import Zygote
from conformance.results.result import Result
from conformance.storage import no_links, scratch
from conformance.storage.journal import line as journal_line

#: fork workers from a zygote where fork is the system's own way (Linux); spawn elsewhere
_FORKS = sys.platform.startswith("linux")


@contextlib.contextmanager
def _rarer_collections() -> Iterator[None]:
    """Collect the youngest objects less often while serving (``young_threshold``), and as
    before afterwards: a front door's own process goes on with Python's defaults."""
    thresholds = gc.get_threshold()
    gc.set_threshold(settings.ENGINE.young_threshold, *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)


@dataclass(frozen=True)
class Limits:
    """What bounds a pool's jobs and workers (see :class:`Pool`'s arguments)."""

    timeout: float
    start_limit: float
    recycle_after: int
    recycle_above_kib: int
    #: jobs in flight per worker; 2 where workers are spawned (not Linux: smaller socket buffers)
    depth: int


class Starter:
    """Starts the pool's workers: forked from the zygote where it can, spawned otherwise. A route
    with workers of its own (Job.group) has a zygote of its own, started with its first worker:
    the shared zygote holds other backends' modules."""

    def __init__(self, threads: int, log_dir: Path | None, memory_budget: int | None, forking: bool) -> None:
        self.threads, self.log_dir = threads, log_dir
        self.memory_budget, self.forking = memory_budget, forking
        #: the zygote of each worker group, once started (None: the workers that share processes)
        self.zygotes: dict[str | None, Zygote] = {}
        #: a worker died in an adapter's prepare(): from then on workers start without it
        self.prepare_broken = False
        self._started = 0
        #: the folder the workers' private temporary folders are made in, once one starts
        self._scratch: Path | None = None

    @property
    def zygote(self) -> Zygote | None:
        """The zygote the workers that share their processes fork from, once started."""
        return self.zygotes.get(None)

    def start(self, upcoming: tuple[Preload, ...], needs: tuple[str, ...], group: str | None) -> Slot:
        """A new worker that prepares ``upcoming`` first, forked once its zygote has imported
        ``needs`` (their routes' modules), for the jobs of ``group`` alone if not None."""
        self._started += 1
        log = None
        if self.log_dir is not None:
            no_links.folder(self.log_dir.parent, self.log_dir)  # a planted link: refused
            log = self.log_dir / f"worker-{self._started}.log"
        preload = () if self.prepare_broken else upcoming
        if self._scratch is None:
            self._scratch = scratch.pool_folder()
        folder = scratch.worker_folder(self._scratch, self._started)
        prepares = not self.prepare_broken
        start = Start(self._started, log, preload, folder, self.threads, self.memory_budget, prepares)
        if group is not None:
            self.start_zygote(group=group)
        zygote = self.zygotes.get(group)
        forked = zygote.fork(start.args, needs if preload else ()) if zygote is not None else None
        return slot_of(start, forked, group)

    def start_zygote(self, wait_s: float = 0.0, group: str | None = None) -> str | None:
        """Start the zygote of ``group`` (once, where workers fork), waiting ``wait_s`` for its
        harness; why workers are started afresh instead, if it cannot fork by then."""
        if not self.forking or group in self.zygotes:
            return None
        log = None
        if self.log_dir is not None:
            no_links.folder(self.log_dir.parent, self.log_dir)
            log = str(self.log_dir / ("zygote.log" if group is None else f"zygote-{len(self.zygotes)}.log"))
        zygote = self.zygotes[group] = Zygote(self.threads, log)
        if wait_s and not zygote.forkable(wait_s):
            why = zygote.reason or f"its harness took over {wait_s:.0f} s"
            return f"workers are started afresh, each importing its backends: {why}"
        return None

    def close(self, at_once: bool) -> None:
        for zygote in self.zygotes.values():
            zygote.close(at_once)
        self.zygotes = {}
        scratch.remove(self._scratch)
        self._scratch = None


def declared_imports(jobs: Iterable[Job]) -> tuple[str, ...]:
    """The modules the routes of ``jobs`` that share their workers declare (Route.imports), in the
    order their targets first come: what the zygote imports for its workers."""
    return tuple(dict.fromkeys(name for job in jobs if job.group is None for name in job.imports))


class Pool:
    """Runs jobs on ``size`` workers; ``on_result`` receives each result as it finishes, after
    ``journal`` has its JSON line. A worker is replaced after ``recycle_after`` jobs, or once it holds
    more than ``recycle_above_mib`` after a job (default: the engine's settings). ``in_order``: run
    the jobs exactly in the order given (the crash review's replays). Which job goes to which worker
    is the :class:`Schedule`'s; the pool starts, feeds, watches and replaces the workers."""

    def __init__(
        self,
        size: int,
        timeout: float,
        on_result: Callable[[Result], None],
        threads_per_worker: int = 1,
        recycle_after: int | None = None,
        recycle_above_mib: int | None = None,
        log_dir: Path | None = None,
        forking: bool = _FORKS,
        memory_budget: int | None = None,
        warn: Callable[[str], None] = lambda text: print(text, file=sys.stderr),
        in_order: bool = False,
        journal: Callable[[str], None] | None = None,
    ) -> None:
        self.size = max(1, size)
        engine = settings.ENGINE
        self.limits = Limits(
            timeout,
            engine.start_limit(timeout),
            engine.recycle_after if recycle_after is None else recycle_after,
            (engine.recycle_above_mib if recycle_above_mib is None else recycle_above_mib) * 1024,
            engine.depth if _FORKS else 2,
        )
        self.on_result, self.journal, self.warn = on_result, journal, warn
        self.starter = Starter(threads_per_worker, log_dir, memory_budget, forking)
        self.schedule = Schedule(in_order)
        #: every item a worker died on or overran, with what that worker ran before it
        self.deaths: list[Death] = []
        #: the jobs whose worker did not start within the start limit
        self.slow_starts: set[str] = set()
        self.slots: list[Slot] = []
        #: worker-seconds lost to deaths (see _replace_dead), which the benchmark reports apart
        self.lost_s = 0.0
        #: workers in a row that died before they could take a job (see _not_started)
        self._unstarted = 0
        #: a worker started after a death, ahead of the next: deaths come in runs (a backend
        #: aborting on a family of items), and it loads its adapter while the others run
        self._spare: Slot | None = None

    @property
    def importing_declared(self) -> bool:
        """Whether the zygote imports the modules routes declare: the workers share the cores with it."""
        zygote = self.starter.zygote
        if zygote is None or not zygote.importing:
            return False
        zygote.poll()
        return zygote.importing

    def _start(self, group: str | None) -> Slot:
        """A new worker for ``group``, preparing the targets of the next jobs it will likely serve."""
        jobs = [job for job in self.schedule.upcoming(self.size + 1) if job.group == group]
        first = tuple(dict.fromkeys(job.preload for job in jobs))[:2]
        needs = dict.fromkeys(name for job in jobs if job.preload in first for name in job.imports)
        return self.starter.start(first, tuple(needs), group)

    def _next_group(self) -> str | None:
        """The worker group of the next job to be taken (see Job.group)."""
        head = self.schedule.head()
        return head.group if head is not None else None

    def _start_zygote(self, wait_s: float = 0.0) -> None:
        why = self.starter.start_zygote(wait_s)
        if why is not None:
            self.warn(why)

    def _replace(self, index: int, group: str | None) -> Slot:
        """A fresh worker in the slot for the jobs of ``group``."""
        stop_worker(self.slots[index], kill=True)
        if self.starter.zygote is None and group is None:  # a short run's first replacement
            self._start_zygote()
            self._preload()
        slot = self.slots[index] = self._take_spare(group) or self._start(group)
        return slot

    def _take_spare(self, group: str | None) -> Slot | None:
        """The spare, if alive and able to serve ``group`` (not started with a prepare() found
        broken since); one that cannot is stopped."""
        spare, self._spare = self._spare, None
        if spare is None:
            return None
        if spare.group == group and spare.process.is_alive() and not self.starter.prepare_broken:
            spare.born = time.monotonic()  # its start limit counts from taking the place
            return spare
        stop_worker(spare, kill=True)
        return None

    def _preload(self) -> None:
        """Have the zygote import what the queued jobs' routes declare, behind the forks asked."""
        if self.starter.zygote is not None:
            self.starter.zygote.preload(declared_imports(self.schedule.queued()))

    def _replace_dead(self, index: int, backend_s: float = 0.0) -> None:
        """Replace a worker that died or overran. The slot's loss (lost_s) runs from the start of the
        item it died on until its successor starts its first item, less ``backend_s``."""
        dead, now = self.slots[index], time.monotonic()
        since = dead.replaced_at if dead.replaced_at is not None else dead.began
        self.lost_s += max(0.0, now - since - backend_s)
        group = self._next_group()
        self._replace(index, group).replaced_at = now
        if not self.schedule.empty:
            self._spare = self._start(group)

    def process(self, jobs: Iterable[Job]) -> None:
        """Run every job; returns when all have a result. Ctrl-C stops the workers and propagates."""
        try:
            self.serve(jobs)
        finally:
            self.close()

    def serve(self, jobs: Iterable[Job]) -> None:
        """Run every job and keep the workers for the next call (explore's); :meth:`close` ends them."""
        self.schedule.drop_queued()
        self.add(jobs)
        self.serve_until(lambda: False)

    def add(self, jobs: Iterable[Job]) -> None:
        """Queue more jobs behind those queued, starting workers up to the pool's size. A long run
        starts the zygote with its first workers, which fork before it imports the routes' modules."""
        self.schedule.add(jobs)
        eager = not self.slots and len(self.schedule) >= settings.ENGINE.eager_zygote
        if eager:
            self._start_zygote(wait_s=settings.ENGINE.zygote_wait_s)
        while len(self.slots) < min(self.size, len(self.slots) + len(self.schedule)):
            self.slots.append(self._start(self._next_group()))
        if eager:
            self._preload()

    def serve_until(self, done: Callable[[], bool]) -> None:
        """Dispatch and collect until ``done()`` or no job is queued or in flight."""
        with _rarer_collections():
            while not self.schedule.empty or any(slot.job for slot in self.slots):
                self.schedule.fill(self.slots, self.limits.depth, self._dispatch)
                self._collect()
                if done():
                    return

    def drop_queued(self) -> list[Job]:
        """Take back every job not yet sent to a worker; those in flight still finish when served."""
        return self.schedule.drop_queued()

    def close(self, at_once: bool = False) -> None:
        """Stop every worker: all are asked at once, then each is waited for (backends' teardown
        takes seconds), or killed ``at_once`` (a run interrupted). Closing again does nothing."""
        for slot in self.slots:
            ask_to_stop(slot)
        for slot in self.slots:
            stop_worker(slot, kill=at_once)
        self.slots = []
        if self._spare is not None:
            stop_worker(self._spare, kill=True)
            self._spare = None
        self.starter.close(at_once)

    def _dispatch(self, index: int, job: Job) -> bool:
        """Send ``job`` to the slot's worker; False (the job given back) when the worker is retiring
        or of another group and still busy, when the job may not wait behind its jobs (Slot.takes),
        or when the send fails on a worker that died."""
        slot, limits = self.slots[index], self.limits
        # another group: a route with workers of its own begins or ends here
        if slot.state == "retiring" or slot.served >= limits.recycle_after or slot.group != job.group:
            if slot.inflight:
                self.schedule.give_back(job)
                return False
            slot = self._replace(index, job.group)
        payload = pickled(job)
        if not slot.takes(job, limits.depth, len(payload)):  # behind enough work, or too large
            self.schedule.give_back(job)
            return False
        if not slot.inflight and slot.replaced_at is not None:
            # a replacement's loss runs from when it has work: idle for want of jobs, it loses nothing
            slot.replaced_at = time.monotonic()
        slot.inflight.append(job)
        if len(slot.inflight) == 1:
            slot.started_next(limits.timeout, limits.start_limit)
        slot.served += 1
        try:
            slot.connection.send_bytes(payload)
        except OSError:  # the worker died (on the job it runs) before the parent saw it
            slot.inflight.pop()
            slot.served -= 1
            self.schedule.give_back(job)
            if not slot.inflight:  # it died between jobs: a fresh worker takes the slot
                self._replace(index, self._next_group())
            return False  # _collect reports the death on the job it was running
        return True

    def _collect(self) -> None:
        """Wait for a result, a death or a deadline (at most ``poll_s``), and handle what came."""
        busy = [index for index, slot in enumerate(self.slots) if slot.job is not None]
        if not busy:  # every send failed on a dead worker, now replaced: dispatch again
            return
        nap = nap_s([self.slots[index] for index in busy])
        if nap:  # not a sleep(0) on every pass: that is a system call too
            time.sleep(nap)
        waiting = min(self.slots[index].deadline for index in busy)
        handles = [self.slots[i].connection for i in busy] + [self.slots[i].process.sentinel for i in busy]
        timeout = min(settings.ENGINE.poll_s, max(0.0, waiting - time.monotonic()))
        ready = wait(handles, timeout)
        for index in busy:
            self._look_at(index, ready)

    def _look_at(self, index: int, ready: Sequence[object]) -> None:
        """Handle what the busy worker ``index`` has sent, or its death, or its overrun."""
        slot = self.slots[index]
        job = slot.job
        assert job is not None
        if slot.connection in ready:
            self._receive(index)
        elif slot.process.sentinel in ready or not slot.process.is_alive():
            if readable(slot):  # it sent a result before it died: read that first, next pass
                return
            self._lost(index, job)
        elif time.monotonic() >= slot.deadline:
            if readable(slot):  # its result came after the wait: read next pass, not a timeout
                return
            if slot.starting:
                self._overran_start(index, job)
                return
            how = f"killed after {self.limits.timeout:g} s without a result"
            message = f"no result within {self.limits.timeout:g} s; the worker was killed and replaced"
            self._died(index, job, "timeout", how, message)

    def _receive(self, index: int) -> None:
        """Read every result waiting in worker ``index``'s pipe (several, after a nap), or its end."""
        slot = self.slots[index]
        while (job := slot.job) is not None:
            try:
                number, line, log_end, resident = slot.connection.recv()  # see worker._serve
            except (EOFError, OSError):
                self._lost(index, job)
                return
            if number < 0:  # the worker has loaded adapters (prepared its targets): its job runs now
                slot.ready(line, self.limits.timeout, self.limits.start_limit)
                self._unstarted = 0
            else:
                self._finished(slot, line, log_end, resident)
            if not readable(slot):
                return

    def _finished(self, slot: Slot, line: str, log_end: int, resident: int | None) -> None:
        """A result of the slot's running job, as its worker sent it."""
        result = Result.from_json(json.loads(line))
        slot.pace_ms = result.worker["elapsed_ms"] if result.worker else 0.0
        slot.pace_of = slot.inflight[0].target
        if slot.replaced_at is not None:  # the replacement's first item has run
            item_s = result.worker["elapsed_ms"] / 1000 if result.worker else 0.0
            self.lost_s += max(0.0, time.monotonic() - item_s - slot.replaced_at)
            slot.replaced_at = None
        slot.history.append(slot.inflight.popleft())
        if (resident or 0) > self.limits.recycle_above_kib:
            slot.retire()
        if slot.inflight:  # already running: its output starts where the worker said
            slot.started_next(self.limits.timeout, self.limits.start_limit, log_end)
        self._report(result, line)

    def _requeue_waiting(self, slot: Slot, *, running_too: bool = False) -> None:
        """Queue again the jobs sent behind the running one (``running_too``: and the running one)."""
        waiting = list(slot.inflight)[0 if running_too else 1 :]
        slot.inflight.clear()
        for job in reversed(waiting):
            self.schedule.give_back(job)

    def _lost(self, index: int, job: Job) -> None:
        slot = self.slots[index]
        slot.process.join(timeout=5)
        how = describe_exit(slot.process.exitcode)
        if not slot.prepared:  # no item is to blame
            if not died_preparing(bool(slot.preload), slot.log):
                self._not_started(index, how)  # it never started: nor is any backend
                return
            self.starter.prepare_broken = True  # it died in prepare()
            targets = ", ".join(entry.target.id for entry in slot.preload)
            self.warn(
                f"warning: a worker died ({how}) in the adapter's prepare() for {targets}, before any "
                f"item; workers start without prepare() from now on (its log: {slot.log})"
            )
            self._requeue_waiting(slot, running_too=True)
            self._replace_dead(index)
            return
        message = f"the worker died ({how}) while running this item; it was replaced"
        self._died(index, job, "crash", how, message)

    def _overran_start(self, index: int, job: Job) -> None:
        """The worker did not start, or load ``job``'s adapter, within :attr:`start_limit`: the job is
        the adapter's error, those behind it are queued again, and a prepare() that overran is
        turned off as after a crash there."""
        slot = self.slots[index]
        said = phase.read(slot.log)
        if not slot.prepared and died_preparing(bool(slot.preload), slot.log):
            self.starter.prepare_broken = True
            targets = ", ".join(entry.target.id for entry in slot.preload)
            self.warn(
                f"warning: the adapter's prepare() for {targets} took longer than {self.limits.start_limit:g}"
                f" s; workers start without prepare() from now on (its log: {slot.log})"
            )
        result = overran_start(job, self.limits.start_limit, said, slot.log, started=slot.prepared)
        self._requeue_waiting(slot)
        self._replace_dead(index)
        self.slow_starts.add(job.key)
        self._report(result)

    def _not_started(self, index: int, how: str) -> None:
        """A worker died before it was ready for its first job: its jobs are queued again and
        another takes its place, up to ``unstarted_limit`` in a row; then the run stops."""
        slot = self.slots[index]
        self._unstarted += 1
        self._requeue_waiting(slot, running_too=True)
        if self._unstarted >= settings.ENGINE.unstarted_limit:
            self._unstarted = 0  # a front door that goes on (pytest) tries afresh
            raise unstarted(how, slot.log)
        self._replace_dead(index)

    def _died(self, index: int, job: Job, status: DeathStatus, how: str, message: str) -> None:
        """Report ``job``, which worker ``index`` died on (or overran), with its evidence; replace it."""
        slot = self.slots[index]
        said, backend_s = phase.left(slot.log, time.monotonic())
        name = slot.log.stem if slot.log is not None else None
        witness = Witness(name, slot.process.pid, how, said, slot.log_tail(), slot.log, backend_s)
        self._requeue_waiting(slot)
        self._replace_dead(index, backend_s)
        # the dead worker's history, not a copy (its slot is replaced, so it never grows again):
        # a copy per death cost a run with 329 deaths a list of up to 37,000 jobs each
        died = death(job, status, message, witness, slot.history)
        self.deaths.append(died)
        self._report(died.result)

    def _report(self, result: Result, line: str | None = None) -> None:
        """Journal a result (``line``: its JSON as its worker encoded it), then hand it on."""
        if self.journal is not None:
            self.journal(line if line is not None else journal_line(result))
        self.on_result(result)
