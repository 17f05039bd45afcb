"""What the progress line promises: an ETA that weighs each target's remaining items by that
target's mean wall time per item so far, shared among the workers."""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from fake_adapters import Slicer

from conformance.corpus.case import Case, DataSpec, Form, Location
from conformance.corpus.loader import load_paths
from conformance.engine.item import LargeInput, run_item
from conformance.engine.pool import Pool
from conformance.engine.progress import ProgressLine
from conformance.engine.sampling import sample_of_each
from conformance.engine.worker import Job
from conformance.plugin import Target, Task
from conformance.results.result import Result
from conformance.run.planning import RunConfig, plan


def _result(target: str, elapsed_ms: float) -> Result:
    adapter, route, device = target.split("/")
    worker = {"pid": 1, "peak_rss_kib": 1, "elapsed_ms": elapsed_ms}
    return Result(  # type: ignore[arg-type]
        case="c",
        op="numpy.split",
        adapter=adapter,
        route=route,
        device=device,
        status="pass",
        message="",
        worker=worker,
    )


def _on(target: str, elapsed_ms: float, pid: int) -> Result:
    result = _result(target, elapsed_ms)
    return replace(result, worker={**(result.worker or {}), "pid": pid})


def _busy(progress: ProgressLine, now: list[float], result: Result) -> None:
    """The result of an item that kept its worker busy from its previous result: the clock moves
    on by the item's time, then the result comes."""
    now[0] += (result.worker or {})["elapsed_ms"] / 1000
    progress.update(result)


def test_the_eta_weighs_each_target_by_its_own_rate() -> None:
    remaining = Counter({"slow/r/d": 10, "fast/r/d": 100, "later/r/d": 10})
    now = [0.0]
    progress = ProgressLine(120, io.StringIO(), remaining=remaining, clock=lambda: now[0])
    for target, first, then in (("slow/r/d", 5000.0, 1000.0), ("fast/r/d", 500.0, 10.0)):
        # the worker's first item of a target loads the adapter: it is left out of the mean
        _busy(progress, now, _result(target, first))
        _busy(progress, now, _result(target, then))
    # slow: 8 left at 1 s; fast: 98 at 0.01 s; later (not measured): 10 at the mean 0.505 s
    expected = 8 * 1.0 + 98 * 0.01 + 10 * 0.505
    assert progress.eta() == pytest.approx(expected, rel=0.01)
    # the target holding the run up, with how far it has come
    assert progress.line().endswith("longest: slow/r/d 2/10")


def test_a_workers_first_item_of_a_target_is_left_out_of_its_mean() -> None:
    """A worker's first item carries the backend's own set-up (a first compile): in the mean of
    a small sample it would price every item left as if each paid it."""
    now = [0.0]
    progress = ProgressLine(12, io.StringIO(), remaining=Counter({"t/r/d": 12}), clock=lambda: now[0])
    _busy(progress, now, _result("t/r/d", 1000.0))  # the first, with a 990 ms set-up
    _busy(progress, now, _result("t/r/d", 10.0))
    assert progress.eta() == pytest.approx(10 * 0.01, rel=0.01)


def test_an_item_costs_its_workers_wall_time_shared_among_the_workers() -> None:
    """The time between a worker's results prices its items, with what the harness spends around
    them (here half as much again as the worker's own 1 s); two workers share what is left."""
    now = [0.0]
    remaining = Counter({"t/r/d": 30})
    progress = ProgressLine(30, io.StringIO(), remaining=remaining, clock=lambda: now[0], workers=2)
    for _ in range(5):
        for pid in (1, 2):
            progress.update(_on("t/r/d", 1000.0, pid))
        now[0] += 1.5
    # each worker's first item is left out; 20 items left at 1.5 s, on two workers
    assert progress.eta() == pytest.approx(20 * 1.5 / 2, rel=0.01)


def _job(index: int, target: str) -> Job:
    adapter, route, device = target.split("/")
    case = Case(
        f"c{index}", "t", "s", DataSpec((4,), "float32"), Form("parts", 2), Location("f.yaml", 1), axis=0
    )
    return Job(index, adapter, Target(adapter, route, device), case, "numpy.split", 0)


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
    big = replace(_result("t/r/d", 3000.0), case="big")
    remaining = Counter({"t/r/d": 4, "t/r/d (large)": 2})
    now = [0.0]
    classes = {big.key: "t/r/d (large)"}
    progress = ProgressLine(6, io.StringIO(), remaining=remaining, classes=classes, clock=lambda: now[0])
    for result in (_result("t/r/d", 10.0), big, _result("t/r/d", 10.0), _result("t/r/d", 10.0)):
        _busy(progress, now, result)
    # the large item counts after any other item of its worker; the small ones after their own
    expected = 1 * 3.0 + 1 * 0.01
    assert abs(progress.eta() - expected) / expected < 0.01


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
    remaining = Counter({"fast/r/d": 30})
    now = [0.0]
    progress = ProgressLine(30, io.StringIO(), remaining=remaining, clock=lambda: now[0])
    for _ in range(5):
        _busy(progress, now, _result("fast/r/d", 100.0))
    assert "eta   2.5 s" in progress.line()  # 25 items left at 0.1 s
