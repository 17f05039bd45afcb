"""Findings: the non-pass results of a run grouped into distinct problems, stored in results.json,
printed at the end of a run and shown first in the report."""

from __future__ import annotations

import copy
import html
import json
from pathlib import Path

import pytest
from report_fixtures import mixed_document

from conformance.cli import main
from conformance.results import document
from conformance.results.findings import findings, masked

TESTS = Path(__file__).resolve().parent


def test_masking_keeps_the_problem_and_drops_what_varies() -> None:
    one = masked("Split size 2 exceeds the remaining size of 1 in 'split_node' at [[2, 3], [2, 3]]")
    two = masked("Split size 7 exceeds the remaining size of 5 in 'other_node' at [[1], [1], [5]]")
    assert one == two == "Split size # exceeds the remaining size of # in '…' at …"
    assert masked("known issue cpu-64bit-narrowed: output 0: 3 of 12 elements differ") == (
        "output #: # of # elements differ"
    )


def test_results_of_one_problem_are_one_finding_with_their_items() -> None:
    results = mixed_document()["results"]
    failing = [r for r in results if r["status"] not in ("pass", "xpass", "unsupported")]
    assert failing, "the fixture has failures"
    twin = copy.deepcopy(failing[0])
    twin["case"] = "another-case"
    found = findings([*results, twin])
    first = next(f for f in found if twin["case"] + "::" + twin["op"] in f["items"])
    assert first["count"] >= 2 and f"{failing[0]['case']}::{failing[0]['op']}" in first["items"]
    assert sum(f["count"] for f in found) == len(failing) + 1
    assert [f["count"] for f in found] == sorted((f["count"] for f in found), reverse=True)


@pytest.mark.slow
def test_a_run_writes_findings_and_prints_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(TESTS))
    status = main(
        [
            "run", "--adapter", "fake_adapters:Liar", "--option", "fake_adapters:Liar.on=indices-*",
            "--op", "numpy.array_split", "--tag", "indices", "--out", str(tmp_path), "--repeat", "0",
        ]
    )  # fmt: skip
    assert status == 1
    body = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert body["schema"] == "conformance.results/2"
    document.validate(body)
    found = body["findings"]
    failed = [r for r in body["results"] if r["status"] == "fail"]
    assert found and sum(f["count"] for f in found) == len(failed) > 1
    assert all(f["target"] == "liar/slices/cpu" and f["family"] == "numpy.array_split" for f in found)
    out = capsys.readouterr().out
    assert f"findings: {len(found)} distinct problems in {len(failed)} results" in out
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert 'class="findings"' in page and "distinct problems" in page


def test_a_version_1_file_still_reads() -> None:
    body = mixed_document()
    assert body["schema"] == "conformance.results/1" and "findings" not in body
    document.validate(body)


@pytest.mark.slow
def test_an_adapter_defect_names_what_failed_in_the_terminal_and_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The masked message groups the results (``No module named '…'``), but what the user needs
    is the name masking hides: the terminal, results.json and the report's defects table show
    the first result's own message."""
    monkeypatch.syspath_prepend(str(TESTS))
    status = main(
        [
            "run", "--adapter", "fake_adapters:AbsentBackend", "--op", "numpy.array_split",
            "--tag", "indices", "--out", str(tmp_path), "--repeat", "0",
        ]
    )  # fmt: skip
    assert status == 3  # defects: no verdict on the backend
    said = "No module named 'no_such_backend_module'"
    body = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    document.validate(body)
    defects = [result for result in body["results"] if result.get("defect") == "adapter"]
    assert len(defects) > 1 and masked(said) != said
    assert [(f["kind"], f["message"], f["count"]) for f in body["findings"]] == [
        ("adapter defect", said, len(defects))
    ]
    out = capsys.readouterr().out
    assert f"adapter defect: {said} [not a verdict on the backend]" in out, out
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    defects_table = page.split('class="findings defects-adapter"', 1)[1].split("</table>", 1)[0]
    assert f'<code class="message">{html.escape(said, quote=True)}</code>' in defects_table
