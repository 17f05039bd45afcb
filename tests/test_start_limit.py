"""--timeout times the item, not the worker's start: a worker's spawn or fork, loading its adapter
and the adapter's prepare() have a limit of their own (EngineSettings.start_s, in
conformance.engine.settings), and running over it is the adapter's error on the item that waited,
never a timeout.

Timed as the item, TensorFlow's import at ``--timeout 3`` turned the first item of each worker into
a timeout, which the crash review "confirmed" by running it again in a fresh worker (that had to
import TensorFlow again): 7 of 44 tiny items of ``tensorflow.split -k uneven -j 2``.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import pytest
import test_executor as executor

from conformance.engine import settings
from conformance.engine.deaths import Witness, death, overran_start
from conformance.engine.pool import Limits, Pool
from conformance.engine.worker import Job
from conformance.results.result import Result
from conformance.run.planning import plan
from conformance.verdict import crash_review


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "few.yaml").write_text(executor.CASES, encoding="utf-8")
    return tmp_path


def _start_limit(corpus: Path) -> float:
    """A start limit for the tests where a worker overruns it: ten times what starting a worker and
    running an item takes on this machine now (1.3 s alone, 6 s beside two busy loops on a loaded
    2-core machine), 4 s at least, so that only the worker meant to overrun it does."""
    started = time.monotonic()
    Pool(1, 60, lambda result: None).process(
        plan(executor.configured(corpus, "fake_adapters:Slicer")).jobs[:1]
    )
    return max(4.0, 10 * (time.monotonic() - started))


@pytest.mark.slow
def test_a_prepare_longer_than_the_timeout_times_out_no_item(corpus: Path) -> None:
    outcome = executor.run(corpus, "fake_adapters:SlowStart", jobs=2, timeout=1, prepare="2")
    assert [result.status for result in outcome.results] == ["pass"] * 8
    assert outcome.review_s == 0.0  # nothing died, so nothing was run again


@pytest.mark.slow
def test_loading_an_adapter_for_an_item_is_timed_as_a_start(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the worker prepared the first adapter; each of the others is loaded when its first item comes
    limit = _start_limit(corpus)
    monkeypatch.setattr(settings, "ENGINE", replace(settings.ENGINE, start_s=limit, start_timeouts=1))
    slicer = plan(executor.configured(corpus, "fake_adapters:Slicer")).jobs[:2]
    (slow, stuck) = plan(executor.configured(corpus, "fake_adapters:SlowStart")).jobs[:2]
    slow, stuck = replace(slow, options={"load": "2"}), replace(stuck, options={"load": "3600"})
    results: list[Result] = []
    Pool(1, 1, results.append).process([*slicer, slow, stuck])
    assert [result.status for result in results] == ["pass", "pass", "pass", "error"]
    assert results[2].worker is not None and results[2].worker["load_ms"] >= 2000  # over --timeout
    assert results[3].defect == "adapter" and results[3].message.startswith(
        f"loading the adapter took longer than {limit:g} s, before this item could run: the adapter's problem"
    )


def test_every_target_a_worker_meets_is_prepared_before_its_first_item_untimed(corpus: Path) -> None:
    """prepare(target) runs once per target in each worker, also for a target the worker did not
    start with: untimed (the load, not the item, and not against --timeout)."""
    slicer = plan(executor.configured(corpus, "fake_adapters:Slicer")).jobs[:3]
    later = [
        replace(job, options={"prepare": "1.5"})
        for job in plan(executor.configured(corpus, "fake_adapters:SlowStart")).jobs[:2]
    ]
    results: list[Result] = []
    Pool(1, 1, results.append).process([*slicer, *later])  # --timeout 1 s
    assert [result.status for result in results] == ["pass"] * 5
    first, second = (result.worker for result in results[3:])
    assert first is not None and second is not None
    assert first["load_ms"] >= 1500 and first["elapsed_ms"] - first["load_ms"] < 1000
    assert second.get("load_ms", 0.0) == 0.0 and second["elapsed_ms"] < 1000  # prepared once


@pytest.mark.slow
def test_a_prepare_past_the_start_limit_is_the_adapters_error_and_is_left_out_after(
    corpus: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    limit = _start_limit(corpus)
    monkeypatch.setattr(settings, "ENGINE", replace(settings.ENGINE, start_s=limit, start_timeouts=1))
    outcome = executor.run(corpus, "fake_adapters:SlowStart", jobs=1, timeout=1, prepare="3600")
    (stuck,) = [result for result in outcome.results if result.status != "pass"]
    assert stuck.status == "error" and stuck.defect == "adapter" and stuck.crash is None
    assert stuck.message.startswith(
        f"the worker's start (loading the adapter, its prepare()) took longer than {limit:g} s (phase prepare), "
        "before this item could run: the adapter's problem, not the item's"
    )
    assert len(outcome.results) == 8 and outcome.review_s == 0.0
    said = capsys.readouterr().err
    assert f"prepare() for slow-start/slices/cpu took longer than {limit:g} s; workers start without" in said


class SlowStarts:
    """A crash review's pool whose every worker overruns its start (see Pool._overran_start)."""

    size, limits = 1, Limits(1.0, 60.0, 1, 1, 2)

    def __init__(self, on_result: Callable[[Result], None], replay: bool) -> None:
        self.on_result, self.slow_starts = on_result, set[str]()

    def process(self, jobs: Sequence[Job]) -> None:
        for job in jobs:
            self.slow_starts.add(job.key)
            self.on_result(overran_start(job, self.limits.start_limit, "prepare", None, started=False))

    def close(self) -> None:
        pass


def nothing(_: object) -> None:
    """No result of the run's, no known issue."""


def test_the_crash_review_confirms_no_timeout_whose_rerun_never_started(corpus: Path) -> None:
    job = plan(executor.configured(corpus, "fake_adapters:Slicer")).jobs[0]
    witness = Witness("worker-1", 1, "killed after 1 s without a result", "run", "", None)
    died = death(job, "timeout", "no result within 1 s", witness, [])
    pools: crash_review.PoolMaker = SlowStarts  # type: ignore[assignment]
    review = crash_review.review([died], nothing, nothing, pools, lambda job: 0.1, 300, io.StringIO())
    (result,) = review.changed.values()
    assert result.status == "timeout" and result.crash is not None
    assert result.crash["outcome"] == "unconfirmed"
    said = "unconfirmed: not run again alone: its fresh worker did not start within 60 s"
    assert result.message.endswith(said)
    assert review.record["confirmed"] == 0 and review.record["unconfirmed"] == 1
