"""``conformance diff``: new failures, fixes, status changes, and timing regressions beyond noise."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from report_fixtures import document, result

from conformance.cli import main
from conformance.results import comparable, diff
from conformance.results.result import JSON, Result

SIX = "doc-readme-6-into-4"


def results(*bodies: JSON) -> list[Result]:
    return [Result.from_json(body) for body in bodies]


def test_new_failures_fixes_and_status_changes_are_told_apart() -> None:
    old = results(
        result(SIX, "torch.chunk", "torch/eager/cpu"),  # pass -> fail: new failure
        result(SIX, "torch.tensor_split", "torch/eager/cpu", status="fail"),  # fail -> pass: fix
        result(SIX, "onnx.Split-18", "numpy/emulated/cpu", status="xfail"),  # xfail -> xpass: fix
        result(SIX, "numpy.split", "numpy/emulated/cpu", status="error"),  # error -> crash: change
        result(SIX, "numpy.array_split", "numpy/emulated/cpu"),  # pass -> unsupported: change
        result(SIX, "torch.chunk", "numpy/emulated/cpu"),  # only in old
    )
    new = results(
        result(SIX, "torch.chunk", "torch/eager/cpu", status="fail"),
        result(SIX, "torch.tensor_split", "torch/eager/cpu"),
        result(SIX, "onnx.Split-18", "numpy/emulated/cpu", status="xpass"),
        result(SIX, "numpy.split", "numpy/emulated/cpu", status="crash"),
        result(SIX, "numpy.array_split", "numpy/emulated/cpu", status="unsupported"),
        result(SIX, "torch.tensor_split", "numpy/emulated/cpu", status="timeout"),  # new, and failing
    )
    found = diff.compare(old, new)
    keys = lambda changes: [c.key.split("@")[0].split("::")[1] + "@" + c.key.split("@")[1] for c in changes]  # noqa: E731
    assert keys(found.new_failures) == [
        "torch.chunk@torch/eager/cpu",
        "torch.tensor_split@numpy/emulated/cpu",
    ]
    assert keys(found.fixes) == ["torch.tensor_split@torch/eager/cpu", "onnx.Split-18@numpy/emulated/cpu"]
    assert keys(found.changes) == ["numpy.split@numpy/emulated/cpu", "numpy.array_split@numpy/emulated/cpu"]
    assert [r.op for r in found.added] == ["torch.tensor_split"] and [r.op for r in found.removed] == [
        "torch.chunk"
    ]
    assert found.compared == 5 and found.gate_fails
    text = diff.terminal(found)
    assert "new failures: 2" in text and "fixes: 2" in text and "other status changes: 2" in text
    assert "pass -> fail" in text and "FAILED" not in text
    # one result only in old and one only in new: the selections differ, so no verdict
    assert found.exit_status == 5
    assert text.endswith("NOT VALID: the runs do not compare (2 reason(s)); no verdict")


def timed(steady: tuple[float, ...]) -> list[Result]:
    return results(result(SIX, "torch.chunk", "torch/eager/cpu", steady=steady))


@pytest.mark.parametrize(
    ("old", "new", "regressed"),
    [
        ((1.0, 1.1, 0.9), (2.0, 2.1, 1.9), True),  # twice as slow, well apart: a regression
        ((1.0, 1.1, 0.9), (1.4, 1.4, 1.4), False),  # x1.4: under the ratio
        ((0.01, 0.011, 0.012), (0.05, 0.05, 0.05), False),  # x5 but 0.04 ms: under the floor
        ((1.0, 1.0, 3.0), (2.0, 2.0, 2.0), False),  # medians x2, but one old run was slower: overlap
        ((1.0, 1.0), (5.0, 5.0), False),  # two runs each: too few to judge
    ],
)
def test_timing_regressions_must_clear_ratio_floor_and_overlap(
    old: tuple[float, ...], new: tuple[float, ...], regressed: bool
) -> None:
    found = diff.compare(timed(old), timed(new))
    assert bool(found.regressions) is regressed
    assert not found.new_failures and not found.changes
    back = diff.compare(timed(new), timed(old))
    assert bool(back.improvements) is regressed and not back.regressions


def test_the_rule_is_explained_and_configurable() -> None:
    strict = diff.NoiseRule(ratio=1.2, floor_ms=0.01, min_runs=2)
    found = diff.compare(timed((1.0, 1.0, 1.0)), timed((1.3, 1.3, 1.3)), strict)
    assert [t.ratio for t in found.regressions] == pytest.approx([1.3])
    text = diff.terminal(found)
    assert "more than 1.2 x the old one AND more than 0.01 ms slower" in text
    assert "timing regressions: 1" in text and text.endswith("OK: no new failures")


def write(path: Path, *bodies: JSON) -> Path:
    path.write_text(json.dumps(document(list(bodies))), encoding="utf-8")
    return path


def test_diff_verb_exits_1_on_new_failures_and_writes_html(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = write(tmp_path / "old.json", result(SIX, "torch.chunk", "torch/eager/cpu"))
    bad = write(
        tmp_path / "bad.json",
        result(SIX, "torch.chunk", "torch/eager/cpu", status="fail", message="expected 3 outputs, got 4"),
    )
    page = tmp_path / "diff.html"
    assert main(["diff", str(old), str(bad), "--html", str(page)]) == 1
    out = capsys.readouterr().out
    assert "new failures: 1" in out and "expected 3 outputs, got 4" in out and f"wrote {page}" in out
    html = page.read_text(encoding="utf-8")
    assert "New failures: 1" in html and "expected 3 outputs, got 4" in html
    assert main(["diff", str(old), str(old)]) == 0
    assert main(["diff", str(old), str(tmp_path / "missing.json")]) == 2
    assert "missing.json" in capsys.readouterr().err
    with pytest.raises(SystemExit) as refused:  # refused where parsed, as every number is
        main(["diff", str(old), str(old), "--ratio", "0.5"])
    assert refused.value.code == 2


def test_a_diff_across_corpora_says_so() -> None:
    one = results(result(SIX, "torch.chunk", "torch/eager/cpu"))
    found = diff.compare(one, one, old_suite={"digest": "sha256:a"}, new_suite={"digest": "sha256:b"})
    assert "the case corpora differ" in diff.terminal(found)


def test_a_diff_of_files_sharing_no_result_says_so_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not "new failures: 0" and exit 0: nothing was compared, which CI must not read as green."""
    torch = write(tmp_path / "torch.json", result(SIX, "torch.chunk", "torch/eager/cpu"))
    numpy = write(tmp_path / "numpy.json", result(SIX, "numpy.array_split", "numpy/numpy/cpu"))
    assert main(["diff", str(torch), str(numpy)]) == 2
    err = capsys.readouterr().err
    assert "share no result" in err and "torch.json" in err and "numpy.json" in err


