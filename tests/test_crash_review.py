"""The crash review: a crash is confirmed by a rerun alone in a fresh worker before it is judged,
and a worker broken by one item is blamed on that item, not on the next one that died.

The adapters are the fake ones (tests/fake_adapters.py): Poisoner leaves its process broken after
the item its ``on`` option names (the next item on that worker dies of SIGFPE, and passes
alone), as OpenVINO does after some invalid requests; Segfaulter and Hanger die or hang on their
own item every time.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from processes import start_cli

from conformance import publishing
from conformance.report.crashes_section import counted
from conformance.results import diff
from conformance.results import document as results_file
from conformance.run.planning import RunConfig, plan
from conformance.run.runner import ExecutionOutcome, execute

TESTS = Path(__file__).resolve().parent


def cases(per_kind: int) -> str:
    """``per_kind`` good cases and as many bad ones (the names say nothing to most adapters)."""
    head = (
        "defaults: {source: crash review tests, data: {dtype: float32}, ops: [numpy.array_split]}\ncases:\n"
    )
    return head + "".join(
        f"  - {{id: {name}-{n}, title: t, data: {{shape: [{6 + n}, 3]}}, axis: 0, indices: [1, 3]}}\n"
        for name in ("good", "bad")
        for n in range(per_kind)
    )


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "few.yaml").write_text(cases(4), encoding="utf-8")
    return tmp_path


def run(
    corpus: Path,
    adapter: str,
    jobs: int,
    budget: float = 300,
    timeout: float = 60,
    issues: tuple[Path, ...] = (),
    **options: str,
) -> ExecutionOutcome:
    config = RunConfig(
        case_paths=(str(corpus / "cases"),),
        adapters=(adapter,),
        options={adapter: options},
        jobs=jobs,
        timeout=timeout,
        repeat=1,
        out=corpus / "reports",
        crash_budget_s=budget,
        known_issue_files=issues,
    )
    return execute(plan(config), config)


@pytest.mark.slow
@pytest.mark.parametrize(("jobs", "on"), [(1, "good-1"), (2, "good-*")])
def test_the_item_that_broke_the_worker_is_named_and_the_victim_is_not_a_crash(
    corpus: Path, jobs: int, on: str
) -> None:
    # With two workers, which worker runs which item depends on how fast each starts: every good
    # item breaks its worker, so whichever worker runs one and then another item has a victim.
    (corpus / "cases" / "few.yaml").write_text(cases(12), encoding="utf-8")
    outcome = run(corpus, "fake_adapters:Poisoner", jobs, on=on)
    crashes = [r for r in outcome.results if r.status == "crash"]
    victims = {
        r.crash["culprit"]: r for r in outcome.results if r.crash and r.crash["outcome"] == "not reproduced"
    }
    assert crashes and {r.key for r in crashes} == set(victims), (
        "each culprit named by the item that died after it"
    )
    if jobs == 1:
        assert [r.case for r in crashes] == ["good-1"]
    for culprit in crashes:
        assert culprit.case.startswith("good-") and culprit.crash is not None
        assert culprit.message.startswith("leaves the process broken: the next item dies")
        assert culprit.crash["outcome"] == "culprit" and culprit.crash["own_status"] == "pass"
        assert culprit.crash["exit"] == "killed by SIGFPE"
        victim = victims[culprit.key]
        assert victim.status == "pass" and victim.crash is not None and victim.crash["rerun"] == "pass"
        assert culprit.crash["victim"] == victim.key
        assert "the last 1 then it kill a fresh worker, the last 0 then it do not" in victim.crash["search"]
        assert "died once on it in the run: killed by SIGFPE" in victim.message
    document = json.loads((corpus / "reports" / "results.json").read_text(encoding="utf-8"))
    review = document["run"]["crash_review"]
    assert outcome.review_s == review["spent_s"] > 0  # what the benchmark reports apart
    found = len(crashes)
    assert (review["reruns"], review["replays"], review["culprits"], review["unconfirmed"]) == (
        found,
        found,
        found,
        0,
    )
    results_file.validate(document)


@pytest.mark.slow
def test_the_culprits_reproducer_runs_it_then_the_victim_and_kills_the_worker_again(corpus: Path) -> None:
    outcome = run(corpus, "fake_adapters:Poisoner", 1, on="good-1")
    culprit = next(r for r in outcome.results if r.status == "crash")
    assert culprit.reproducer is not None
    line = culprit.reproducer["command"]
    words = shlex.split(line)
    assert words[words.index("-j") + 1] == "1"
    items = [words[i + 1] for i, word in enumerate(words) if word == "--item"]
    assert items == [culprit.item_id, culprit.crash["victim"].split("@")[0]]  # type: ignore[index]
    out = corpus / "again"
    command = [sys.executable, "-m", "conformance.cli", *words[1:], "--out", str(out)]
    environment = {**os.environ, "PYTHONPATH": f"{TESTS}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    done = subprocess.run(
        command, cwd=corpus, env=environment, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 1, done.stderr[-2000:]
    again = json.loads((out / "results.json").read_text(encoding="utf-8"))["results"]
    assert [(r["case"], r["status"]) for r in again] == [("good-1", "crash"), ("good-2", "pass")]


@pytest.mark.slow
def test_a_crash_of_the_items_own_is_confirmed_with_its_evidence(corpus: Path) -> None:
    outcome = run(corpus, "fake_adapters:Segfaulter", 1, on="bad-1")
    crash = next(r for r in outcome.results if r.case == "bad-1")
    assert crash.status == "crash" and crash.crash is not None
    evidence = crash.crash
    assert evidence["outcome"] == "confirmed" and evidence["rerun"] == "crash"
    assert evidence["exit"] == "killed by SIGSEGV" and evidence["phase"] == "run"
    assert evidence["ran_before"] == 5 and evidence["before"][-1].startswith("bad-0::numpy.array_split@")
    assert evidence["worker"] == "worker-1" and isinstance(evidence["pid"], int)
    assert "about to read address 0" in evidence["last_output"]
    assert "confirmed: run again alone in a fresh worker, it died again (killed by SIGSEGV)" in crash.message


@pytest.mark.slow
def test_a_timeout_is_rerun_too_and_says_in_which_phase_it_hung(corpus: Path) -> None:
    outcome = run(corpus, "fake_adapters:Hanger", 2, timeout=3, on="bad-2")
    hung = next(r for r in outcome.results if r.case == "bad-2")
    assert hung.status == "timeout" and hung.crash is not None
    assert hung.crash["outcome"] == "confirmed" and hung.crash["phase"] == "run"
    assert hung.crash["exit"] == "killed after 3 s without a result"


@pytest.mark.slow
def test_what_the_budget_cuts_short_stays_a_crash_and_says_it_is_unconfirmed(corpus: Path) -> None:
    outcome = run(corpus, "fake_adapters:Poisoner", 1, budget=0, on="good-1")
    crashed = [r for r in outcome.results if r.status == "crash"]
    assert len(crashed) == 1 and crashed[0].case != "good-1"
    assert crashed[0].crash is not None and crashed[0].crash["outcome"] == "unconfirmed"
    assert "unconfirmed: not run again alone" in crashed[0].message


def test_a_crash_a_known_issue_claims_is_not_run_again(corpus: Path) -> None:
    issues = corpus / "issues.yaml"
    issues.write_text(
        "known_issues:\n  - {id: segv-on-bad-1, items: ['bad-1::*'], statuses: [crash], "
        "reason: the fake backend segfaults there, link: 'https://example.org/1'}\n",
        encoding="utf-8",
    )
    outcome = run(corpus, "fake_adapters:Segfaulter", 1, issues=(issues,), on="bad-1")
    claimed = next(r for r in outcome.results if r.case == "bad-1")
    assert claimed.status == "xfail" and claimed.crash is not None
    assert claimed.crash["outcome"] == "known" and "rerun" not in claimed.crash
    assert "not run again alone: known issue segv-on-bad-1" in claimed.message
    review = json.loads((corpus / "reports" / "results.json").read_text(encoding="utf-8"))["run"][
        "crash_review"
    ]
    assert (review["known"], review["reruns"], review["replayed_items"]) == (1, 0, 0)


@pytest.mark.slow
def test_findings_the_report_and_diff_tell_a_crash_that_did_not_reproduce_apart(corpus: Path) -> None:
    clean = run(corpus, "fake_adapters:Slicer", 1)
    poisoned = run(corpus, "fake_adapters:Poisoner", 1, on="good-1")
    kinds = {finding["kind"]: finding["status"] for finding in poisoned.findings}
    assert kinds == {
        "leaves the process broken: a later item dies": "crash",
        "crashed the worker once, not alone in a fresh worker": "pass",
    }
    written = publishing.run_report(corpus / "reports" / "results.json")
    assert written is not None
    page = written.read_text(encoding="utf-8")
    assert "Crashes and timeouts: 1 culprit, 1 not reproduced" in page
    changes = diff.compare(clean.results, poisoned.results)
    assert [r.case for r in changes.died_once] == ["good-2"]
    assert [c.new.case for c in changes.new_failures if c.new] == ["good-1"]
    assert "crashes in new that did not reproduce alone (the rerun's verdict counts): 1" in diff.terminal(
        changes
    )


def test_the_reports_crash_heading_counts_outcomes_in_words_not_plurals() -> None:
    """Only "culprit" takes a plural: the new targets' 311 claimed deaths read "311 known", never
    "311 knowns" (nor "2 not reproduceds")."""
    counts = Counter({"known": 311, "not reproduced": 2, "culprit": 2, "confirmed": 1, "unconfirmed": 0})
    assert counted(counts) == "1 confirmed, 2 culprits, 2 not reproduced, 311 known"
    assert counted(Counter({"culprit": 1, "not reproduced": 1})) == "1 culprit, 1 not reproduced"


def _reviewed(out: Path) -> tuple[list[tuple[Any, ...]], dict[str, Any]]:
    """Each result's verdict and what the review made of it, and the review's counts."""
    document = json.loads((out / "results.json").read_text(encoding="utf-8"))
    said = ("outcome", "rerun", "search", "ran_before")
    verdicts = [
        (r["case"], r["status"], *((r.get("crash") or {}).get(k) for k in said)) for r in document["results"]
    ]
    review = {k: v for k, v in document["run"]["crash_review"].items() if k != "spent_s"}
    return verdicts, review


@pytest.mark.slow
def test_a_review_stopped_by_ctrl_c_is_finished_by_resume_as_if_it_had_not_stopped(corpus: Path) -> None:
    """The death of bad-1 does not come back alone: reviewed, it passes (exit 0); stopped in its
    review and resumed, the run reviews it all the same (it once stayed an unconfirmed crash)."""

    def run_command(out: str) -> list[str]:
        flaky = "fake_adapters:Flaky"
        options = ["on=bad-1", f"flag={corpus / out}.flag", "seconds=1.5"]
        given = [word for option in options for word in ("--option", f"{flaky}.{option}")]
        return ["run", "--cases", "cases", "--adapter", flaky, *given, "--repeat", "0", "--out", out]

    whole = start_cli(corpus, *run_command("whole"))
    _, err = whole.communicate(timeout=300)
    assert whole.returncode == 0, err
    stopped = start_cli(corpus, *run_command("stopped"))
    journal, deadline = corpus / "stopped" / "journal.jsonl", time.monotonic() + 120
    while "crash review started" not in (journal.read_text() if journal.exists() else ""):
        assert stopped.poll() is None and time.monotonic() < deadline, stopped.communicate()
        time.sleep(0.05)
    stopped.send_signal(signal.SIGINT)
    _, err = stopped.communicate(timeout=120)
    assert stopped.returncode == 130, err
    assert "crash review ended" not in journal.read_text()  # stopped inside the review
    resumed = start_cli(corpus, "run", "--resume", "--out", "stopped")
    _, err = resumed.communicate(timeout=300)
    assert "resuming: 1 item(s) died in the run and no crash review of them finished" in err
    assert "resuming: 8 results already journaled, 0 to go" in err
    assert resumed.returncode == whole.returncode, err
    assert _reviewed(corpus / "stopped") == _reviewed(corpus / "whole")
    (bad,) = (verdict for verdict in _reviewed(corpus / "whole")[0] if verdict[0] == "bad-1")
    assert bad[1:3] == ("pass", "not reproduced")  # a death that did not come back, reviewed
