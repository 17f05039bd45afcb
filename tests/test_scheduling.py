"""What the progress line promises: an ETA that weighs each target's remaining items by that
target's own time per item, scaled by the wall time the work done so far took."""

from __future__ import annotations

import io
import time
from collections import Counter

from conformance.corpus.case import Case, DataSpec, Form, Location
from conformance.plugin import Target
from conformance.results.result import Result
from conformance.run.progress import Progress
from conformance.run.runner import sampled_first
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


def test_the_eta_weighs_each_target_by_its_own_rate() -> None:
    remaining = Counter({"slow/r/d": 10, "fast/r/d": 100, "later/r/d": 10})
    progress = Progress(120, io.StringIO(), remaining=remaining)
    for target, first, then in (("slow/r/d", 5000.0, 1000.0), ("fast/r/d", 500.0, 10.0)):
        progress.update(_result(target, first))  # the worker's first item imports the backend
        progress.update(_result(target, then))
    progress.started = time.monotonic() - 13.02  # 6.51 s of item time took 13.02 s of wall time
    # slow: 8 left at 1 s; fast: 98 at 0.01 s; later (not measured): 10 at the mean 0.505 s; x2
    expected = (8 * 1.0 + 98 * 0.01 + 10 * 0.505) * 2
    assert abs(progress.eta() - expected) / expected < 0.01
    assert "eta" in progress.line()


def _job(index: int, target: str) -> Job:
    adapter, route, device = target.split("/")
    case = Case(
        f"c{index}", "t", "s", DataSpec((4,), "float32"), Form("parts", 2), Location("f.yaml", 1), axis=0
    )
    return Job(index, adapter, Target(adapter, route, device), case, "numpy.split", 0)


def test_a_sample_of_every_target_runs_first_then_the_plan_order() -> None:
    jobs = [_job(i, "fast/r/d") for i in range(5)] + [_job(5 + i, "slow/r/d") for i in range(4)]
    order = sampled_first(jobs, sample=2)
    assert [job.index for job in order] == [0, 1, 5, 6, 2, 3, 4, 7, 8]
    assert sorted(job.index for job in sampled_first(jobs)) == list(range(9))  # nothing lost
