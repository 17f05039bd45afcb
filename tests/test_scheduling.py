"""What the progress line promises: an ETA that weighs each target's remaining items by that
target's own time per item, scaled by the wall time the work done so far took."""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from fake_adapters import Slicer
from report_fixtures import corpus

from conformance.corpus.case import Case, DataSpec, Form, Location
from conformance.corpus.loader import load_paths
from conformance.plugin import Target, Task
from conformance.results.result import Result
from conformance.run import input_cache, known_issues
from conformance.run.input_cache import InputCache
from conformance.run.item import run_item
from conformance.run.planning import RunConfig, plan
from conformance.run.pool import Pool
from conformance.run.progress import ProgressLine
from conformance.run.rates import Rates, Strata, fitted
from conformance.run.runner import execute
from conformance.run.sampling import checks_of_each, foreseen_deaths, sample_of_each, sample_strata
from conformance.run.slot import DEPTH
from conformance.run.worker import Job


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
        _busy(progress, now, _result(target, first))  # the worker's first item imports the backend
        _busy(progress, now, _result(target, then))
    now[0] = 13.02  # 6.51 s of item time took 13.02 s of wall time
    # slow: 8 left at 1 s; fast: 98 at 0.01 s; later (not measured): 10 at the mean 0.505 s; x2
    expected = (8 * 1.0 + 98 * 0.01 + 10 * 0.505) * 2
    assert abs(progress.eta() - expected) / expected < 0.01
    # the target holding the run up, with how far it has come: slow has 8 s of 10.1 s left
    assert progress.line().endswith("longest: slow/r/d 2/10")


def test_what_a_worker_spends_between_items_counts_with_their_target() -> None:
    """Between two results a worker reports, reads the next job and waits on the parent: a
    fraction of a millisecond, as much as a fast target's item itself, nothing beside a slow
    one's. Scaled from the slow items' wall time per item time, the fast target's 9,990 items
    were promised in half their time."""
    now = [0.0]
    remaining = Counter({"slow/r/d": 100, "fast/r/d": 10_000})
    progress = ProgressLine(10_100, io.StringIO(), remaining=remaining, clock=lambda: now[0])
    for _ in range(11):  # the fast target's sample: 0.2 ms items, 0.4 ms apart on the worker
        now[0] += 0.0004
        progress.update(_on("fast/r/d", 0.2, pid=1))
    for _ in range(61):  # the slow target's items: 100 ms each, back to back
        now[0] += 0.1
        progress.update(_on("slow/r/d", 100.0, pid=1))
    assert progress.eta() == pytest.approx(39 * 0.1 + 9_989 * 0.0004, rel=0.02)


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


def test_the_sample_and_the_checks_pass_over_items_a_known_issue_says_kill_their_worker() -> None:
    """A pick whose item is listed as a crash (or a timeout) moves on to the next item of its
    stratum: a death prices nothing, and one in a run's first seconds is replaced by a worker that
    imports its backends itself. An item listed as failing is sampled as before; a stratum whose
    every item dies keeps its pick; the strata the ETA uses follow the moved picks."""
    listed = known_issues.parse(
        """
known_issues:
  - id: dies
    targets: "t/*"
    statuses: [crash, timeout]
    items: ["c0::*", "c1::*", "c10::*", "c11::*", "c12::*", "c13::*", "c14::*", "c15::*", "c16::*"]
    reason: the backend aborts
    link: https://example.org/dies
  - id: wrong
    targets: "t/*"
    statuses: [fail]
    items: ["c8::*"]
    reason: the backend returns wrong pieces
    link: https://example.org/wrong
""",
        "ki.yaml",
        "t",
    )
    dies = foreseen_deaths(known_issues.ByTarget(listed))
    jobs = [_job(i, "t/r/d") for i in range(40)]
    assert [job.index for job in jobs if dies(job)] == [0, 1, *range(10, 17)]
    sample, rest = sample_of_each(jobs, sample=4, dies=dies)  # spread: 0, 10, 20, 30
    assert [job.index for job in sample] == [2, 17, 20, 30]
    assert sorted(job.index for job in sample + rest) == list(range(40))
    # item 2 prices the stratum of items 0-9, item 17 that of items 10-19, the dying ones too;
    # items 20-39 are not priced yet (their class's rate)
    strata = sample_strata(jobs, sample=4, dies=dies)
    strata.add(jobs[2].key, 0.015, 0.01, counted=True, death=False)
    strata.add(jobs[17].key, 0.005, 0.01, counted=True, death=False)
    assert strata.work_left("t/r/d", 0.01) == pytest.approx(9 * 0.015 + 9 * 0.005 + 20 * 0.01)
    assert [job.index for job in sample_of_each(jobs, sample=5)[0]] == [0, 8, 16, 24, 32]  # none foreseen
    doomed = [_job(i, "t/r/d") for i in range(10, 17)]
    assert [job.index for job in sample_of_each(doomed, sample=1, dies=dies)[0]] == [
        10
    ]  # nothing else to take
    checks, _ = checks_of_each(jobs, count=4, dies=dies)  # a tenth of 40: spread 0, 10, 20, 30
    assert [job.index for job in checks] == [2, 17, 20, 30]


