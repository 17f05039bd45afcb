"""What waits in a worker's pipe behind its running job: a few jobs, never so many bytes that the
parent's send could block on a worker that does not read (one hung on its item); which worker
gets which job; and the states a worker goes through."""

from __future__ import annotations

import os
import pickle
from collections import deque
from dataclasses import replace
from multiprocessing import Pipe
from multiprocessing.connection import Connection

import pytest

from conformance.corpus.case import Case, DataSpec, Form, Location, SplitArguments
from conformance.engine import pool as pools
from conformance.engine import slot as slots
from conformance.engine.item import bare_result
from conformance.engine.pool import Pool
from conformance.engine.schedule import Schedule
from conformance.engine.settings import ENGINE
from conformance.engine.slot import TRANSITIONS, Slot
from conformance.engine.worker import Job
from conformance.plugin import Target
from conformance.storage.journal import line


def _job(index: int, values: int = 4) -> Job:
    data = DataSpec((values,), "float64", "values", values=[float(n) for n in range(values)])
    case = Case(
        f"c{index}-{values}", "t", "s", data, SplitArguments(0, Form("parts", 2)), Location("f.yaml", 1)
    )
    return Job(index, "numpy", Target("numpy", "numpy", "cpu"), case, "numpy.split", 0)


def _slot(*jobs: Job, pace_ms: float = 0.1) -> Slot:
    """A worker running ``jobs``, with their target loaded."""
    target, loaded = Target("numpy", "numpy", "cpu"), {_job(0).preload}
    return Slot(
        None,
        None,
        None,
        state="serving",
        inflight=deque(jobs),
        loaded=loaded,
        pace_ms=pace_ms,
        pace_of=target,
    )  # type: ignore[arg-type]


def _filled(slot: Slot) -> int:
    """How many jobs the slot takes in flight, the running one included."""
    while slot.takes(_job(len(slot.inflight))):
        slot.inflight.append(_job(len(slot.inflight)))
    return len(slot.inflight)


def test_another_targets_job_waits_alone_whatever_the_last_items_pace() -> None:
    fast = _slot(_job(0), pace_ms=0.1)
    other = replace(_job(1), target=Target("numpy", "emulated", "cpu"))
    assert fast.takes(other) and fast.takes(_job(1))
    fast.inflight.append(_job(1))
    assert not fast.takes(other) and fast.takes(_job(2))


class _Pipe:
    """A worker's end of the pipe that keeps what the pool sends."""

    def __init__(self) -> None:
        self.sent: list[object] = []

    def send_bytes(self, job: bytes) -> None:
        self.sent.append(pickle.loads(job))


def test_a_short_queue_is_shared_out_between_the_workers_not_taken_by_the_first() -> None:
    pool = Pool(2, 60, lambda result: None)
    pool.slots = [_slot(_job(n), pace_ms=0.1) for n in range(2)]
    for slot in pool.slots:
        slot.connection = _Pipe()  # type: ignore[assignment]
    pool.schedule.add(_job(n) for n in range(10, 14))
    pool.schedule.fill(pool.slots, pool.limits.depth, pool._dispatch)
    assert [len(slot.inflight) for slot in pool.slots] == [3, 3]  # not [5, 1]


def test_large_jobs_go_to_the_first_worker_alone_and_a_replay_keeps_the_order_given() -> None:
    large = [replace(_job(n), case=replace(_job(n).case, id=f"large-{n}")) for n in (1, 3)]
    jobs = [_job(0), large[0], _job(2), large[1]]
    for job in large:  # as memory.is_large would say of gigabytes
        job.__dict__["large"] = True
    schedule = Schedule()
    schedule.add(jobs)
    assert [schedule.next_for(1), schedule.next_for(1), schedule.next_for(1)] == [jobs[0], jobs[2], None]
    assert [schedule.next_for(0), schedule.next_for(0), schedule.next_for(0)] == [*large, None]
    assert schedule.empty
    replay = Schedule(in_order=True)
    replay.add(jobs)
    assert [replay.next_for(1) for _ in jobs] == jobs


def test_a_job_given_back_is_the_next_taken_and_dropping_takes_back_every_queued_job() -> None:
    schedule = Schedule()
    jobs = [_job(n) for n in range(3)]
    schedule.add(jobs)
    first = schedule.next_for(0)
    assert first is not None
    schedule.give_back(first)
    assert schedule.head() == first and len(schedule) == 3
    assert schedule.drop_queued() == jobs and schedule.empty and schedule.next_for(0) is None


def test_a_worker_changes_state_only_as_the_table_allows() -> None:
    """Every state the table names is reachable from ``starting``, ``ended`` is final, and a change
    the table does not list is refused (an engine bug, never a silent state)."""
    reachable, frontier = {"starting"}, ["starting"]
    while frontier:
        for after in TRANSITIONS[frontier.pop()]:  # type: ignore[index]
            if after not in reachable:
                reachable.add(after)
                frontier.append(after)
    assert reachable == set(TRANSITIONS) and not TRANSITIONS["ended"]
    worker = _slot()
    assert worker.state == "serving"
    worker.retire()
    assert worker.state == "retiring"
    with pytest.raises(RuntimeError, match="from retiring to serving"):
        worker.become("serving")
    worker.become("ended")
    worker.retire()  # an ended worker stays ended
    assert worker.state == "ended"


