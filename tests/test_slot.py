"""What waits in a worker's pipe behind its running job: a few jobs, never so many bytes that the
parent's send could block on a worker that does not read (one hung on its item)."""

from __future__ import annotations

from collections import deque

from conformance.corpus.case import Case, DataSpec, Form, Location
from conformance.plugin import Target
from conformance.run import slot as slots
from conformance.run.slot import Slot
from conformance.run.worker import Job


def _job(index: int, values: int = 4) -> Job:
    data = DataSpec((values,), "float64", "values", values=[float(n) for n in range(values)])
    case = Case(f"c{index}-{values}", "t", "s", data, Form("parts", 2), Location("f.yaml", 1), axis=0)
    return Job(index, "numpy", Target("numpy", "numpy", "cpu"), case, "numpy.split", 0)


def _slot(*jobs: Job, pace_ms: float = 0.1) -> Slot:
    return Slot(process=None, connection=None, log=None, inflight=deque(jobs), pace_ms=pace_ms)  # type: ignore[arg-type]


def _filled(slot: Slot) -> int:
    """How many jobs the slot takes in flight, the running one included."""
    while slot.takes(_job(len(slot.inflight))):
        slot.inflight.append(_job(len(slot.inflight)))
    return len(slot.inflight)


def test_fast_items_wait_behind_the_running_one_up_to_the_depth_slow_ones_one_at_a_time() -> None:
    assert _filled(_slot(_job(0), pace_ms=0.3)) == slots.DEPTH
    assert _filled(_slot(_job(0), pace_ms=2.0)) == 1 + int(slots.WAITING_MS / 2.0)
    assert _filled(_slot(_job(0), pace_ms=300.0)) == 2  # one waiting, as for a worker with no result yet
    assert _filled(_slot(_job(0), pace_ms=0.0)) == 2


def test_a_large_case_goes_only_to_an_idle_worker() -> None:
    large = _job(1, values=slots.WAITING_BYTES // 4)  # a few bytes a value: over the limit
    assert not _slot(_job(0)).takes(large)
    assert _slot().takes(large)
    # small ones queue until the bytes waiting would pass the limit
    busy = _slot(_job(0), pace_ms=0.01)
    while busy.takes(_job(len(busy.inflight), values=300)):
        busy.inflight.append(_job(len(busy.inflight), values=300))
    assert 2 < len(busy.inflight) < slots.DEPTH
