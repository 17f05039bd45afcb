"""The compatibility page's backend verdicts: a departure is marked on the rows it belongs to, a
column is never ✓ where results were not judged, and each row links to the report of the results
file its results came from.

The departure test runs the example vendor adapter with one planted bug (tests/acme_variants.py:
``DropsEmpty`` leaves out every empty piece) through ``conformance run``, as a vendor would, and
reads the page built from its results file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from report_fixtures import ROOT, document, result
from test_compat_page import _tables

from conformance import cli
from conformance.report import compat_markdown
from conformance.report.compat_wording import SYMBOLS
from conformance.results import compat_table
from conformance.results.behaviours import BEHAVIOURS
from conformance.results.combined import combine
from conformance.results.result import JSON

PATH = os.pathsep.join([str(ROOT / "tests"), str(ROOT / "examples" / "acme-adapter")])
CASES = ("count-7-into-3", "count-7-into-1", "count-0")


def _run_drops_empty(out: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "conformance.cli", "run", "--adapter", "acme_variants:DropsEmpty"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([PATH, os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [*command, "--out", str(out), "-j", "1", "--repeat", "0"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def drops_empty(tmp_path_factory: pytest.TempPathFactory) -> compat_table.CompatPage:
    """The page over a whole-corpus run of the ACME adapter that drops empty pieces."""
    out = tmp_path_factory.mktemp("drops-empty")
    done = _run_drops_empty(out)
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]  # unexplained findings: RED
    found = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return compat_table.build(combine([found]))


def _backend_cells(page: compat_table.CompatPage, adapter: str) -> dict[str, str]:
    """The backends table of the Markdown page: each row's anchor -> the adapter's cell."""
    head, *rows = _tables(compat_markdown.render(page, None))[1]
    column = head.index(adapter)
    return {row[0].rpartition("(#")[2].rstrip(")"): row[column] for row in rows if "(#" in row[0]}


@pytest.mark.slow
def test_a_planted_bug_departs_on_its_own_row_and_not_on_every_row_its_requests_fall_in(
    drops_empty: compat_table.CompatPage,
) -> None:
    rows = {row.behaviour.slug: row.verdicts["acme"] for row in drops_empty.rows}
    zero = rows["lengths-zero-piece"]  # every request of the row has an empty piece: each departs
    assert zero.word == "departs (unexplained)"
    assert zero.departing == zero.conforms + zero.departing > 0
    assert all(found.own == found.results for found in zero.departures.values())
    negative = rows["axis-negative"]  # a few negative-axis requests have an empty piece too
    assert negative.departing > 0 and negative.conforms > 10 * negative.departing
    assert negative.word == "departs for another row"
    assert all(found.own == 0 for found in negative.departures.values())
    cells = _backend_cells(drops_empty, "acme")
    assert cells["lengths-zero-piece"] == SYMBOLS["departs (unexplained)"][0]
    assert cells["axis-negative"] == SYMBOLS["departs for another row"][0]
    # the negative-axis row's section names the row its departures belong to
    markdown = compat_markdown.render(drops_empty, None)
    section = markdown[markdown.index('<a id="axis-negative">') :].split("\n### ", 1)[0]
    owners = {BEHAVIOURS[number].slug for found in negative.departures.values() for number in found.elsewhere}
    assert owners and "axis-negative" not in owners
    assert all(f"(#{slug})" in section for slug in owners)


def _keras(case: str, target: str, **changes: object) -> JSON:
    return result(case, "keras.ops.split", target, **changes)


def test_an_adapter_with_results_no_one_judged_is_never_shown_conforming() -> None:
    """Keras's numpy backend failed to import (adapter defects) while its torch backend conforms:
    no row of keras reads ✓; each says how many results were not judged, and where."""
    defect = {"status": "error", "defect": "adapter", "message": "adapter defect: No module named 'scipy'"}
    found = [_keras(case, "keras/torch/cpu") for case in CASES]
    found += [_keras(case, "keras/numpy/cpu", **defect) for case in CASES]
    page = compat_table.build(combine([document(found)]))
    cells = _backend_cells(page, "keras")
    for row in page.rows:
        verdict = row.verdicts["keras"]
        assert verdict.conforms == verdict.unjudged > 0  # as many judged on torch as not on numpy
        assert verdict.word == "not all judged"
        assert cells[row.behaviour.slug] == f"{SYMBOLS['not all judged'][0]} {verdict.unjudged}"
    section = "\n".join(compat_markdown.section(page, page.rows[0], None))
    assert "not judged (adapter defect) on `numpy/cpu`" in section


def test_an_interrupted_run_is_never_shown_conforming() -> None:
    found = document([_keras(case, "keras/torch/cpu") for case in CASES])
    assert {row.verdicts["keras"].word for row in compat_table.build(combine([found])).rows} == {"conforms"}
    found["run"]["interrupted"] = True
    page = compat_table.build(combine([found]))
    assert {row.verdicts["keras"].word for row in page.rows} == {"not all judged"}
    assert set(_backend_cells(page, "keras").values()) == {SYMBOLS["not all judged"][0]}


@cache
def _shards() -> tuple[JSON, JSON]:
    """Two results files of one target, as shards split items: the first holds count-7-into-3
    and numpy.split on count-7-into-1, the second count-0 and numpy.array_split on count-7-into-1."""
    target = "numpy/emulated/cpu"
    first = [result("count-7-into-3", op, target) for op in ("numpy.split", "numpy.array_split")]
    second = [result("count-0", op, target) for op in ("numpy.split", "numpy.array_split")]
    first.append(result("count-7-into-1", "numpy.split", target))
    second.append(result("count-7-into-1", "numpy.array_split", target))
    return document(first), document(second)


def test_a_page_of_several_results_files_links_each_row_to_the_reports_its_results_are_in(
    tmp_path: Path,
) -> None:
    paths = []
    for name, found in zip(("shard-a", "shard-b"), _shards(), strict=True):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "results.json").write_text(json.dumps(found), encoding="utf-8")
        (folder / "index.html").write_text("<!DOCTYPE html>", encoding="utf-8")
        paths.append(str(folder / "results.json"))
    page = tmp_path / "page.md"
    assert cli.main(["compat", *paths, "-o", str(page)]) == 0
    head, *rows = _tables(page.read_text(encoding="utf-8"))[0]
    cells = {row[0].partition("](#")[2].partition(")")[0]: row[0] for row in rows}
    link = "(shard-{}/index.html#view=compat&behaviour={})"
    assert link.format("a", "count-uneven") in cells["count-uneven"]
    assert "shard-b" not in cells["count-uneven"]
    assert link.format("b", "count-zero") in cells["count-zero"]
    assert "shard-a" not in cells["count-zero"]
    both = cells["count-divides"]  # count-7-into-1: one op's result in each file
    assert "in the reports: " in both
    assert f"[shard-a]{link.format('a', 'count-divides')}" in both
    assert f"[shard-b]{link.format('b', 'count-divides')}" in both
    markdown = page.read_text(encoding="utf-8")
    examples = markdown[markdown.index('<a id="count-zero">') :].split("\n### ", 1)[0]
    assert "(shard-b/index.html#view=compat&q=count-0)" in examples  # its example, in its own report
    assert "shard-a/" not in examples