def test_checks_of_each_target_are_spread_over_its_items_after_the_sample() -> None:
    """A tenth of each target's items after its sample, at most 40, spread over them, run next:
    each target's own check of its sample before the targets run in their order; large items are
    never among them (they run apart, on the first worker)."""
    jobs = [_job(i, "big/r/d") for i in range(1000)] + [_job(1000 + i, "small/r/d") for i in range(60)]
    sample, rest = sample_of_each(jobs)
    checks, bulk = checks_of_each(rest)
    big = [job.index for job in checks if job.target.adapter == "big"]
    assert len(big) == 40 and big == sorted(big) and big[-1] - big[0] > 900  # spread, not the first 40
    # 60 items: 40 in the sample, and a tenth of the 20 after it
    assert [job.index for job in checks if job.target.adapter == "small"] == [1002, 1032]
    assert sorted(job.index for job in sample + checks + bulk) == list(range(1060))  # nothing lost
    assert not {job.index for job in sample} & {job.index for job in checks}
    huge = replace(jobs[0].case, data=DataSpec((2**31,), "uint8"))
    large = [replace(job, case=huge) for job in rest[:500]]
    assert all(job.large for job in large)
    picked = [job.index for job in checks_of_each(large + rest[500:])[0]]
    assert len(picked) == 42 and min(picked) >= rest[500].index  # 40 of big's last 450, 2 of small's


def _item(job: Job, elapsed_ms: float) -> Result:
    return replace(_on(job.target.id, elapsed_ms, pid=1), case=job.case.id)


def test_the_items_left_are_priced_by_the_sample_items_that_stand_for_them() -> None:
    """A target's items run in plan order after its sample, and their cost follows their cases,
    which are not uniform along the plan: its first 60 items here take 10 ms, the last 40 1 ms.
    A mean over the items done (the sample and the dear first ones) priced the cheap rest at
    9 ms each; each sample item stands for the items up to the next one instead."""
    jobs = [_job(i, "t/r/d") for i in range(100)]
    sample, rest = sample_of_each(jobs, sample=5)  # items 0, 20, 40, 60 and 80

    def cost(job: Job) -> float:
        return 10.0 if job.index < 60 else 1.0

    now = [0.0]
    progress = ProgressLine(100, io.StringIO(), remaining=Counter({"t/r/d": 100}), clock=lambda: now[0])
    progress.strata = sample_strata(jobs, sample=5)
    for job in [*sample, *rest[:19]]:  # the sample, then items 1-19
        _busy(progress, now, _item(job, cost(job)))
    left = sum(cost(job) for job in rest[19:]) / 1000  # items 21-39 and 41-59 at 10 ms, the rest 1 ms
    assert progress.eta() == pytest.approx(left, rel=0.02)


