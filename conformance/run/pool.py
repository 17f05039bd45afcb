"""A pool of worker processes with per-job deadlines and replacement of dead workers.

The parent never runs backend code. It keeps each worker's next few jobs waiting in its pipe
(see :data:`conformance.run.slot.DEPTH`), waits on the workers' pipes and process sentinels
together, and turns a worker that dies into a ``crash`` result and one that overruns its deadline
into a ``timeout`` result (the worker is killed; the deadline counts from when it was ready for the
item, its start has a limit of its own: :data:`START_S`); a fresh worker takes the slot and the
run goes on.

Large jobs (gigabytes each, see :attr:`Job.large`) go to the first worker alone, one after the
other: they run one at a time on the machine anyway (a second worker given one would wait for
the first's memory), and in a row the worker makes their shared input once.
"""

from __future__ import annotations

import itertools
import json
import sys
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable
from multiprocessing.connection import Connection
from pathlib import Path

from conformance.results.result import Result
from conformance.run import phase, scratch
from conformance.run.deaths import (
    UNSTARTED_LIMIT,
    Death,
    DeathStatus,
    Witness,
    death,
    describe_exit,
    died_preparing,
    overran_start,
    unstarted,
)
from conformance.run.journal import line as journal_line
from conformance.run.ready import ready as handles_ready
from conformance.run.slot import DEPTH, Slot, Start, ask_to_stop, nap_s, readable, slot_of, stop_worker
from conformance.run.worker import Job, Preload
from conformance.run.zygote import Zygote

#: fork workers from a zygote where fork is the system's own way (Linux); spawn elsewhere
_FORKS = sys.platform.startswith("linux")
#: How often, at most, the pool looks whether a busy worker is still alive (see _collect).
POLL_S = 1.0
#: The limit on a worker's start (its spawn or fork, loading its adapters, their prepare()) and on
#: loading an adapter for an item: this many seconds, or START_TIMEOUTS times --timeout if longer.
#: Neither is an item's time (--timeout starts once the worker has said it is ready), and running
#: over it is the adapter's error on the job that waited, never a timeout: timed as the item, a
#: backend's import (TensorFlow: seconds) made the first item of each worker a timeout that the
#: crash review "confirmed" in a fresh worker, which had to import it again.
START_S = 60.0
START_TIMEOUTS = 10


#: A run of this many jobs starts the zygote before its first workers and forks them from it, not
#: at its first crash. Such a run replaces workers with near certainty (the full corpus kills 89
#: on known backend bugs). Started at the first crash, the zygote imported beside the worker and
#: its replacement (spawned, as the zygote was not ready): on two cores the items around it ran
#: at half speed for seconds (OpenVINO's at 36 ms an item against 14 ms), and the first
#: replacement took 2 s. Spawned, the first workers each imported every backend themselves (at -j 2
#: torch's first item took 13 s), and their first items made each target's first-item cost look
#: seconds where a forked worker's is milliseconds.
#:
#: That zygote imports in stages, one module each, those the most queued jobs need first, and the
#: first workers fork after its first stage (the harness alone, a fraction of a second). Each takes
#: the next job whose modules it has (looking ahead in the queue), and is forked again
#: (milliseconds) when it can have more. Waiting for every import (torch, TensorFlow: 5 to 8 s)
#: left both cores idle at the start of every long run.
EAGER_ZYGOTE = 1000
#: How long the first workers wait for that zygote's first stage before they are spawned instead.
ZYGOTE_WAIT_S = 120.0
#: How far down the queue a worker forked between stages looks for a job it can run, when the
#: next one needs a later stage (a target's sample is 40 to 173 jobs in a row).
LOOK_AHEAD = 512


