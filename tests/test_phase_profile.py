"""The phase profile a run makes on request: each phase's time goes to the item's target, the time
before a worker's first item apart, collections to the phase they interrupt; workers write it."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from test_executor import corpus, run  # noqa: F401 (corpus is a fixture)

from conformance.run import phase_profile
from conformance.run.phase_profile import GC, NO_ITEM, PhaseProfile


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_each_phase_goes_to_the_target_of_the_item_it_belongs_to() -> None:
    clock = Clock()
    profile = PhaseProfile(None, clock)
    for phase, seconds in (("prepare", 2.0), ("between items", 3.0)):  # before any item
        profile.enter(phase)
        clock.now += seconds
    profile.item("a/r/cpu")  # the wait for the job so far stays with the time before any item
    clock.now += 0.5
    profile.enter("reference")
    clock.now += 1.0
    profile.enter("run")
    profile.collected("start", {})
    clock.now += 4.0
    profile.collected("stop", {})
    clock.now += 1.0
    profile.enter("between items")
    clock.now += 0.25
    profile.item("b/r/cpu")
    profile.enter("reference")
    clock.now += 7.0
    profile.enter("between items")
    seconds = profile.seconds
    assert seconds[NO_ITEM, "prepare"] == 2.0 and seconds[NO_ITEM, "between items"] == 3.0
    assert seconds["a/r/cpu", "between items"] == 0.5 + 0.25  # its own wait and the next job's
    assert seconds["a/r/cpu", "reference"] == 1.0
    assert seconds["a/r/cpu", "run"] == 5.0 and seconds["a/r/cpu", GC + "run"] == 4.0
    assert seconds["b/r/cpu", "reference"] == 7.0
    assert profile.items == Counter({"a/r/cpu": 1, "b/r/cpu": 1})


def test_the_workers_files_sum_up_and_print_per_item(tmp_path: Path) -> None:
    for pid, (items, reference) in enumerate(((3, 0.003), (1, 0.005))):
        record = {"pid": pid, "items": {"a/r/cpu": items}, "seconds": {"a/r/cpu": {"reference": reference}}}
        (tmp_path / f"{pid}.json").write_text(json.dumps(record), encoding="utf-8")
    items, seconds = phase_profile.totals(tmp_path)
    assert items == Counter({"a/r/cpu": 4}) and seconds["a/r/cpu"]["reference"] == pytest.approx(0.008)
    lines = phase_profile.table(items, seconds, ["reference", "judging"]).splitlines()
    assert lines[1].split() == ["a/r/cpu", "4", "2000", "0"]  # 8 ms over 4 items; no judging
    assert lines[2].split()[-2:] == ["0.01", "0.00"]


@pytest.mark.slow
def test_a_run_asked_for_a_profile_leaves_one_per_worker(
    corpus: Path,  # noqa: F811 (the fixture)
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = tmp_path / "profile"
    folder.mkdir()
    monkeypatch.setenv(phase_profile.VARIABLE, str(folder))
    outcome = run(corpus, "fake_adapters:Sleeper", jobs=2, seconds="0.05")
    items, seconds = phase_profile.totals(folder)
    ((target, count),) = items.items()
    assert count == len(outcome.results)  # every item, in the files of the workers that ran them
    ran = sum(result.timing.first_run_ms is not None for result in outcome.results)
    assert ran and seconds[target]["run"] >= 0.05 * ran  # each first run sleeps 50 ms
    harness = ("reference", "data", "support", "judging", "reporting")
    assert all(seconds[target][phase] > 0 for phase in harness)
    assert len(list(folder.glob("*.json"))) >= 1 and not list(folder.glob("*.tmp"))