# --- whether two runs compare at all (conformance.results.comparable): exit 5 when they do not

CHUNK = result(SIX, "torch.chunk", "torch/eager/cpu")
SPLIT = result(SIX, "numpy.split", "numpy/emulated/cpu")
SHIPPED = {"id": "numpy-1", "reason": "r", "link": "", "source": "conformance_numpy/known_issues.yaml"}


def write_run(path: Path, results: list[JSON], **run: object) -> Path:
    """A results file of ``results`` whose run record has ``run``'s keys on top."""
    body = document(results)
    body["run"].update(run)
    path.write_text(json.dumps(body), encoding="utf-8")
    return path


def diff_of(old: Path, new: Path, capsys: pytest.CaptureFixture[str], *options: str) -> tuple[int, str]:
    status = main(["diff", str(old), str(new), *options])
    return status, capsys.readouterr().out


@pytest.mark.parametrize("side", ["old", "new"])
def test_an_interrupted_side_makes_the_comparison_not_valid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], side: str
) -> None:
    """Measured before: a complete run against an interrupted one missing 1,890 of its 2,520
    results said "OK: no new failures" and exited 0."""
    whole = write_run(tmp_path / "whole.json", [CHUNK, SPLIT])
    stopped = write_run(tmp_path / "stopped.json", [CHUNK, SPLIT], interrupted=True)
    old, new = (stopped, whole) if side == "old" else (whole, stopped)
    page = tmp_path / "diff.html"
    status, out = diff_of(old, new, capsys, "--html", str(page))
    assert status == 5
    assert f"{side.upper()} ({stopped}) was interrupted" in out and "no verdict\nwrote" in out
    html = page.read_text(encoding="utf-8")
    assert "The comparison is not valid" in html and "was interrupted" in html