class Pool:
    """Runs jobs on ``size`` workers; ``on_result`` receives each result as it finishes."""

    def __init__(
        self,
        size: int,
        timeout: float,
        on_result: Callable[[Result], None],
        threads_per_worker: int = 1,
        recycle_after: int = 50_000,
        recycle_above_mib: int = 2048,
        log_dir: Path | None = None,
        forking: bool = _FORKS,
        memory_budget: int | None = None,
        warn: Callable[[str], None] = lambda text: print(text, file=sys.stderr),
        in_order: bool = False,
        journal: Callable[[str], None] | None = None,
    ) -> None:
        self.size = max(1, size)
        #: run the jobs exactly in the order given, the large ones too (the crash review's
        #: replays); otherwise the large ones go first, to the first worker
        self.in_order = in_order
        #: every item a worker died on or overran, with what that worker ran before it
        self.deaths: list[Death] = []
        #: bytes an item may need in a worker (--memory-budget); None: what the machine has
        self.memory_budget = memory_budget
        self.log_dir = log_dir
        self._started = 0
        self.timeout = timeout
        self.start_limit = max(START_S, START_TIMEOUTS * timeout)
        #: the jobs whose worker did not start within start_limit (see _overran_start)
        self.slow_starts: set[str] = set()
        self.on_result = on_result
        #: receives each result's JSON line before ``on_result`` receives the result: a worker's
        #: as the worker encoded it, a death's as the pool made it (the run's journal)
        self.journal = journal
        self.threads = threads_per_worker
        #: a worker is replaced after this many jobs, or once it holds more than this much memory
        #: after a job (what a long-lived backend may accumulate). Not by count alone: each
        #: replacement imports the backends again, which cost a full run 10 restarts at 2000 jobs,
        #: while a worker's memory stayed near 500 MiB over 10,000 jobs of every target.
        self.recycle_after = recycle_after
        self.recycle_above_kib = recycle_above_mib * 1024
        #: jobs in flight per worker: the running one and those waiting in its pipe (see Slot.takes).
        #: Where workers are spawned (not Linux) over socket pairs of smaller buffers (macOS: some
        #: 8 KiB), one waiting, as the byte limit was measured on Linux only.
        self.depth = DEPTH if sys.platform.startswith("linux") else 2
        self.slots: list[Slot] = []
        self.queue: deque[Job] = deque()
        #: the large jobs, for the first slot alone
        self.large: deque[Job] = deque()
        #: a worker started ahead of need once a replacement has been needed: backends that
        #: crash tend to crash again on neighbouring items, and a warm standby makes each
        #: replacement instant instead of a fresh start with every import redone
        self.standby: Slot | None = None
        #: the standby asked of the zygote and not received yet (see _restock)
        self._ordered: Start | None = None
        #: a worker has been replaced: a standby is kept from then on (see _restock)
        self._replaced = False
        #: the process new workers are forked from (started with the first jobs), if forking
        self.forking = forking
        self.zygote: Zygote | None = None
        #: a worker died in an adapter's prepare(): from then on workers start without it
        self.prepare_broken = False
        self.warn = warn
        #: what the zygote imports: every module the routes of the jobs served so far list
        self._imports: set[str] = set()
        #: the stage of the zygote after which each module is imported (a staged zygote only),
        #: and after which each route's modules all are
        self._module_stage: dict[str, int] = {}
        self._needs: dict[tuple[str, ...], int] = {}
        #: a worker is being let finish its jobs to be forked again at the zygote's current stage:
        #: the zygote waits for it (see _take)
        self._draining = False
        #: the folder the workers' private temporary folders are made in, once one starts
        self._scratch: Path | None = None
        #: worker-seconds lost to deaths: from when each item a worker died on (or overran) became
        #: its running job until its replacement started its first item, less the backend's own
        #: time on the item, which its crash result carries. Crashes are backends' (known issues
        #: most of them), and so is most of this time: the item's data and reference before the
        #: backend, and importing the backend again in the replacement. The benchmark reports it
        #: apart from the harness's work.
        self.lost_s = 0.0
        #: workers in a row that died before they could take a job (see _not_started)
        self._unstarted = 0

    def _upcoming(self, stage: int | None) -> tuple[Preload, ...]:
        """The targets a new worker will most likely serve: those of the next queued jobs (that
        need no stage after ``stage``, for a worker forked between the zygote's stages)."""
        seen: dict[Preload, None] = {}
        for job in [*list(self.large)[:1], *list(self.queue)[: self.size + 1]]:
            if stage is None or self._need(job) <= stage:
                seen.setdefault(job.preload, None)
        return tuple(seen)[:2]

    def _need(self, job: Job) -> int:
        """The zygote's stage after which ``job``'s modules are all imported (a module it does
        not import: its last stage, after which a worker imports the rest itself)."""
        need = self._needs.get(job.imports)
        if need is None:
            last = len(self.zygote.stages) - 1 if self.zygote is not None else 0
            need = max((self._module_stage.get(module, last) for module in job.imports), default=0)
            self._needs[job.imports] = need
        return need

    def _start(self) -> Slot:
        """A new worker: forked from the zygote, or spawned where it cannot fork now."""
        self._receive_standby()  # the zygote answers in order: a standby asked for comes first
        return self._launch(self._next_start())

    def _launch(self, start: Start) -> Slot:
        """The worker ``start`` describes, forked from the zygote now, or spawned where it cannot."""
        return slot_of(start, self.zygote.fork(start.args) if self.zygote is not None else None)

    def _next_start(self) -> Start:
        """What the next worker is started with: its log, the targets it prepares, its folder."""
        self._started += 1
        log = None
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            log = self.log_dir / f"worker-{self._started}.log"
        zygote = self.zygote
        # A worker started while a staged zygote imports (one that replaces a dead worker) is
        # held to the stages imported so far, spawned as well as forked: it takes only the jobs
        # those cover, and is forked again for the others, rather than importing a framework.
        stage = None
        if zygote is not None and zygote.importing and len(zygote.stages) > 1:
            stage = max(zygote.stage, 0)
        preload = () if self.prepare_broken else self._upcoming(stage)
        if self._scratch is None:
            self._scratch = scratch.pool_folder()
        folder = scratch.worker_folder(self._scratch, self._started)
        return Start(self._started, log, preload, folder, stage, self.threads, self.memory_budget)

    def _start_zygote(self, *, staged: bool = False) -> None:
        """Start the zygote with every module the jobs' routes list: once a worker needs
        replacing (a crash, a timeout, memory), or with the first workers of a run of
        :data:`EAGER_ZYGOTE` jobs or more (``staged``: in the order the queued jobs need them).
        A run that never replaces a worker, as most small runs, does not pay for its imports;
        workers started while it imports are spawned."""
        if not self.forking or self.zygote is not None:
            return
        log = str(self.log_dir / "zygote.log") if self.log_dir is not None else None
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
        stages = [(), *((module,) for module in self._import_order())] if staged else None
        self._module_stage = {stage[0]: number for number, stage in enumerate(stages or ()) if stage}
        self._needs = {}
        self.zygote = Zygote(self.threads, sorted(self._imports), log, stages=stages)

    def _import_order(self) -> list[str]:
        """The modules of the queued jobs, those the most jobs need first (ties: the first
        needed first). The workers forked early then have the most jobs they can run while the
        zygote imports the rest: the many cheap items come first in that order, and the few
        frameworks whose imports take seconds (TensorFlow, torch) serve fewer of them."""
        needed: Counter[str] = Counter()
        for job in (*self.queue, *self.large):
            needed.update(job.imports)
        return sorted(needed, key=lambda module: -needed[module])  # stable: first seen first on ties

    def _replace(self, index: int) -> Slot:
        """A fresh worker in the slot: the standby if there is one, and a new standby behind it
        once the slot has its next job (see _restock)."""
        stop_worker(self.slots[index], kill=True)
        self._start_zygote()
        self._receive_standby()
        self.slots[index], self.standby = self.standby or self._start(), None
        self._replaced = True
        return self.slots[index]

    def _restock(self) -> None:
        """Once a worker has been replaced, keep a standby, started after the jobs are dispatched
        (started before, the replacement's first job waited for it) and asked of the zygote
        without waiting for it (see Zygote.ask), once the zygote has every stage."""
        if not self._replaced or self.standby is not None or self._ordered is not None:
            return
        if not (self.queue or self.large):
            return
        start = self._next_start()
        if self.zygote is not None and self.zygote.ask(start.args):
            self._ordered = start  # received when the zygote says it has forked it (see _collect)
        else:
            self.standby = self._launch(start)

    def _receive_standby(self, wait_s: float | None = None) -> None:
        """Take the standby asked of the zygote (waiting for it, if it has not said yet); spawned
        instead if the zygote refused or went away. With ``wait_s`` (the pool closing), none is
        spawned, and one not forked within that time is left: the socket that would have carried
        it is closed, so the forked worker reads the end of its job stream and exits."""
        if self._ordered is None:
            return
        start, self._ordered = self._ordered, None
        zygote = self.zygote
        if wait_s is None:
            self.standby = slot_of(start, zygote.forked() if zygote is not None else None)
        elif zygote is not None and zygote.connection.poll(wait_s):
            forked = zygote.forked()
            self.standby = slot_of(start, forked) if forked is not None else None

    def _replace_dead(self, index: int, backend_s: float = 0.0) -> None:
        """Replace a worker that died or overran, counting the time its slot loses (lost_s): from
        the start of the item it died on (or from when it took a dead worker's place, if it never
        finished an item) until its successor starts its first item (the first result's arrival
        less that item's own time, see _collect); less ``backend_s``, the backend's own time on
        the item, which its crash result carries (see Witness.backend_s)."""
        dead, now = self.slots[index], time.monotonic()
        since = dead.replaced_at if dead.replaced_at is not None else dead.began
        self.lost_s += max(0.0, now - since - backend_s)
        self._replace(index).replaced_at = now

    def process(self, jobs: Iterable[Job]) -> None:
        """Run every job; returns when all have a result. Ctrl-C stops the workers and propagates."""
        try:
            self.serve(jobs)
        finally:
            self.close()

    def serve(self, jobs: Iterable[Job]) -> None:
        """Run every job and keep the workers for the next call (``conformance explore`` hands
        over one generated request at a time); :meth:`close` ends them."""
        self.queue, self.large = deque(), deque()
        self.add(jobs)
        self.serve_until(lambda: False)

    def add(self, jobs: Iterable[Job]) -> None:
        """Queue more jobs behind those queued (the pytest plugin hands them over as pytest walks
        its items), starting workers up to the pool's size."""
        added = list(jobs)
        for given in added:
            (self.large if given.large and not self.in_order else self.queue).append(given)
        self._imports.update(module for job in added for module in job.imports)
        if not self.slots and len(self.queue) >= EAGER_ZYGOTE:
            self._start_zygote(staged=True)
            # the first workers are forked too (see EAGER_ZYGOTE), unless the zygote cannot
            if self.zygote is not None and not self.zygote.forkable(wait=ZYGOTE_WAIT_S):
                why = self.zygote.reason or f"its first imports took over {ZYGOTE_WAIT_S:.0f} s"
                self.warn(f"workers are started afresh, each importing its backends: {why}")
                self.zygote.give_up(why)
        while len(self.slots) < min(self.size, len(self.slots) + len(self.queue) + bool(self.large)):
            self.slots.append(self._start())

    def serve_until(self, done: Callable[[], bool]) -> None:
        """Dispatch and collect until ``done()`` says so (checked after each collection) or no job
        is queued or in flight."""
        while self.queue or self.large or any(slot.job for slot in self.slots):
            self._draining = False
            self._fill()
            self._restock()
            if self.zygote is not None and not self._draining:
                self.zygote.resume()  # every worker that could fork at this stage has
            self._collect()
            if done():
                return

    def _fill(self) -> None:
        """Send the workers their next jobs a level at a time (each its first, then each its
        second ...), so that a short queue (the pytest plugin keeps two jobs a worker queued) is
        shared out rather than taken whole by the first worker with room."""
        full: set[int] = set()
        for level in range(1, self.depth + 1):
            for index, slot in enumerate(self.slots):
                if index in full or len(slot.inflight) >= level or not slot.has_room(self.depth):
                    continue
                taken = self._take(index)
                if taken is None or not self._dispatch(index, taken):
                    full.add(index)

    def reorder(self, key: Callable[[Job], tuple[float, str]]) -> None:
        """Sort the jobs not yet sent to a worker by ``key``, keeping the order of equal keys (the
        large jobs, which the first worker takes first, keep theirs; a pool that runs its jobs in
        the order given has them in the same queue and sorts them too)."""
        self.queue = deque(sorted(self.queue, key=key))

    def drop_queued(self) -> list[Job]:
        """Take back every job not yet sent to a worker (pytest stopped early); those in flight
        still finish when served."""
        dropped = [*self.large, *self.queue]
        self.large, self.queue = deque(), deque()
        return dropped

    def _take(self, index: int) -> Job | None:
        """The next job for slot ``index``: the first slot takes the large jobs first, the others
        never (in a row on one worker they share one input and never wait for each other).

        A worker forked between the zygote's stages takes only a job whose modules it has: the
        large ones once it has those of them all (forked again for them, it would make their
        shared input again), the queue's next otherwise. None: it waits for the zygote's next
        stage, or finishes its jobs to be forked again."""
        if index == 0 and self.large:
            need = max(self._need(job) for job in self.large) if self.slots[0].stage is not None else 0
            if self._fits(index, need):
                return self.large.popleft()
            if self._drains(index, need):
                return None
        if not self.queue:
            return None
        need = 0 if self.slots[index].stage is None else self._need(self.queue[0])
        if self._fits(index, need):
            return self.queue.popleft()
        return None if self._drains(index, need) else self._fitting(index)

    def _fitting(self, index: int) -> Job | None:
        """For a worker forked between the zygote's stages whose next job needs a stage not
        imported yet: the first of the next :data:`LOOK_AHEAD` jobs whose modules it has, or,
        idle while the zygote waits between stages, that a worker forked now would have (it is
        forked again for it)."""
        slot, zygote = self.slots[index], self.zygote
        assert slot.stage is not None and zygote is not None
        if self.in_order:
            return None
        reach = zygote.stage if not slot.inflight and zygote.forkable() else slot.stage
        for position, job in enumerate(itertools.islice(self.queue, LOOK_AHEAD)):
            need = self._need(job)
            if need <= reach:
                if need > slot.stage:
                    self._refork(index)
                del self.queue[position]
                return job
        return None

    def _fits(self, index: int, need: int) -> bool:
        """Whether the slot's worker has the modules of the zygote's stage ``need``; an idle one
        forked before it is forked again when the zygote has it."""
        slot, zygote = self.slots[index], self.zygote
        if slot.stage is None or need <= slot.stage or zygote is None or zygote.usable is False:
            return True
        if not self._reached(need) or slot.inflight or not zygote.forkable():
            return False  # not imported yet, or not now (see _drains)
        self._refork(index)
        return True

    def _drains(self, index: int, need: int) -> bool:
        """Whether the slot's busy worker, forked before the zygote's stage ``need``, is to
        finish its jobs and be forked again for its next (the zygote has that stage): no job is
        sent to it meanwhile, and the zygote waits for it."""
        if self._reached(need) and self.slots[index].inflight:
            self._draining = True
            return True
        return False

    def _reached(self, need: int) -> bool:
        """Whether the zygote has imported its stage ``need`` (a worker forked now has it)."""
        zygote = self.zygote
        return zygote is not None and (
            zygote.usable is True or (zygote.usable is None and zygote.stage >= need)
        )

    def _refork(self, index: int) -> None:
        """Replace an idle worker with one forked now (milliseconds), which has the modules the
        zygote has imported since the first was forked."""
        old = self.slots[index]
        stop_worker(old, kill=True)
        self.slots[index] = self._start()
        self.slots[index].replaced_at = old.replaced_at

    def _give_back(self, job: Job) -> None:
        """A job sent but never started goes back to the front of its queue."""
        (self.large if job.large and not self.in_order else self.queue).appendleft(job)

    def close(self, at_once: bool = False) -> None:
        """Stop every worker (the standby too): all are asked at once, then each is waited for
        (one at a time, backends' teardown took 3 s of a full run's end); ``at_once`` (a run
        interrupted) kills them without waiting. Closing again does nothing."""
        self._receive_standby(wait_s=0.0 if at_once else 5.0)
        slots = [*self.slots, *([self.standby] if self.standby else [])]
        for slot in slots:
            ask_to_stop(slot)
        for slot in slots:
            stop_worker(slot, kill=at_once)
        self.slots, self.standby, self._replaced = [], None, False
        if self.zygote is not None:
            self.zygote.close(at_once)
            self.zygote = None
        scratch.remove(self._scratch)
        self._scratch = None

    def _dispatch(self, index: int, job: Job) -> bool:
        """Send ``job`` to the slot's worker; False (the job back in the queue) when the worker is
        due for replacement and still has jobs in flight, when the job is not to wait behind the
        worker's (see Slot.takes), or when the send fails on a worker that died."""
        slot = self.slots[index]
        if slot.served >= self.recycle_after or slot.retire:
            if slot.inflight:
                self._give_back(job)
                return False
            slot = self._replace(index)
        if not slot.takes(job, self.depth):  # behind enough work, or too large to wait in the pipe
            self._give_back(job)
            return False
        if not slot.inflight and slot.replaced_at is not None:
            # a replacement's loss runs from when it has work: a slot idle for want of jobs (the
            # pytest plugin, explore) loses nothing to the death before it
            slot.replaced_at = time.monotonic()
        slot.inflight.append(job)
        if len(slot.inflight) == 1:
            slot.started_next(self.timeout, self.start_limit)
        slot.served += 1
        try:
            slot.connection.send(job)
        except OSError:  # the worker died (on the job it runs) before the parent saw it
            slot.inflight.pop()
            slot.served -= 1
            self._give_back(job)
            if not slot.inflight:  # it died between jobs: a fresh worker takes the slot
                self._replace(index)
            return False  # _collect reports the death on the job it was running
        return True

    def _collect(self) -> None:
        busy = [index for index, slot in enumerate(self.slots) if slot.job is not None]
        # a zygote importing its next stage: what the idle workers may be waiting for
        zygote = self.zygote if self.zygote is not None and self.zygote.importing else None
        stage: list[Connection | int] = (
            [zygote.connection] if zygote is not None and not zygote.paused else []
        )
        ordered = [self.zygote.connection] if self._ordered is not None and self.zygote is not None else []
        if not busy and not stage:  # every send failed on a dead worker, now replaced: dispatch again
            return
        nap = 0.0 if stage else nap_s([self.slots[index] for index in busy])
        if nap:  # not a sleep(0) on every pass: that is a system call too
            time.sleep(nap)
        waiting = min((self.slots[index].deadline for index in busy), default=time.monotonic() + POLL_S)
        handles = [self.slots[i].connection for i in busy] + [self.slots[i].process.sentinel for i in busy]
        # at most POLL_S: a worker's sentinel stays quiet if a process it started outlives it
        ready = handles_ready([*handles, *stage, *ordered], min(POLL_S, max(0.0, waiting - time.monotonic())))
        if ordered and ordered[0] in ready:
            self._receive_standby()
        if zygote is not None:
            zygote.poll()
            if zygote.stalled(ZYGOTE_WAIT_S):
                why = f"its import of {zygote.stages[zygote.stage + 1]} took over {ZYGOTE_WAIT_S:.0f} s"
                self.warn(f"workers import the modules of later stages themselves: {why}")
                zygote.give_up(why)
        for index in busy:
            slot = self.slots[index]
            job = slot.job
            assert job is not None
            if slot.connection in ready:
                self._receive(index)
            elif slot.process.sentinel in ready or not slot.process.is_alive():
                if readable(slot):  # it sent a result before it died: read that first, next pass
                    continue
                self._lost(index, job)
            elif time.monotonic() >= slot.deadline:
                if readable(slot):  # its result came after the wait: read next pass, not a timeout
                    continue
                if slot.starting:
                    self._overran_start(index, job)
                    continue
                witness = self._witness(slot, f"killed after {self.timeout:g} s without a result")
                self._requeue_waiting(slot)
                self._replace_dead(index, witness.backend_s)
                message = f"no result within {self.timeout:g} s; the worker was killed and replaced"
                self._died(job, "timeout", message, witness, slot)

    def _receive(self, index: int) -> None:
        """Read what worker ``index`` has sent: every result waiting in its pipe (several, after a
        nap: see _collect), or its end."""
        slot = self.slots[index]
        while (job := slot.job) is not None:
            try:
                number, line, log_end, resident = slot.connection.recv()
            except (EOFError, OSError):
                self._lost(index, job)
                return
            if number < 0:  # the worker has loaded adapters (prepared its targets): its job runs now
                slot.ready(line, self.timeout, self.start_limit)
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
        slot.retire = slot.retire or (resident or 0) > self.recycle_above_kib
        if slot.inflight:  # already running: its output starts where the worker said
            slot.started_next(self.timeout, self.start_limit, log_end)
        self._report(result, line)

    def _requeue_waiting(self, slot: Slot, *, running_too: bool = False) -> None:
        """The jobs sent behind the running one never started: back to the front of the queue
        (``running_too``: the running one as well, for a worker that died before its first)."""
        waiting = list(slot.inflight)[0 if running_too else 1 :]
        slot.inflight.clear()
        for job in reversed(waiting):
            self._give_back(job)

    def _lost(self, index: int, job: Job) -> None:
        slot = self.slots[index]
        slot.process.join(timeout=5)
        how = describe_exit(slot.process.exitcode)
        if not slot.prepared:  # no item is to blame
            if not died_preparing(bool(slot.preload), slot.log):
                self._not_started(index, how)  # it never started: nor is any backend
                return
            self.prepare_broken = True  # it died in prepare()
            targets = ", ".join(entry.target.id for entry in slot.preload)
            self.warn(
                f"warning: a worker died ({how}) in the adapter's prepare() for {targets}, before any "
                f"item; workers start without prepare() from now on (its log: {slot.log})"
            )
            self._requeue_waiting(slot, running_too=True)
            self._replace_dead(index)
            return
        witness = self._witness(slot, how)
        self._requeue_waiting(slot)
        self._replace_dead(index, witness.backend_s)
        message = f"the worker died ({how}) while running this item; it was replaced"
        self._died(job, "crash", message, witness, slot)

    def _overran_start(self, index: int, job: Job) -> None:
        """The worker did not start, or load ``job``'s adapter, within :attr:`start_limit`: the job is
        the adapter's error (see deaths.overran_start), those behind it go back to the queue, and
        if it was in prepare(), workers start without it from now on, as after a crash there."""
        slot = self.slots[index]
        said = phase.read(slot.log)
        if not slot.prepared and died_preparing(bool(slot.preload), slot.log):
            self.prepare_broken = True
            targets = ", ".join(entry.target.id for entry in slot.preload)
            self.warn(
                f"warning: the adapter's prepare() for {targets} took longer than {self.start_limit:g} s; "
                f"workers start without prepare() from now on (its log: {slot.log})"
            )
        self._requeue_waiting(slot)
        self._replace_dead(index)
        self.slow_starts.add(job.key)
        self._report(overran_start(job, self.start_limit, said, slot.log, started=slot.prepared))

    def _not_started(self, index: int, how: str) -> None:
        """A worker died before it said it was ready for its first job: its jobs go back to the
        queue and another worker takes its place, up to :data:`deaths.UNSTARTED_LIMIT` in a row;
        then the run stops (see :func:`conformance.run.deaths.unstarted`)."""
        slot = self.slots[index]
        self._unstarted += 1
        self._requeue_waiting(slot, running_too=True)
        if self._unstarted >= UNSTARTED_LIMIT:
            self._unstarted = 0  # a front door that goes on (pytest) tries afresh
            raise unstarted(how, slot.log)
        self._replace_dead(index)

    def _witness(self, slot: Slot, how: str) -> Witness:
        """What the dead (or overrunning) worker left to see: read before it is replaced."""
        name, log = (slot.log.stem if slot.log is not None else None), slot.log
        said, backend_s = phase.left(log, time.monotonic())
        return Witness(name, slot.process.pid, how, said, slot.log_tail(), log, backend_s)

    def _died(self, job: Job, status: DeathStatus, message: str, witness: Witness, slot: Slot) -> None:
        """Report the item a worker died on, with its evidence; keep it for the crash review."""
        # the dead worker's history, not a copy: its slot is replaced, so the list never grows again
        # (a copy per death cost a run with 329 deaths a list of up to 37,000 jobs each)
        died = death(job, status, message, witness, slot.history)
        self.deaths.append(died)
        self._report(died.result)

    def _report(self, result: Result, line: str | None = None) -> None:
        """Journal a result (``line``: its JSON as its worker encoded it), then hand it on."""
        if self.journal is not None:
            self.journal(line if line is not None else journal_line(result))
        self.on_result(result)