def test_a_worker_serves_once_it_says_it_prepared_and_keeps_serving_when_idle() -> None:
    reported: list[str] = []
    pool = Pool(1, 60, lambda result: reported.append(result.case))
    job = _job(0)
    parent, child = Pipe()
    worker = Slot(None, parent, None, preload=(job.preload,))  # type: ignore[arg-type]
    pool.slots = [worker]
    worker.inflight.append(job)
    assert worker.state == "starting" and worker.starting
    child.send((-1, (job.preload,), 0, None))
    pool._receive(0)
    assert worker.state == "serving" and worker.prepared and not worker.starting
    _send_pass(child, job)
    pool._receive(0)
    assert worker.state == "serving" and worker.job is None and reported == [job.case.id]


def test_fast_items_wait_behind_the_running_one_up_to_the_depth_slow_ones_one_at_a_time() -> None:
    assert _filled(_slot(_job(0), pace_ms=0.3)) == ENGINE.depth
    assert _filled(_slot(_job(0), pace_ms=2.0)) == 1 + int(ENGINE.waiting_ms / 2.0)
    assert _filled(_slot(_job(0), pace_ms=300.0)) == 2  # one waiting, as for a worker with no result yet
    assert _filled(_slot(_job(0), pace_ms=0.0)) == 2


def test_a_large_case_goes_only_to_an_idle_worker() -> None:
    large = _job(1, values=ENGINE.waiting_bytes // 4)  # a few bytes a value: over the limit
    assert not _slot(_job(0)).takes(large)
    assert _slot().takes(large)
    # small ones queue up to the depth: DEPTH - 1 of the largest allowed stay within the socket's buffer
    busy = _slot(_job(0), pace_ms=0.01)
    while busy.takes(_job(len(busy.inflight), values=300)):
        busy.inflight.append(_job(len(busy.inflight), values=300))
    assert len(busy.inflight) == ENGINE.depth
    assert (ENGINE.depth - 1) * ENGINE.waiting_bytes < 208 * 1024


def test_the_parent_naps_only_while_every_busy_worker_has_work_waiting() -> None:
    supplied = _slot(_job(0), _job(1), _job(2), pace_ms=1.0)  # two waiting: 2 ms of work
    assert slots.nap_s([supplied]) == 0.001  # half of it
    running_dry = _slot(_job(3), pace_ms=1.0)  # nothing waiting behind its running job
    assert slots.nap_s([supplied, running_dry]) == 0.0
    slow = _slot(_job(4), _job(5), pace_ms=300.0)
    assert slots.nap_s([slow]) == ENGINE.nap_ms / 1000  # never longer, however slow the items


def _send_pass(worker_end: Connection, job: Job) -> None:
    """Send what a worker sends when ``job`` has passed."""
    worker_end.send((job.index, line(bare_result(job.case, job.op, job.target, "", "pass")), 0, 1024))


def test_every_result_waiting_in_a_pipe_is_read_in_one_pass() -> None:
    """After a nap several results wait in a worker's pipe: all are taken at once, in order, each
    ending its job (one a pass, the rest would wait for the next nap)."""
    reported: list[str] = []
    pool = Pool(1, 60, lambda result: reported.append(result.case))
    jobs = [_job(n) for n in range(4)]
    parent, child = Pipe()
    pool.slots = [_slot(*jobs)]
    pool.slots[0].connection = parent
    for job in jobs[:3]:
        _send_pass(child, job)
    pool._receive(0)
    assert reported == [job.case.id for job in jobs[:3]]
    assert list(pool.slots[0].inflight) == jobs[3:]  # the fourth still runs
    assert [job.index for job in pool.slots[0].history] == [0, 1, 2]


class _Alive:
    """A worker process that lives on (what the pool asks of one between its jobs): its sentinel
    is a pipe nothing is written to."""

    pid = None

    def __init__(self) -> None:
        self.sentinel, self._open = os.pipe()

    def is_alive(self) -> bool:
        return True


def test_a_result_that_comes_after_the_wait_and_past_the_deadline_is_read_not_a_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The pool waits, then checks each worker's deadline: a result sent in between was judged a
    timeout, the worker killed and the item reported as hung while its result sat in the pipe."""
    reported: list[str] = []
    pool = Pool(1, 60, lambda result: reported.append(result.case))
    job = _job(0)
    parent, child = Pipe()
    pool.slots = [_slot(job)]
    pool.slots[0].connection, pool.slots[0].process, pool.slots[0].deadline = parent, _Alive(), 0.0  # type: ignore[assignment]
    replaced: list[int] = []
    monkeypatch.setattr(pool, "_replace_dead", replaced.append)
    _send_pass(child, job)
    # the wait returned before it came
    monkeypatch.setattr(pools, "wait", lambda handles, timeout: [])
    pool._collect()
    assert not pool.deaths and not replaced and not reported
    monkeypatch.undo()
    pool._collect()  # the next pass reads it
    assert reported == [job.case.id] and not pool.deaths
    os.close(pool.slots[0].process.sentinel)
    os.close(pool.slots[0].process._open)  # type: ignore[attr-defined]