def test_what_a_sample_over_stated_is_taken_off_the_targets_not_started() -> None:
    """A sample runs in the run's first seconds, beside the imports: its items took twice what
    the same target's took after. Once a target's bulk items say so, its sample's price is
    corrected by that ratio, and that of a target yet to start by the ratio's square root (the
    targets that start first over-state it for the others)."""
    jobs = [_job(i, "a/r/d") for i in range(100)] + [_job(100 + i, "b/r/d") for i in range(100)]
    sample, rest = sample_of_each(jobs, sample=5)
    now = [0.0]
    remaining = Counter({"a/r/d": 100, "b/r/d": 100})
    progress = ProgressLine(200, io.StringIO(), remaining=remaining, clock=lambda: now[0])
    progress.strata = sample_strata(jobs, sample=5)
    for job in sample:  # a's at 20 ms, b's at 4 ms: twice what they take after
        _busy(progress, now, _item(job, 20.0 if job.target.adapter == "a" else 4.0))
    for job in rest[:60]:  # a's items 1-19, 21-39, 41-59 and 61-63 at 10 ms
        _busy(progress, now, _item(job, 10.0))
    # a's 35 left at 10 ms; b's 95: its first stratum's 19 at b's own rate (its first sample item,
    # the worker's first of b, carried the set-up and priced nothing), the 76 others at 4 ms
    # corrected by the square root of a's ratio, 0.5
    expected = 35 * 0.010 + 19 * 0.004 + 76 * 0.004 * 0.5**0.5
    assert progress.eta() == pytest.approx(expected, rel=0.02)


def test_a_target_not_started_is_corrected_by_the_started_ones_of_its_speed() -> None:
    """The samples run beside the imports: the fast targets' took twice their later time there, the
    slow ones' as long as after. A fast target yet to start is corrected by what the started
    targets of its speed show, not by the slow ones' seconds, which dominate a pooled ratio."""
    stratum_of: dict[str, tuple[str, int]] = {}
    for kind in ("slow", "mid", "fast"):
        stratum_of.update({f"{kind}-{i}": (kind, 0) for i in range(41)})  # item 0: the sample item
    strata = Strata(stratum_of, {"slow-0", "mid-0", "fast-0"})
    for kind, said in (("slow", 0.020), ("mid", 0.002), ("fast", 0.001)):
        strata.add(f"{kind}-0", said, said, counted=True, death=False)
    for i in range(1, 41):  # slow takes what its sample said, mid half of it; fast has not started
        strata.add(f"slow-{i}", 0.020, 0.020, counted=True, death=False)
        strata.add(f"mid-{i}", 0.001, 0.001, counted=True, death=False)
    # the ratio read at fast's sample speed: mid's 0.5 (the line through 1.0 at 20 ms and 0.5 at
    # 2 ms, held within the ratios seen), square-rooted; pooled, it would be 0.95
    assert strata.work_left("fast", 0.001) == pytest.approx(40 * 0.001 * 0.5**0.5)


def test_the_ratio_is_read_off_a_line_through_the_started_targets_speeds() -> None:
    assert fitted([(0.0, 0.5, 1), (2.0, 1.0, 1)], 1.0) == pytest.approx(0.75)
    three = [(0.0, 0.5, 1), (1.0, 1.0, 1), (2.0, 1.0, 1)]
    assert fitted(three, 0.0) == pytest.approx(0.5 + 1 / 12)  # least squares: 7/12
    heavier = [(0.0, 0.5, 4), (1.0, 1.0, 1), (2.0, 1.0, 1)]
    assert fitted(heavier, 0.0) == pytest.approx(0.5 + 1 / 42)  # weighted by the items checked: 11/21
    assert fitted([(0.0, 0.5, 1), (2.0, 1.0, 1)], -5.0) == 0.5  # held within the ratios seen
    assert fitted([(0.0, 0.5, 1)], 1.0) is None  # one target: no line
    assert fitted([(0.0, 0.5, 1), (0.1, 1.0, 1)], 1.0) is None  # samples of one speed: no slope


SPLITS = (
    "defaults: {source: order tests, ops: [numpy.array_split], axis: 0, indices: [1, 3]}\ncases:\n"
    + "".join(f"  - {{id: c{n}, title: t, data: {{shape: [{6 + n}], dtype: uint8}}}}\n" for n in range(60))
)


