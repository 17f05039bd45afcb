"""``conformance diff``: new failures, fixes, status changes, and timing regressions beyond noise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from report_fixtures import document, result

from conformance.cli import main
from conformance.results import diff
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
    assert "pass -> fail" in text and text.endswith("FAILED: 2 new failure(s)")


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
    assert main(["diff", str(old), str(old), "--ratio", "0.5"]) == 2


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
