"""The backend-version comparison: verdicts, the report's Versions view, `conformance compat`, and the
run options a compatibility matrix needs (--label, --no-known-issues)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from report_fixtures import ROOT, document, mixed_document, result

from conformance import cli, report
from conformance.errors import UsageError
from conformance.results import combined, versions
from conformance.results.result import JSON
from conformance.run import planning

SIX = "doc-readme-6-into-4"


def _run_of(version: str, statuses: dict[tuple[str, str], str]) -> JSON:
    """One labelled onnxruntime run, as `conformance run --label onnxruntime@VERSION` writes it."""
    label = f"onnxruntime@{version}"
    results = [
        result(case, op, f"{label}/default/CPU", status=status, message=f"{status} under {version}")  # type: ignore[arg-type]
        for (case, op), status in statuses.items()
    ]
    body = document(results)
    for entry in body["adapters"]:
        entry.update(backend="onnxruntime", version=version)
    return body


def _matrix() -> list[JSON]:
    """Three releases (given out of order): one item fixed in 1.24.4, one broken in 1.31.1, one steady."""
    fixed, broken, steady = (SIX, "onnx.Split-18"), (SIX, "onnx.Split-13"), (SIX, "onnx.Split-11")
    return [
        _run_of("1.31.1", {fixed: "pass", broken: "fail", steady: "pass"}),
        _run_of("1.20.1", {fixed: "fail", broken: "pass", steady: "pass"}),
        _run_of("1.24.4", {fixed: "pass", broken: "pass", steady: "pass"}),
    ]


def test_steps_name_the_release_that_introduced_fixed_or_changed() -> None:
    order = ("1", "2", "3", "4")
    assert [str(s) for s in versions.steps(order, ("pass", "pass", "fail", "fail"))] == ["introduced in 3"]
    assert [str(s) for s in versions.steps(order, ("error", "fail", "pass", "pass"))] == [
        "changed in 2",
        "fixed in 3",
    ]
    # a version that did not run the item is skipped, not read as a change
    assert [str(s) for s in versions.steps(order, ("fail", None, "fail", "pass"))] == ["fixed in 4"]
    assert [str(s) for s in versions.steps(order, ("unsupported", "pass", "xfail", "xpass"))] == [
        "changed in 2",
        "introduced in 3",
        "fixed in 4",
    ]
    assert versions.steps(order, ("pass", None, "pass", "pass")) == ()


def test_versions_sort_in_release_order_not_as_text() -> None:
    found = sorted(["2025.4.1", "2024.10.0", "2024.6.0", "2026.0.0"], key=versions.version_key)
    assert found == ["2024.6.0", "2024.10.0", "2025.4.1", "2026.0.0"]
    assert sorted(["1.9.0", "1.20.1", "1.3"], key=versions.version_key) == ["1.3", "1.9.0", "1.20.1"]


def test_compare_finds_the_fix_and_the_regression_with_totals() -> None:
    (series,) = versions.compare(combined.combine(_matrix()))
    assert series.name == "onnxruntime/default/CPU"
    assert series.versions == ("1.20.1", "1.24.4", "1.31.1")
    assert series.labels == ("onnxruntime@1.20.1", "onnxruntime@1.24.4", "onnxruntime@1.31.1")
    verdicts = {row.item: (row.statuses, row.verdict, row.kind) for row in series.rows}
    assert verdicts == {
        f"{SIX}::onnx.Split-13": (("pass", "pass", "fail"), "introduced in 1.31.1", "introduced"),
        f"{SIX}::onnx.Split-18": (("fail", "pass", "pass"), "fixed in 1.24.4", "fixed"),
    }
    assert [dict(t) for t in series.totals] == [{"pass": 2, "fail": 1}, {"pass": 3}, {"pass": 2, "fail": 1}]
    assert series.steps_per_version() == {"1.20.1": {}, "1.24.4": {"fixed": 1}, "1.31.1": {"introduced": 1}}
    row = next(row for row in series.rows if row.kind == "fixed")
    assert row.messages == ("fail under 1.20.1", "pass under 1.24.4", "pass under 1.31.1")


def test_one_version_per_backend_makes_no_series() -> None:
    merged = combined.combine([mixed_document()])
    assert not versions.has_versions(merged)
    assert versions.compare(merged) == []
    assert "no backend ran under two or more versions" in versions.terminal([])


def test_the_report_has_a_versions_tab_only_for_several_versions() -> None:
    page = report.render(_matrix())
    assert 'data-view="versions"' in page and 'id="view-versions"' in page
    assert "fixed in 1.24.4" in page and "introduced in 1.31.1" in page
    plain = report.render([mixed_document()])
    assert 'data-view="versions"' not in plain and "view-versions" not in plain


def test_versions_verb_prints_the_verdicts_and_writes_a_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = []
    for number, body in enumerate(_matrix()):
        path = tmp_path / f"run{number}" / "results.json"
        path.parent.mkdir()
        path.write_text(json.dumps(body))
        paths.append(str(path))
    out = tmp_path / "versions.html"
    assert cli.main(["versions", *paths, "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "onnxruntime/default/CPU: 3 versions, 2 items change" in printed
    assert "fixed in 1.24.4" in printed and "introduced in 1.31.1" in printed
    html = out.read_text()
    assert "<script" not in html and "fixed in 1.24.4" in html


def test_versions_verb_refuses_mixed_corpora(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = _matrix()[:2]
    second["suite"]["digest"] = "sha256:" + "0" * 64
    paths = []
    for name, body in (("a.json", first), ("b.json", second)):
        (tmp_path / name).write_text(json.dumps(body))
        paths.append(str(tmp_path / name))
    assert cli.main(["versions", *paths]) == 2
    assert "suite digests differ" in capsys.readouterr().err


def test_label_must_name_one_adapter_and_hold_no_slash() -> None:
    planning.check_label("openvino@2024.6.0", ["openvino"])
    with pytest.raises(UsageError, match="exactly one --adapter"):
        planning.check_label("x@1", ["numpy", "torch"])
    with pytest.raises(UsageError, match="without '/'"):
        planning.check_label("a/b", ["numpy"])


@pytest.mark.slow
def test_no_known_issues_drops_the_shipped_list() -> None:
    shipped = planning.plan(planning.RunConfig(adapters=("onnxruntime",), ops=("onnx.Split-18",)))
    raw = planning.plan(
        planning.RunConfig(adapters=("onnxruntime",), ops=("onnx.Split-18",), known_issues=False)
    )
    assert shipped.issues and not raw.issues


@pytest.mark.slow
def test_run_with_label_writes_the_label_as_the_adapter(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tests")}
    command = [
        sys.executable,
        "-m",
        "conformance.cli",
        "run",
        "--cases",
        str(ROOT / "cases" / "indices.yaml"),
    ]
    command += ["--adapter", "fake_adapters:Slicer", "--label", "slicer@9.9", "--repeat", "1"]
    command += ["-k", "rank1", "--no-known-issues", "--out", str(tmp_path)]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr
    body = json.loads((tmp_path / "results.json").read_text())
    assert body["results"] and {r["adapter"] for r in body["results"]} == {"slicer@9.9"}
    assert {entry["name"] for entry in body["adapters"]} == {"slicer@9.9"}
    # the reproducer still names the real adapter, which is what reruns the item
    commands = [r["reproducer"]["command"] for r in body["results"] if r.get("reproducer")]
    assert all("fake_adapters:Slicer" in line for line in commands)
    bad = subprocess.run(
        [*command[:8], "--adapter", "numpy", "--label", "x"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2 and "exactly one --adapter" in bad.stderr