def test_after_the_sample_the_target_with_the_most_work_left_runs_first(tmp_path: Path) -> None:
    """The slow target comes second of three in the plan, and its name sorts between the fast
    ones', but its 20 items after the sample (at 20 ms) are more work than either fast one's 20:
    they run first, in a row (after a tenth of each target's, which check its sample); in plan
    order, by name or in reverse they would not have."""
    (tmp_path / "splits.yaml").write_text(SPLITS, encoding="utf-8")
    config = RunConfig(
        case_paths=(str(tmp_path),),
        adapters=("fake_adapters:Slicer", "fake_adapters:Snail", "fake_adapters:Swift"),
        options={"fake_adapters:Snail": {"seconds": "0.02"}},
        jobs=1,
        repeat=0,
        out=tmp_path / "out",
        junit=False,
    )
    planned = plan(config)
    assert list(dict.fromkeys(job.target.adapter for job in planned.jobs)) == ["slicer", "snail", "swift"]
    order: list[str] = []
    execute(planned, config, io.StringIO(), on_result=lambda result: order.append(result.adapter))
    assert Counter(order[:120]) == {"slicer": 40, "snail": 40, "swift": 40}  # the sample
    # then each target's checks of its sample: a tenth of its 20 items after it
    assert Counter(order[120:126]) == {"slicer": 2, "snail": 2, "swift": 2}
    bulk = order[126:]
    start = bulk.index("snail")
    # fast items already waiting in the worker's pipe when the checks ended run first (see DEPTH)
    assert start < DEPTH
    assert bulk[start : start + 18] == ["snail"] * 18


def test_a_targets_largest_item_is_left_out_of_its_rate_but_not_a_death() -> None:
    """One pause among a sample's items would weigh on all of the target's items to come; a
    crash's charge stays, as the target's crashes recur."""
    rates = Rates()
    for seconds in (1.0, 1.0, 10.0):
        rates.add("t", seconds)
    rates.add("u", 1.0)
    rates.add("u", 1.0)
    rates.add("u", 10.0, death=True)
    assert rates.per_item() == {"t": 1.0, "u": 5.5}  # u: (1 + 10) / 2, its largest item left out


def test_large_items_are_measured_apart_from_their_targets_other_items() -> None:
    """A target's large item takes seconds where its others take milliseconds: counted with
    the target's rate it would make every remaining item look slow (and the other way round)."""
    big = replace(_result("t/r/d", 3000.0), case="big")
    remaining = Counter({"t/r/d": 4, "t/r/d (large)": 2})
    now = [0.0]
    classes = {big.key: "t/r/d (large)"}
    progress = ProgressLine(6, io.StringIO(), remaining=remaining, classes=classes, clock=lambda: now[0])
    _busy(progress, now, big)  # the worker's first item of the target, counted: it is large
    _busy(progress, now, _result("t/r/d", 500.0))  # its first of the others: may carry the import
    _busy(progress, now, _result("t/r/d", 10.0))  # wall time equals item time
    expected = 1 * 3.0 + 2 * 0.01
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
    """Items of gigabytes run one at a time anyway: all on one worker, first, and sharing one input
    ([2^28] uint8 is large: four copies of it make 1 GiB)."""
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

    inputs = InputCache()
    target = Target("slicer", "slices", "cpu")
    for case_id in ("large-0", "large-1"):
        result = run_item(Watching({}), target, suite.by_id(case_id), "numpy.array_split", 0, inputs=inputs)
        assert result.status == "pass", result.message
    assert len(set(seen)) == 1  # one buffer, made once
    assert inputs.held_bytes(suite.by_id("large-2").data) == 2**28
    inputs.keep_only(suite.by_id("small-0").data)  # another job: the input is freed first
    assert inputs.held_bytes(suite.by_id("large-2").data) == 0


