"""What the progress line promises: an ETA that prices each target's remaining items by the wall
time that target's items of about their size took so far, shared among the workers."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from fake_adapters import Slicer

from conformance.corpus.case import Case, DataSpec, Form, Location, SplitArguments
from conformance.corpus.loader import load_paths
from conformance.engine.item import LargeInput, run_item
from conformance.engine.pool import Pool
from conformance.engine.progress import ProgressLine
from conformance.engine.sampling import sample_of_each
from conformance.engine.worker import Job
from conformance.plugin import Target, Task
from conformance.results.result import Result
from conformance.run.planning import RunConfig, plan


def _job(index: int, target: str, shape: tuple[int, ...] = (4,)) -> Job:
    adapter, route, device = target.split("/")
    case = Case(
        f"c{index}",
        "t",
        "s",
        DataSpec(shape, "uint8"),
        SplitArguments(0, Form("parts", 2)),
        Location("f.yaml", 1),
    )
    return Job(index, adapter, Target(adapter, route, device), case, "numpy.split", 0)


def _jobs(target: str, count: int, shape: tuple[int, ...] = (4,)) -> list[Job]:
    return [_job(index, target, shape) for index in range(count)]


def _done(job: Job, elapsed_ms: float, pid: int = 1) -> Result:
    """The result of ``job`` from worker ``pid``."""
    worker = {"pid": pid, "peak_rss_kib": 1, "elapsed_ms": elapsed_ms}
    return Result(  # type: ignore[arg-type]
        case=job.case.id,
        op=job.op,
        adapter=job.target.adapter,
        route=job.target.route,
        device=job.target.device,
        status="pass",
        message="",
        worker=worker,
    )


def _busy(progress: ProgressLine, now: list[float], result: Result, contended: bool = False) -> None:
    """The result of an item that kept its worker busy from its previous result: the clock moves
    on by the item's time, then the result comes."""
    now[0] += (result.worker or {})["elapsed_ms"] / 1000
    progress.update(result, contended)


def _line(jobs: list[Job], now: list[float], workers: int = 1) -> ProgressLine:
    return ProgressLine(len(jobs), io.StringIO(), jobs=jobs, clock=lambda: now[0], workers=workers)


def test_the_eta_weighs_each_target_by_its_own_rate() -> None:
    slow, fast, later = _jobs("slow/r/d", 10), _jobs("fast/r/d", 100), _jobs("later/r/d", 10)
    now = [0.0]
    progress = _line(slow + fast + later, now)
    for jobs, first, then in ((slow, 5000.0, 1000.0), (fast, 500.0, 10.0)):
        # the worker's first item of a target loads the adapter: it is left out of the mean
        _busy(progress, now, _done(jobs[0], first))
        _busy(progress, now, _done(jobs[1], then))
    # slow: 8 left at 1 s; fast: 98 at 0.01 s; later (not measured): 10 at the mean 0.505 s
    expected = 8 * 1.0 + 98 * 0.01 + 10 * 0.505
    assert progress.eta() == pytest.approx(expected, rel=0.01)
    # the target holding the run up, with how far it has come
    assert progress.line().endswith("longest: slow/r/d 2/10")


def test_a_workers_first_item_of_a_target_is_left_out_of_its_mean() -> None:
    """A worker's first item carries the backend's own set-up (a first compile): in the mean of
    a small sample it would price every item left as if each paid it."""
    now = [0.0]
    jobs = _jobs("t/r/d", 12)
    progress = _line(jobs, now)
    _busy(progress, now, _done(jobs[0], 1000.0))  # the first, with a 990 ms set-up
    _busy(progress, now, _done(jobs[1], 10.0))
    assert progress.eta() == pytest.approx(10 * 0.01, rel=0.01)


