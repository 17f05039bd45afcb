"""A pool of worker processes with per-job deadlines and replacement of dead workers. The parent
never runs backend code: it keeps each worker's next jobs waiting in its pipe, waits on the pipes
and process sentinels together, and turns a death into a ``crash`` result and an overrun into a
``timeout`` (counted from when the worker was ready for the item). Large jobs go to the first
worker alone: they run one at a time on the machine anyway.
"""

from __future__ import annotations

import contextlib
import gc
import json
import sys
import time
from collections import deque
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
from conformance.engine.slot import Slot, Start, ask_to_stop, nap_s, pickled, readable, slot_of, stop_worker
from conformance.engine.worker import Job, Learned, Preload, one_backend
from conformance.engine.zygote import Zygote
from conformance.plugin import Target
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
    #: run the jobs exactly in the order given, the large ones too (the crash review's replays)
    in_order: bool
    #: jobs in flight per worker; 2 where workers are spawned (not Linux: smaller socket buffers)
    depth: int


class Starter:
    """Starts the pool's workers: forked from a zygote where it can, spawned otherwise. A route
    with workers of its own (Job.group) has a zygote of its own, started with its first worker:
    the shared one holds other backends' modules, and spawned workers would import their backend
    again after every death."""

    def __init__(
        self,
        threads: int,
        log_dir: Path | None,
        memory_budget: int | None,
        forking: bool,
        warn: Callable[[str], None],
    ) -> None:
        self.threads, self.log_dir, self.memory_budget = threads, log_dir, memory_budget
        self.forking, self.warn = forking, warn
        #: the zygote of each worker group (None: the shared one)
        self.zygotes: dict[str | None, Zygote] = {}
        #: the modules each group's workers imported, passed on to its zygote, each with whether
        #: the worker found it started no thread (see worker.learned)
        self.learned: dict[str | None, dict[str, bool]] = {}
        #: a worker died in an adapter's prepare(): from then on workers start without it
        self.prepare_broken = False
        self._started = 0
        #: the folder the workers' private temporary folders are made in, once one starts
        self._scratch: Path | None = None
        #: a worker started ahead of the next death, to take its place (see Pool._replace_dead)
        self.spare: Slot | None = None

    def start(self, upcoming: tuple[Preload, ...], group: str | None) -> Slot:
        """A new worker that prepares ``upcoming`` first, for the jobs of ``group`` alone if not None."""
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
        zygote = self.zygotes.get(group)
        if zygote is not None:
            zygote.poll()
        # a fork asked while the zygote imports the declared modules (seconds, at a long run's
        # start) waits for them: a worker replacing a dead one is spawned then, and forked afresh
        # once it meets a target whose modules the zygote has since imported (see Pool._behind)
        forked = None if zygote is None or zygote.importing_declared else zygote.fork(start.args)
        slot = slot_of(start, forked)
        slot.readiness.group = group
        slot.readiness.zygote_imports = 0 if zygote is None or forked is None else zygote.imports
        return slot

    def start_zygote(self, wait_s: float = 0.0, group: str | None = None) -> None:
        """Start the zygote of ``group`` (once, where workers fork), waiting ``wait_s`` for it."""
        if not self.forking or group in self.zygotes:
            return
        log = None
        if self.log_dir is not None:
            no_links.folder(self.log_dir.parent, self.log_dir)
            name = "zygote" if group is None else f"zygote-{len(self.zygotes)}"
            log = str(self.log_dir / f"{name}.log")
        zygote = self.zygotes[group] = Zygote(self.threads, log)
        known = self.learned.get(group, {})  # what the workers started before it found
        for thread_free in (True, False):
            names = [name for name, free in known.items() if free is thread_free]
            if names:
                zygote.learn(names, thread_free)
        if wait_s and not zygote.forkable(wait_s):
            why = zygote.reason or f"its harness took over {wait_s:.0f} s"
            self.warn(f"workers are started afresh, each importing its backends: {why}")

    def learn(
        self, said: Learned, group: str | None, target: Target | None = None, declared: bool = False
    ) -> None:
        """Pass on to the zygote of ``group`` the new modules one of its workers imported loading
        ``target``, and whether they started no thread there (see worker.learned); or those
        ``target``'s route declares."""
        modules, thread_free = said
        known = self.learned.setdefault(group, {})
        # in the order imported: a module may set up how a later one loads (telemetry_off)
        new = [name for name in modules if name not in known]
        known.update(dict.fromkeys(new, thread_free))
        if new and group in self.zygotes:
            self.zygotes[group].learn(new, thread_free, target, declared)

    def take_spare(self, group: str | None) -> Slot | None:
        """The spare, if alive and able to serve ``group`` (not started with a prepare() found broken
        since); one that cannot is stopped."""
        spare, self.spare = self.spare, None
        if spare is None:
            return None
        if spare.readiness.group == group and spare.process.is_alive() and not self.prepare_broken:
            spare.readiness.born = time.monotonic()  # its start limit counts from taking the place
            return spare
        stop_worker(spare, kill=True)
        return None

    def close(self, at_once: bool) -> None:
        if self.spare is not None:
            stop_worker(self.spare, kill=True)
            self.spare = None
        for zygote in self.zygotes.values():
            zygote.close(at_once)
        self.zygotes.clear()
        scratch.remove(self._scratch)
        self._scratch = None