def test_results_missing_from_new_make_the_comparison_not_valid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    everything = {"ops": [], "tags": [], "keyword": None, "items": [], "targets": [], "shard": None}
    old = write_run(tmp_path / "old.json", [CHUNK, SPLIT], selection=everything)
    new = write_run(tmp_path / "new.json", [CHUNK], selection={**everything, "ops": ["torch.chunk"]})
    for options in ((), ("--allow-new-items",)):  # allowing new items never excuses missing ones
        status, out = diff_of(old, new, capsys, *options)
        assert status == 5
        missing = f"{SIX}::numpy.split@numpy/emulated/cpu"
        assert f"1 result(s) of OLD ({old}) are not in NEW ({new}), e.g. {missing}" in out
        assert "(the runs' selections differ: ops [] -> ['torch.chunk'])" in out


def test_results_only_in_new_are_not_valid_unless_allowed_then_a_failing_one_is_new(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A CI baseline made before cases were added: --allow-new-items judges the new results."""
    old = write_run(tmp_path / "old.json", [CHUNK])
    grown = write_run(tmp_path / "grown.json", [CHUNK, SPLIT])
    status, out = diff_of(old, grown, capsys)
    assert status == 5 and "1 result(s) of NEW" in out and "--allow-new-items judges them" in out
    status, out = diff_of(old, grown, capsys, "--allow-new-items")
    assert status == 0 and "judged as new results (--allow-new-items)" in out
    failing = write_run(tmp_path / "failing.json", [CHUNK, {**SPLIT, "status": "fail"}])
    status, out = diff_of(old, failing, capsys, "--allow-new-items")
    assert status == 1 and f"absent -> fail        {SIX}::numpy.split@numpy/emulated/cpu" in out


def test_known_issues_applied_on_one_side_only_make_the_comparison_not_valid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Measured before: a run with known issues against a --no-known-issues run reported 255
    new failures (xfail -> error) without saying that the modes differed."""
    known = write_run(tmp_path / "known.json", [CHUNK, {**SPLIT, "status": "xfail", "known_issue": SHIPPED}])
    erring = [CHUNK, {**SPLIT, "status": "error"}]
    raw = write_run(tmp_path / "raw.json", erring, command=["conformance", "run", "--no-known"])
    status, out = diff_of(known, raw, capsys)
    assert status == 5 and "the known-issue modes differ" in out
    assert "applied the adapters' known issues" in out and "ran with --no-known-issues" in out
    # a resumed run's command does not tell: the results do (the list marks results of one side only)
    resumed = write_run(tmp_path / "resumed.json", erring, command=["conformance", "run", "--resume"])
    status, out = diff_of(known, resumed, capsys)
    assert status == 5
    assert "the known issues of conformance_numpy/known_issues.yaml mark 1 result(s) of OLD" in out


def test_a_known_issue_dropped_between_runs_of_the_same_mode_is_a_new_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both commands applied the shipped lists: an entry that stopped matching is the list's
    change, and its failure is new (not a mode difference)."""
    known = write_run(tmp_path / "known.json", [CHUNK, {**SPLIT, "status": "xfail", "known_issue": SHIPPED}])
    dropped = write_run(tmp_path / "dropped.json", [CHUNK, {**SPLIT, "status": "error"}])
    status, out = diff_of(known, dropped, capsys)
    assert status == 1 and "xfail -> error" in out


def test_only_old_failures_pass_the_gate_and_one_new_failure_fails_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = write_run(tmp_path / "old.json", [CHUNK, {**SPLIT, "status": "fail"}])
    same = write_run(tmp_path / "same.json", [CHUNK, {**SPLIT, "status": "crash"}])  # failing before too
    status, out = diff_of(old, same, capsys)
    assert status == 0 and out.rstrip().endswith("OK: no new failures")
    worse = write_run(tmp_path / "worse.json", [{**CHUNK, "status": "timeout"}, {**SPLIT, "status": "fail"}])
    status, out = diff_of(old, worse, capsys)
    assert status == 1 and out.rstrip().endswith("FAILED: 1 new failure(s)")
    assert f"pass -> timeout     {SIX}::torch.chunk@torch/eager/cpu" in out


@pytest.mark.parametrize(
    ("command", "mode"),
    [
        (["conformance", "run"], comparable.Mode(shipped=True)),
        (["conformance", "run", "--no-known-issues"], comparable.Mode(shipped=False)),
        (["conformance", "run", "--no-k", "-j", "2"], comparable.Mode(shipped=False)),  # argparse's prefix
        (
            ["conformance", "run", "--known-issues", "/ci/extra.yaml", "--known-issues=b.yaml"],
            comparable.Mode(shipped=True, files=("b.yaml", "extra.yaml")),
        ),
        (["conformance", "certify", "--adapter", "numpy"], comparable.Mode(shipped=True)),
        (["conformance", "run", "--resume"], None),  # the journal holds its options
        (["conformance", "run", "--res=reports"], None),
        (["pytest", "--conformance-no-known-issues"], None),  # pytest's ini files may add options
    ],
)
def test_the_known_issue_mode_is_read_from_the_recorded_command(
    command: list[str], mode: comparable.Mode | None
) -> None:
    assert comparable.command_mode(command) == mode


REAL_CASES = """\
defaults: {source: diff tests, data: {dtype: float32}, ops: [numpy.array_split]}
cases:
""" + "".join(
    f"  - {{id: case-{n}, title: t, data: {{shape: [{6 + n}, 2]}}, axis: 0, indices: [2, 4]}}\n"
    for n in range(3)
)


def real_run(corpus: Path, out: str, *options: str) -> Path:
    """``conformance run`` of the Liar test adapter on ``corpus``, as CI types it; its results.json."""
    tests = Path(__file__).resolve().parent
    command = ["run", "--cases", "cases", "--adapter", "fake_adapters:Liar", "--repeat", "0", "--out", out]
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", *command, *options],
        cwd=corpus,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(tests), str(tests.parent)])},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return corpus / out / "results.json"


@pytest.mark.slow
def test_the_ci_gate_on_two_real_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The documented gate (docs/results.md, "Gating CI on new regressions") on real runs: a case
    the adapter now answers wrong fails it, naming the case; the same run again passes it."""
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "few.yaml").write_text(REAL_CASES, encoding="utf-8")
    baseline = real_run(tmp_path, "baseline")
    broken = real_run(tmp_path, "broken", "--option", "fake_adapters:Liar.on=case-1")
    again = real_run(tmp_path, "again")
    assert main(["diff", str(baseline), str(broken), "--allow-new-items"]) == 1
    out = capsys.readouterr().out
    assert "pass -> fail        case-1::numpy.array_split@liar/slices/cpu" in out
    assert "new failures: 1" in out and out.rstrip().endswith("FAILED: 1 new failure(s)")
    assert main(["diff", str(baseline), str(again), "--allow-new-items"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("OK: no new failures")


def test_a_merge_of_runs_in_different_modes_does_not_compare() -> None:
    run = lambda *words: {"command": ["conformance", "run", *words]}  # noqa: E731
    assert comparable.mode_of({**run(), "merged": [run("--shard", "1/2"), run("--shard", "2/2")]}) == (
        comparable.Mode(shipped=True)
    )
    assert comparable.mode_of({**run(), "merged": [run(), run("--no-known-issues")]}) == "mixed"
    assert comparable.mode_of({**run(), "merged": [run(), run("--resume")]}) is None