def test_an_item_costs_its_workers_wall_time_shared_among_the_workers() -> None:
    """The time between a worker's results prices its items, with what the harness spends around
    them (here half as much again as the worker's own 1 s); two workers share what is left."""
    now = [0.0]
    jobs = _jobs("t/r/d", 30)
    progress = _line(jobs, now, workers=2)
    for number in range(0, 10, 2):
        for pid in (1, 2):
            progress.update(_done(jobs[number + pid - 1], 1000.0, pid))
        now[0] += 1.5
    # each worker's first item is left out; 20 items left at 1.5 s, on two workers
    assert progress.eta() == pytest.approx(20 * 1.5 / 2, rel=0.01)


def test_items_run_while_a_zygote_imports_are_priced_at_a_workers_share_of_a_core(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two workers and a zygote importing on two cores: each worker has two thirds of a core, so
    what its items took then counts two thirds; one worker has a core of its own."""
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    for workers, share in ((2, 2 / 3), (1, 1.0)):
        now = [0.0]
        jobs = _jobs("t/r/d", 12)
        progress = _line(jobs, now, workers=workers)
        for job in jobs[:2]:  # the first is left out (the adapter's loading)
            _busy(progress, now, _done(job, 1500.0), contended=True)
        _busy(progress, now, _done(jobs[2], 1000.0))
        assert progress.eta() == pytest.approx(9 * (1.5 * share + 1.0) / 2 / workers, rel=0.01)


def test_items_left_are_priced_by_their_size() -> None:
    """A target whose few large inputs cost most of its time: a sample holding one of them
    would price every item left as a share of it. Each item costs 1 ms and 1 us per element."""
    small, big = _jobs("t/r/d", 8, (10,)), [_job(100 + n, "t/r/d", (1000,)) for n in range(3)]
    now = [0.0]
    progress = _line(small + big, now)
    for job in (small[0], small[1], small[2], big[0]):  # the first is a first: left out
        _busy(progress, now, _done(job, 1.0 + 0.001 * job.case.data.shape[0]))
    # left: 5 small and 2 big items, not 7 at the mean of the 3 measured (1.34 ms)
    assert progress.eta() == pytest.approx((5 * 1.01 + 2 * 2.0) / 1000, rel=1e-6)


def test_an_item_of_a_size_not_measured_yet_is_priced_at_its_targets_mean() -> None:
    now = [0.0]
    small, big = _jobs("t/r/d", 4, (10,)), [_job(100, "t/r/d", (1000,))]
    progress = _line(small + big, now)
    for job, elapsed_ms in ((small[0], 50.0), (small[1], 1.0), (small[2], 3.0)):
        _busy(progress, now, _done(job, elapsed_ms))
    assert progress.eta() == pytest.approx(2 * 0.002)  # one small, one big, at the mean 2 ms


def test_a_spread_sample_of_every_target_runs_first_then_the_rest() -> None:
    jobs = [_job(i, "fast/r/d") for i in range(5)] + [_job(5 + i, "slow/r/d") for i in range(4)]
    sample, rest = sample_of_each(jobs, sample=2)
    # two of each target, spread over its jobs, then the rest in plan order
    assert [job.index for job in sample] == [0, 2, 5, 7]
    assert [job.index for job in rest] == [1, 3, 4, 6, 8]
    sample, rest = sample_of_each(jobs)
    assert sorted(job.index for job in sample + rest) == list(range(9))  # nothing lost
    many = [_job(i, "big/r/d") for i in range(2000)]
    assert len(sample_of_each(many)[0]) == 100  # a large target's sample: 5 % of its items


def test_large_items_are_measured_apart_from_their_targets_other_items() -> None:
    """A target's large item takes seconds where its others take milliseconds: counted with
    the target's rate it would make every remaining item look slow (and the other way round)."""
    small, large = _jobs("t/r/d", 4), [_job(10 + n, "t/r/d", (2**28,)) for n in range(2)]
    assert all(job.large for job in large)  # four copies of 256 MiB
    now = [0.0]
    progress = _line(small + large, now, workers=2)
    for job, elapsed_ms in ((small[0], 10.0), (large[0], 3000.0), (small[1], 10.0), (small[2], 10.0)):
        _busy(progress, now, _done(job, elapsed_ms))
    # the large item counts after any other item of its worker, and runs alone (not shared
    # between the two workers); the small ones count after their own
    expected = 1 * 3.0 + 1 * 0.01 / 2
    assert progress.eta() == pytest.approx(expected, rel=0.01)


LARGE_CASES = (
    """\
defaults: {source: lane tests, ops: [numpy.array_split], axis: 0, indices: [1, 3]}
cases:
"""
    + "".join(
        f"  - {{id: small-{n}, title: t, data: {{shape: [{6 + n}], dtype: uint8}}}}\n" for n in range(6)
    )
    + "".join(
        f"  - {{id: large-{n}, title: t, data: {{shape: [{2**28}], dtype: uint8}}}}\n" for n in range(3)
    )
)


@pytest.mark.slow
def test_large_items_run_in_a_row_on_the_first_worker(tmp_path: Path) -> None:
    """Items of gigabytes run one at a time anyway: all on one worker, first, and sharing one
    input ([2^28] uint8 is large: four copies of it make 1 GiB)."""
    (tmp_path / "few.yaml").write_text(LARGE_CASES, encoding="utf-8")
    config = RunConfig(case_paths=(str(tmp_path),), adapters=("fake_adapters:Slicer",), jobs=2, repeat=0)
    jobs = plan(config).jobs
    assert [job.case.id for job in jobs if job.large] == ["large-0", "large-1", "large-2"]
    finished: list[Result] = []
    # the kept input (256 MiB) does not count towards the memory that has a worker replaced
    Pool(2, 120, finished.append, recycle_above_mib=300).process(jobs)
    assert sorted(r.status for r in finished) == ["pass"] * 9
    lane = {r.worker["pid"] for r in finished if r.case.startswith("large") and r.worker}
    assert len(lane) == 1
    first_of_lane = next(r for r in finished if r.worker and r.worker["pid"] in lane)
    assert first_of_lane.case == "large-0"


def test_a_worker_makes_a_large_input_once_for_items_in_a_row(tmp_path: Path) -> None:
    (tmp_path / "few.yaml").write_text(LARGE_CASES, encoding="utf-8")
    suite = load_paths([tmp_path])
    seen: list[int] = []

    class Watching(Slicer):
        def misbehave(self, task: Task) -> None:
            seen.append(task.data.__array_interface__["data"][0])
            assert not task.data.flags.writeable

    kept = LargeInput()
    target = Target("slicer", "slices", "cpu")
    for case_id in ("large-0", "large-1"):
        result = run_item(Watching({}), target, suite.by_id(case_id), "numpy.array_split", 0, kept=kept)
        assert result.status == "pass", result.message
    assert len(set(seen)) == 1  # one buffer, made once
    assert kept.held(suite.by_id("large-2").data) == 2**28
    kept.keep_only(suite.by_id("small-0").data)  # another job: the input is freed first
    assert kept.held(suite.by_id("large-2").data) == 0


def test_the_last_seconds_of_the_eta_are_shown_in_tenths() -> None:
    """Whole seconds put the end of a run up to a fifth off by rounding alone ("3 s" for 2.5 s)."""
    from conformance.engine.progress import eta_text

    assert [eta_text(seconds) for seconds in (2.54, 9.94, 9.96, 123.4)] == [
        "  2.5",
        "  9.9",
        "   10",
        "  123",
    ]
    now = [0.0]
    jobs = _jobs("fast/r/d", 30)
    progress = _line(jobs, now)
    for job in jobs[:5]:
        _busy(progress, now, _done(job, 100.0))
    assert "eta   2.5 s" in progress.line()  # 25 items left at 0.1 s