class Pool:
    """Runs jobs on ``size`` workers; ``on_result`` receives each result as it finishes, after
    ``journal`` has its JSON line. A worker is replaced after ``recycle_after`` jobs, or once it holds
    more than ``recycle_above_mib`` after a job (default: the engine's settings). ``in_order``: run
    the jobs exactly in the order given (the crash review's replays)."""

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
            in_order,
            engine.depth if _FORKS else 2,
        )
        self.on_result, self.journal, self.warn = on_result, journal, warn
        self.starter = Starter(threads_per_worker, log_dir, memory_budget, forking, warn)
        #: every item a worker died on or overran, with what that worker ran before it
        self.deaths: list[Death] = []
        #: the jobs whose worker did not start within the start limit
        self.slow_starts: set[str] = set()
        self.slots: list[Slot] = []
        self.queue: deque[Job] = deque()
        #: the large jobs, for the first slot alone
        self.large: deque[Job] = deque()
        #: per target, the jobs set aside while another worker or the zygote loads it (see _take)
        self.aside: dict[Preload, list[Job]] = {}
        #: worker-seconds lost to deaths (see _replace_dead), which the benchmark reports apart
        self.lost_s = 0.0
        #: workers in a row that died before they could take a job (see _not_started)
        self._unstarted = 0

    @property
    def importing_declared(self) -> bool:
        """Whether a zygote imports the modules routes declare: the workers share the cores with it."""
        return any(zygote.importing_declared for zygote in self.starter.zygotes.values())

    def _upcoming(self, group: str | None) -> tuple[Preload, ...]:
        """The targets of the next queued jobs of ``group``: what a new worker will likely serve."""
        seen: dict[Preload, None] = {}
        for job in [*list(self.large)[:1], *list(self.queue)[: self.size + 1]]:
            if job.group == group:
                seen.setdefault(job.preload, None)
        return tuple(seen)[:2]

    def _start(self, group: str | None) -> Slot:
        return self.starter.start(self._upcoming(group), group)

    def _next_group(self) -> str | None:
        """The worker group of the next job to be taken (see Job.group)."""
        head = self.large[0] if self.large else self.queue[0] if self.queue else None
        return head.group if head is not None else None

    def _replace(self, index: int, group: str | None) -> Slot:
        """A fresh worker in the slot for the jobs of ``group``: the spare if it can, else a new one."""
        stop_worker(self.slots[index], kill=True)
        slot = self.starter.take_spare(group)
        if slot is None:
            self.starter.start_zygote(group=group)
            slot = self._start(group)
        self.slots[index] = slot
        return slot

    def _replace_dead(self, index: int, backend_s: float = 0.0) -> None:
        """Replace a worker that died or overran. The slot's loss (lost_s) runs from the start of the
        item it died on until its successor starts its first item, less ``backend_s``."""
        dead, now = self.slots[index], time.monotonic()
        since = dead.replaced_at if dead.replaced_at is not None else dead.began
        self.lost_s += max(0.0, now - since - backend_s)
        group = self._next_group()
        self._replace(index, group).replaced_at = now
        # deaths come in runs (a backend aborting on a family of items): the next one's
        # replacement starts now, while the other workers run, and imports its backend then
        if self.queue or self.large:
            self.starter.spare = self._start(group)

    def process(self, jobs: Iterable[Job]) -> None:
        """Run every job; returns when all have a result. Ctrl-C stops the workers and propagates."""
        try:
            self.serve(jobs)
        finally:
            self.close()

    def serve(self, jobs: Iterable[Job]) -> None:
        """Run every job and keep the workers for the next call (explore's); :meth:`close` ends them."""
        self.queue, self.large = deque(), deque()
        self.add(jobs)
        self.serve_until(lambda: False)

    def add(self, jobs: Iterable[Job]) -> None:
        """Queue more jobs behind those queued, starting workers up to the pool's size."""
        added = list(jobs)
        for given in added:
            (self.large if given.large and not self.limits.in_order else self.queue).append(given)
        eager = not self.slots and len(self.queue) >= settings.ENGINE.eager_zygote
        if eager:
            self.starter.start_zygote(wait_s=settings.ENGINE.zygote_wait_s)
        while len(self.slots) < min(self.size, len(self.slots) + len(self.queue) + bool(self.large)):
            group = self._next_group()
            if group is not None:  # its zygote learns from these first workers, for the ones after
                self.starter.start_zygote(group=group)
            self.slots.append(self._start(group))
        if eager:
            self._import_declared()

    def _import_declared(self) -> None:
        """Have each group's zygote import the modules the queued targets' routes declare
        (Route.imports), in the order the targets come. Their jobs wait meanwhile (see _take) and
        the workers are then re-forked with them (see _behind): learned from the workers alone,
        at -j 2 a backend was imported by the first worker that met it and then by the zygote.
        A declaration says what the backend is made of, not that it starts no thread (ONNX Runtime
        and OpenVINO start one): the zygote tries each package in a forked child first."""
        seen: set[Target] = set()
        for job in [*self.large, *self.queue]:
            if job.imports and job.target not in seen:
                seen.add(job.target)
                self.starter.start_zygote(group=job.group)
                self.starter.learn((job.imports, False), job.group, job.target, declared=True)

    def _behind(self, slot: Slot, job: Job) -> bool:
        """Whether the worker would load ``job``'s adapter itself though its zygote has imported
        modules since forking it: a fresh fork holds them (and loads the adapter in milliseconds).
        Not while the zygote imports: the fork would wait for it (7 s at -j 1, for TensorFlow)."""
        zygote = self.starter.zygotes.get(job.group)
        if zygote is None or not slot.readiness.prepared or job.preload in slot.readiness.loaded:
            return False
        zygote.poll()
        return (
            zygote.usable is True and not zygote.importing and zygote.imports > slot.readiness.zygote_imports
        )

    def serve_until(self, done: Callable[[], bool]) -> None:
        """Dispatch and collect until ``done()`` or no job is queued or in flight."""
        with _rarer_collections():
            while self.queue or self.large or self.aside or any(slot.job for slot in self.slots):
                self._fill()
                self._collect()
                if done():
                    return

    def _fill(self) -> None:
        """Send the workers their next jobs a level at a time (each its first, then each its
        second ...), so that a short queue (the pytest plugin's) is shared out."""
        full: set[int] = set()
        if self.aside:  # those no process loads any more go back to the queue's front
            loading = self._loading()
            for preload in [preload for preload in self.aside if not one_backend(preload.target, loading)]:
                self.queue.extendleft(reversed(self.aside.pop(preload)))
        for level in range(1, self.limits.depth + 1):
            for index, slot in enumerate(self.slots):
                if index in full or len(slot.inflight) >= level or not slot.has_room(self.limits.depth):
                    continue
                taken = self._take(index)
                if taken is None or not self._dispatch(index, taken):
                    full.add(index)

    def drop_queued(self) -> list[Job]:
        """Take back every job not yet sent to a worker; those in flight still finish when served."""
        dropped = [*self.large, *(job for jobs in self.aside.values() for job in jobs), *self.queue]
        self.large, self.aside, self.queue = deque(), {}, deque()
        return dropped

    def _loading(self, besides: int | None = None) -> set[Target]:
        """The targets a worker other than slot ``besides`` has jobs of and has not loaded, and
        those whose modules the shared zygote imports (declared, or for a worker that loaded them)."""
        loading = set().union(*(slot.readiness.pending for i, slot in enumerate(self.slots) if i != besides))
        zygote = self.starter.zygotes.get(None)  # the one every route shares
        if zygote is not None and zygote.learning:
            zygote.poll()
            loading |= zygote.learning
        return loading

    def _take(self, index: int) -> Job | None:
        """The next job for slot ``index``: the large ones go to the first slot alone. Jobs of a
        backend another process loads are set aside while the worker has others: two workers that
        met a backend at once both imported it (TensorFlow, 5 s each, in the sample that prices
        every target early); the one that waits is re-forked once the zygote has it (see _behind).
        A worker with nothing else to run takes them rather than wait."""
        slot = self.slots[index]
        if index == 0 and self.large:
            return self.large.popleft()
        loading = self._loading(index) if self.queue and not self.limits.in_order else set()
        while (
            self.queue
            and one_backend(self.queue[0].target, loading)
            and not slot.readiness.holds(self.queue[0])
        ):
            job = self.queue.popleft()
            self.aside.setdefault(job.preload, []).append(job)
        if not self.queue and self.aside and not slot.inflight:
            self.queue.extend(self.aside.pop(next(iter(self.aside))))
        return self.queue.popleft() if self.queue else None

    def _give_back(self, job: Job) -> None:
        """A job sent but never started goes back to the front of its queue."""
        (self.large if job.large and not self.limits.in_order else self.queue).appendleft(job)

    def close(self, at_once: bool = False) -> None:
        """Stop every worker: all are asked at once, then each is waited for (backends' teardown
        takes seconds), or killed ``at_once`` (a run interrupted). Closing again does nothing."""
        for slot in self.slots:
            ask_to_stop(slot)
        for slot in self.slots:
            stop_worker(slot, kill=at_once)
        self.slots = []
        self.starter.close(at_once)

    def _dispatch(self, index: int, job: Job) -> bool:
        """Send ``job`` to the slot's worker; False (the job back in the queue) when the worker is
        due for replacement or of another group and still busy, when the job may not wait behind
        its jobs (Slot.takes), or when the send fails on a worker that died."""
        slot, limits = self.slots[index], self.limits
        # another group: a route with workers of its own begins or ends here
        if (
            slot.served >= limits.recycle_after
            or slot.retire
            or slot.readiness.group != job.group
            or self._behind(slot, job)
        ):
            if slot.inflight:
                self._give_back(job)
                return False
            slot = self._replace(index, job.group)
        payload = pickled(job)
        if not slot.takes(job, limits.depth, len(payload)):  # behind enough work, or too large
            self._give_back(job)
            return False
        if not slot.inflight and slot.replaced_at is not None:
            # a replacement's loss runs from when it has work: idle for want of jobs, it loses nothing
            slot.replaced_at = time.monotonic()
        slot.inflight.append(job)
        if slot.readiness.waits_for(job):  # it will load the job's adapter: see _take
            slot.readiness.pending.add(job.target)
        if len(slot.inflight) == 1:
            slot.started_next(limits.timeout, limits.start_limit)
        slot.served += 1
        try:
            slot.connection.send_bytes(payload)
        except OSError:  # the worker died (on the job it runs) before the parent saw it
            slot.inflight.pop()
            slot.served -= 1
            self._give_back(job)
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
                number, line, log_end, fourth = slot.connection.recv()  # fourth: see worker._serve
            except (EOFError, OSError):
                self._lost(index, job)
                return
            if number < 0:  # the worker has loaded adapters (prepared its targets): its job runs now
                slot.ready(line, self.limits.timeout, self.limits.start_limit)
                # a route with workers of its own passes its imports to its own zygote
                for preload, said in zip(line, fourth, strict=True):
                    self.starter.learn(said, slot.readiness.group, preload.target)
                self._unstarted = 0
            else:
                self._finished(slot, line, log_end, fourth)
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
        slot.history.append(job := slot.inflight.popleft())
        slot.readiness.pending.discard(job.target)  # loaded, or failed to load and said so
        slot.retire = slot.retire or (resident or 0) > self.limits.recycle_above_kib
        if slot.inflight:  # already running: its output starts where the worker said
            slot.started_next(self.limits.timeout, self.limits.start_limit, log_end)
        self._report(result, line)

    def _requeue_waiting(self, slot: Slot, *, running_too: bool = False) -> None:
        """Queue again the jobs sent behind the running one (``running_too``: and the running one)."""
        waiting = list(slot.inflight)[0 if running_too else 1 :]
        slot.inflight.clear()
        for job in reversed(waiting):
            self._give_back(job)

    def _lost(self, index: int, job: Job) -> None:
        slot = self.slots[index]
        slot.process.join(timeout=5)
        how = describe_exit(slot.process.exitcode)
        if not slot.readiness.prepared:  # no item is to blame
            if not died_preparing(bool(slot.readiness.preload), slot.log):
                self._not_started(index, how)  # it never started: nor is any backend
                return
            self.starter.prepare_broken = True  # it died in prepare()
            targets = ", ".join(entry.target.id for entry in slot.readiness.preload)
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
        if not slot.readiness.prepared and died_preparing(bool(slot.readiness.preload), slot.log):
            self.starter.prepare_broken = True
            targets = ", ".join(entry.target.id for entry in slot.readiness.preload)
            self.warn(
                f"warning: the adapter's prepare() for {targets} took longer than {self.limits.start_limit:g}"
                f" s; workers start without prepare() from now on (its log: {slot.log})"
            )
        self._requeue_waiting(slot)
        self._replace_dead(index)
        self.slow_starts.add(job.key)
        self._report(
            overran_start(job, self.limits.start_limit, said, slot.log, started=slot.readiness.prepared)
        )

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