def test_jobs_in_a_row_of_one_case_make_its_small_input_once_and_each_gets_its_own_copy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A target runs a case under each of its ops in a row: the input is made once and kept
    read-only, and every item gets a fresh copy, so what a backend writes into its input reaches
    no other item. An input over SMALL_BYTES is made afresh for each item."""
    made: list[DataSpec] = []
    real = input_cache.make_data
    monkeypatch.setattr(input_cache, "make_data", lambda spec: made.append(spec) or real(spec))
    given: list[np.ndarray] = []
    writeable: list[bool] = []

    class Scribbling(Slicer):
        def misbehave(self, task: Task) -> None:
            given.append(task.data.copy())
            writeable.append(task.data.flags.writeable)  # its own copy, not the kept input
            task.data[...] = 0

    case = corpus().by_id("indices-rank1")
    target, inputs = Target("slicer", "slices", "cpu"), InputCache()
    for op in ("numpy.array_split", "torch.tensor_split"):
        run_item(Scribbling({}), target, case, op, 0, inputs=inputs)
    pristine = real(case.data)
    assert len(given) == 2 and all(np.array_equal(data, pristine) for data in given) and pristine.any()
    assert writeable == [True, True]
    assert made == [case.data]
    big = DataSpec((input_cache.SMALL_BYTES // 4 + 1,), "float32")
    first, second = inputs.data(big, keep=False), inputs.data(big, keep=False)
    assert made == [case.data, big, big] and not np.shares_memory(first, second)


def test_the_eta_scales_by_the_recent_wall_time_per_item_second() -> None:
    """Worker starts and crash replacements crowd a run's start: the wall time a second of item
    time took over the last half minute, not since the start, predicts the rest."""
    now = [0.0]
    progress = ProgressLine(51, io.StringIO(), remaining=Counter({"t/r/d": 51}), clock=lambda: now[0])
    progress.update(_on("t/r/d", 1000.0, pid=1))  # the worker's first item: left out of the rate
    for pid in range(2, 12):  # early on, 1 s items 4 s apart, each on a worker just started
        now[0] += 4.0
        progress.update(_on("t/r/d", 1000.0, pid))
    for _ in range(30):  # then 1 s apart on one worker
        now[0] += 1.0
        progress.update(_on("t/r/d", 1000.0, pid=12))
    # 10 items left at 1 s of item time, each taking 1 s of wall time lately (1.75 since the start)
    assert 9.5 < progress.eta() < 11.0


def _death(target: str) -> Result:
    return replace(_result(target, 0.0), status="crash", worker=None)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_death_is_charged_to_its_target_and_a_cluster_of_them_moves_the_eta_little(workers: int) -> None:
    """A crash has no worker figures; its cost (the dying item, the replacement's start) is the wall
    time since the last result on each worker, charged to its target: a cluster of deaths neither
    leaves the target looking cheap nor makes the wall time per item-second leap."""
    now = [0.0]
    total = 1 + 60 + 10 + 200
    progress = ProgressLine(
        total, io.StringIO(), remaining=Counter({"t/r/d": total}), clock=lambda: now[0], workers=workers
    )
    progress.update(_result("t/r/d", 1000.0))  # the first item: left out of the rate
    for number in range(60):  # 1 s items, one result every 1/workers s, the workers in turn
        now[0] += 1.0 / workers
        progress.update(_on("t/r/d", 1000.0, pid=1 + number % workers))
    before = progress.eta()
    for _ in range(10):  # deaths, each holding a worker 3 s (the item and a restart)
        now[0] += 3.0 / workers
        progress.update(_death("t/r/d"))
    after = progress.eta()
    # 200 items left; the target now costs (60 x 1 + 10 x 3) / 70 s an item, on `workers` workers
    expected = 200 * (90 / 70) / workers
    assert abs(after - expected) / expected < 0.05
    assert after < 1.5 * before  # without the charge the window's ratio alone tripled it


def test_a_replacement_worker_is_expected_to_pay_each_targets_first_item_again() -> None:
    """A worker's first item of a target carries that backend's set-up; a worker that replaced a
    crashed one has not paid it for the targets still to come, and the ETA says so."""
    now = [0.0]
    remaining = Counter({"a/r/d": 5, "b/r/d": 10})
    progress = ProgressLine(15, io.StringIO(), remaining=remaining, clock=lambda: now[0])
    for target, first, then in (("a/r/d", 5000.0, 100.0), ("b/r/d", 3000.0, 100.0)):
        _busy(progress, now, _on(target, first, pid=1))
        _busy(progress, now, _on(target, then, pid=1))
    _busy(progress, now, _on("a/r/d", 5000.0, pid=2))  # the replacement's first item of A
    without = 2 * 0.1 + 8 * 0.1  # A: 2 items left at 0.1 s, B: 8 at 0.1 s
    # 13.2 s of item time in 13.2 s of wall time; pid 2 will pay B's set-up once: 3 s less the
    # 0.1 s of B's rate
    assert progress.eta() == pytest.approx(without + 2.9, rel=0.01)
    _busy(progress, now, _on("b/r/d", 3000.0, pid=2))  # paid: only the rates are left
    assert progress.eta() == pytest.approx(2 * 0.1 + 7 * 0.1, rel=0.01)


def test_a_worker_pays_an_adapters_set_up_once_for_all_its_routes() -> None:
    """The set-up a worker's first item carries is its adapter's (importing and starting the
    backend): a worker that has run one route of an adapter runs its other routes without it.
    Counted per route, the ETA promised TensorFlow's set-up again for its eager route, to the end
    of a -j 1 run, to a worker that had run its function route."""
    now = [0.0]
    remaining = Counter({"a/one/d": 10, "a/two/d": 10, "b/r/d": 10})
    progress = ProgressLine(30, io.StringIO(), remaining=remaining, clock=lambda: now[0])
    for pid, target in ((1, "a/one/d"), (2, "a/two/d")):  # pid 2 replaced pid 1
        _busy(progress, now, _on(target, 4000.0, pid=pid))  # imports a's backend
        _busy(progress, now, _on(target, 100.0, pid=pid))
        _busy(progress, now, _on(target, 100.0, pid=pid))
    # pid 2 runs a/one's 7 items left and a/two's at their rates; b's 10 at the mean rate
    assert progress.eta() == pytest.approx((7 + 7 + 10) * 0.1, rel=0.01)
    _busy(progress, now, _on("b/r/d", 2000.0, pid=3))  # a replacement, which has not run a
    # pid 3 will pay a's set-up (4 s less a rate of 0.1 s) once for a's routes together
    assert progress.eta() == pytest.approx((7 + 7 + 9) * 0.1 + 3.9, rel=0.01)


def test_a_route_with_its_own_set_up_is_expected_to_pay_it_in_a_worker_that_has_its_adapter() -> None:
    """Keras imports itself again for each backend: its routes' first items cost seconds even in a
    worker that has run another of them. What a route's first item took in workers that had its
    adapter is what a worker with the adapter is expected to pay for it."""
    now = [0.0]
    remaining = Counter({"k/one/d": 10, "k/two/d": 10})
    progress = ProgressLine(20, io.StringIO(), remaining=remaining, clock=lambda: now[0])
    for target, first in (("k/one/d", 4000.0), ("k/two/d", 1000.0)):  # pid 1: two's first, a re-import
        _busy(progress, now, _on(target, first, pid=1))
        _busy(progress, now, _on(target, 100.0, pid=1))
        _busy(progress, now, _on(target, 100.0, pid=1))
    _busy(progress, now, _on("k/one/d", 4000.0, pid=2))  # a replacement: k's set-up, then one's items
    _busy(progress, now, _on("k/one/d", 100.0, pid=2))
    # one: 5 left, two: 7 left, at 0.1 s; pid 2 will pay two's re-import (1 s less its 0.1 s rate)
    assert progress.eta() == pytest.approx((5 + 7) * 0.1 + 0.9, rel=0.01)


def test_the_last_seconds_of_the_eta_are_shown_in_tenths() -> None:
    """Whole seconds put the end of a run up to a fifth off by rounding alone ("3 s" for 2.5 s)."""
    from conformance.run.progress import eta_text

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
