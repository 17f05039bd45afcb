"""The compatibility page: Split's behaviours by framework (``conformance compat``).

Its Markdown is parsed as GitHub reads pipe tables (every row as many cells as its header), and
the three requests the page exists to answer ("7 into 3", a -1 size that would be negative, a
split point past the end) are looked up in it: each op's answer must be the reference's, worked
out here from the expected output shapes, and each backend's verdict the one its results give.
The behaviour table is held equal to docs/compat.md, and every request of the corpus falls in a
row of it. Results come from the real corpus and reference (tests/report_fixtures.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import pytest
from report_fixtures import ROOT, corpus, document, hostile_document, result

from conformance import cli, publishing, report
from conformance.corpus.catalogue import applicable_ops
from conformance.report import compat_html, compat_markdown, viewdata
from conformance.results import behaviours, compat_table
from conformance.results.combined import combine
from conformance.results.evidence import params
from conformance.results.result import JSON

#: The requests the page must answer on one screen each, and the row they are found in.
ASKED = {
    "count-7-into-3": "count-uneven",
    "tf-sizes-minus1-past-dim": "minus-one-negative",
    "indices-past-end": "points-past-end",
}
ISSUE = {
    "id": "split18-last-chunk",
    "reason": "a wrong last piece",
    "link": "https://example.org/i/1",
    "source": "k.yaml",
}
#: Which targets run which ops: every op on a NumPy emulation, each framework's on its own.
TARGETS = {
    "numpy/emulated/cpu": "",
    "onnxruntime/default/cpu": "onnx.",
    "torch/eager/cpu": "torch.",
    "torch/export/cpu": "torch.",
}


def _result(case: str, op: str, target: str) -> JSON:
    """Every result conforms but two: Split-18 on ONNX Runtime is a known issue on "7 into 3",
    torch.split on torch.export departs unexplained on the negative -1."""
    if case == "count-7-into-3" and op == "onnx.Split-18" and target.startswith("onnxruntime"):
        return result(case, op, target, status="xfail", known_issue=ISSUE)
    if case == "tf-sizes-minus1-past-dim" and op == "torch.split" and target == "torch/export/cpu":
        return result(case, op, target, status="fail", message="accepted")
    return result(case, op, target)


@cache
def _document() -> JSON:
    found = [
        _result(case, op, target)
        for case in [*ASKED, "count-7-into-1", "count-0"]
        for op in applicable_ops(corpus().by_id(case))
        for target, prefix in TARGETS.items()
        if op.startswith(prefix)
    ]
    return document(found)


@cache
def _page() -> compat_table.CompatPage:
    return compat_table.build(combine([_document()]))


def _cells(line: str) -> list[str]:
    """A pipe-table row's cells, as GitHub splits them: at every ``|`` not escaped by a backslash."""
    inner = line.strip().removeprefix("|").removesuffix("|")
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", inner)]


def _tables(markdown: str) -> list[list[list[str]]]:
    """Every pipe table: its header, then its rows (the delimiter row checked and left out)."""
    tables: list[list[list[str]]] = []
    lines = markdown.splitlines()
    for number, line in enumerate(lines[:-1]):
        if line.startswith("|") and re.fullmatch(r"\|( --- \|)+", lines[number + 1]):
            if number and lines[number - 1].startswith("|"):
                continue
            rows = [_cells(line)]
            for following in lines[number + 2 :]:
                if not following.startswith("|"):
                    break
                rows.append(_cells(following))
            tables.append(rows)
    return tables


def _section(markdown: str, slug: str) -> str:
    start = markdown.index(f'<a id="{slug}"></a>')
    end = markdown.find("\n### ", start)
    return markdown[start : end if end > 0 else len(markdown)]


def _pieces(case: str, op: str) -> str:
    """The reference's answer worked out here: the output shapes' sizes along the case's axis."""
    expected = result(case, op, "numpy/emulated/cpu")["expected"]
    if "rejected" in expected:
        return "error"
    axis = corpus().by_id(case).axis
    return ",".join(str(output["shape"][axis]) for output in expected["outputs"])


def _names(label: str) -> set[str]:
    """The op names a label stands for: ``Split-1/2/11`` is Split-1, Split-2 and Split-11."""
    found = set()
    for name in label.replace("\\_", "_").split(", "):
        stem, dash, versions = name.rpartition("-")
        found |= {f"{stem}-{version}" for version in versions.split("/")} if dash else {name}
    return found


def test_every_markdown_table_row_has_as_many_cells_as_its_header() -> None:
    tables = _tables(compat_markdown.render(_page(), "index.html"))
    assert len(tables) == 2 + 2 * len(_page().rows)  # the two overviews, then two a behaviour
    for table in tables:
        assert {len(row) for row in table} == {len(table[0])}, table[0]


@pytest.mark.parametrize(("case", "slug"), ASKED.items())
def test_the_page_answers_what_each_spec_says_and_which_backends_depart(case: str, slug: str) -> None:
    markdown = compat_markdown.render(_page(), "index.html")
    section = _section(markdown, slug)
    assert f"(1) [{compat_markdown.text(corpus().by_id(case).title)}]" in section  # the request itself, first
    specs, backends = _tables(section)
    answers = {(row[0], name): row[2] for row in specs[1:] for name in _names(row[1])}
    ops = applicable_ops(corpus().by_id(case))
    for op in ops:
        framework = compat_table.FRAMEWORKS[compat_table.family(op)]
        assert answers[(framework, compat_table.op_label(op))] == f"`{_pieces(case, op)}`", op
    verdicts = {row[0]: row[1] for row in backends[1:]}  # on the request itself: a symbol and counts
    rows = {row[0]: row[-1] for row in backends[1:]}  # on all the row's requests, in words
    ran = {t.split("/")[0] for t, prefix in TARGETS.items() if any(o.startswith(prefix) for o in ops)}
    assert set(verdicts) == ran  # the adapters that ran none of the row's requests are left out
    departing = {"count-7-into-3": "onnxruntime", "tf-sizes-minus1-past-dim": "torch"}.get(case)
    for adapter, verdict in verdicts.items():
        if adapter == departing:
            assert verdict.startswith("**✗") and rows[adapter].startswith("**departs")
        else:
            assert (verdict, rows[adapter]) == ("**✓**", "**conforms**"), adapter
    if case == "count-7-into-3":
        assert f"[`{ISSUE['id']}`]({ISSUE['link']})" in verdicts["onnxruntime"]
        assert f"[`{ISSUE['id']}`]({ISSUE['link']})" in rows["onnxruntime"]
    if case == "tf-sizes-minus1-past-dim":
        assert verdicts["torch"] == "**✗ ?** 1 of 2 depart"  # one of torch.split's two results
        said = rows["torch"]  # the row holds this request alone: the same result, in words
        assert said.startswith("**departs (unexplained)**<br>1 of 2 depart: `") and said.endswith(
            " on `export/cpu`"
        )


def test_the_first_table_gives_each_framework_its_ops_answers_to_the_example() -> None:
    head, *rows = _tables(compat_markdown.render(_page(), "index.html"))[0]
    row = next(row for row in rows if "(#count-uneven)" in row[0])
    cells = dict(zip(head, row, strict=True))
    assert cells["Example request"] == "`float32 [3,7] axis 1, parts 3`"
    assert cells["PyTorch"] == "`3,2,2` tensor\\_split<br>`3,3,1` chunk"
    assert cells["ONNX"] == "`error` Split-1/2/11/13<br>`3,3,1` Split-18"
    assert "index.html#view=compat&behaviour=count-uneven" in row[0]
    backends = _tables(compat_markdown.render(_page(), "index.html"))[1]
    uneven = next(row for row in backends[1:] if "(#count-uneven)" in row[0])
    assert dict(zip(backends[0], uneven, strict=True))["onnxruntime"] == "✗ [1](#ki-1)"
    assert dict(zip(backends[0], uneven, strict=True))["numpy"] == "✓"


def test_a_row_holds_every_request_that_exercises_it() -> None:
    page = _page()
    rows = {row.behaviour.slug: row for row in page.rows}
    assert set(rows["count-uneven"].cases) == {"count-7-into-3"}
    assert set(rows["count-zero"].cases) == {"count-0"}
    assert "count-7-into-1" in rows["count-divides"].cases
    assert rows["count-uneven"].verdicts["torch"].word == "conforms"
    assert rows["minus-one-negative"].verdicts["torch"].unexplained == {"torch/export/cpu": 1}


def _slugs(rows: Sequence[int]) -> list[str]:
    return [behaviours.BEHAVIOURS[number].slug for number in rows]


def test_a_case_without_an_axis_is_read_on_each_ops_own_default() -> None:
    case = corpus().by_id("indices-default-axis")  # [10, 3] at [4, 6]: past the end on hsplit's axis 1
    rows = behaviours.Classifier().rows
    by_op = {op: _slugs(rows(case.id, op, params(case))) for op in ("numpy.split", "numpy.hsplit")}
    assert "points-sorted" in by_op["numpy.split"] and "points-past-end" not in by_op["numpy.split"]
    assert "points-past-end" in by_op["numpy.hsplit"]


def test_every_request_of_the_corpus_falls_in_a_behaviour_and_every_example_exists() -> None:
    found = behaviours.Classifier()
    cases = {case.id: case for case in corpus().cases}
    empty = [
        f"{case.id}::{op}"
        for case in cases.values()
        for op in applicable_ops(case)
        if not found.rows(case.id, op, params(case))
    ]
    assert empty == []
    named = {case for behaviour in behaviours.BEHAVIOURS for case in behaviour.prefer}
    assert named - set(cases) == set()


def test_a_malformed_graph_is_in_its_own_row_alone() -> None:
    case = corpus().by_id("malformed-num-outputs-more-uneven")
    rows = behaviours.Classifier().rows(case.id, "onnx.Split-18", params(case))
    assert _slugs(rows) == ["declared-outputs"]


def test_docs_compat_md_lists_every_behaviour() -> None:
    text = (ROOT / "docs" / "compat.md").read_text(encoding="utf-8")
    table = next(t for t in _tables(text) if t[0][0] == "slug")
    documented = [(row[0].strip("`"), row[1], row[2], row[4].strip("`")) for row in table[1:]]
    assert documented == [(b.slug, b.title, b.group, "`, `".join(b.prefer)) for b in behaviours.BEHAVIOURS]


def test_answers_abbreviate_many_pieces_and_say_when_the_axis_is_dropped() -> None:
    shape = [3, 16]
    assert compat_table.pieces_text([[3, 1]] * 16, shape, 1) == "16 of 1"
    assert compat_table.pieces_text([[3, 1]] * 7 + [[3, 0]], [3, 7], 1) == "7 of 1, 0"
    assert compat_table.pieces_text([[3, n] for n in range(1, 11)], [3, 55], 1) == "1,2,3,4,…,10 (10 pieces)"
    assert compat_table.pieces_text([[3]] * 2, [3, 2], 1) == "2 pieces, axis dropped"


def test_the_html_page_is_static_and_every_string_stays_text() -> None:
    html = compat_html.render(compat_table.build(combine([hostile_document()])), "index.html")
    assert "<script" not in html and "<img" not in html  # no script at all; the data's tags as text
    assert 'href="javascript' not in html  # a known issue's javascript: link is shown, never followed


def test_a_markdown_renderer_reads_the_same_tables_and_no_tag_from_the_data() -> None:
    """CommonMark with GitHub's tables (markdown-it, where installed) renders every table with
    as many cells a row as its header, and the hostile strings as text."""
    markdown_it = pytest.importorskip("markdown_it")
    render = markdown_it.MarkdownIt("commonmark", {"html": True}).enable("table").render
    for document_ in (_document(), hostile_document()):
        html = render(compat_markdown.render(compat_table.build(combine([document_])), "index.html"))
        tables = re.findall(r"<table>(.*?)</table>", html, re.S)
        assert len(tables) == 2 + 2 * len(compat_table.build(combine([document_])).rows)
        for found in tables:
            head, body = found.split("</thead>")
            width = len(re.findall(r"<th[ >]", head))
            rows = re.findall(r"<tr>(.*?)</tr>", body, re.S)
            assert {len(re.findall(r"<td[ >]", row)) for row in rows} == {width}
        assert "<script" not in html and "<img" not in html


def test_hostile_strings_cannot_break_the_markdown() -> None:
    markdown = compat_markdown.render(compat_table.build(combine([hostile_document()])), "index.html")
    for table in _tables(markdown):
        assert {len(row) for row in table} == {len(table[0])}
    outside_code = re.sub(r"`[^`\n]*`", "", markdown)
    ours = r"br>|a id=\"[a-z0-9-]+\"></a>|/a>|!-- Operator conformance"
    tags = re.findall(rf"(?<!\\)<(?!{ours})[^\n]{{0,20}}", outside_code)
    assert tags == []  # every < from the data is escaped; only the page's own <br> and anchors stay
    assert "](javascript:" not in markdown


def test_the_report_data_gives_each_item_its_behaviours() -> None:
    data = viewdata.view_data(combine([_document()]))
    slugs = [row["slug"] for row in data["behaviours"]]
    at = data["fields"]["items"]
    cases = [case["id"] for case in data["cases"]]
    for item in data["items"]:
        if data["s"][cases[item[at["case"]]]] == "count-7-into-3":
            assert slugs.index("count-uneven") in data["bsets"][item[at["behaviours"]]]


def test_compat_verb_writes_html_and_markdown_and_refuses_what_it_cannot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "run" / "results.json"
    results.parent.mkdir()
    results.write_text(__import__("json").dumps(_document()), encoding="utf-8")
    (results.parent / "index.html").write_text("<!DOCTYPE html>", encoding="utf-8")
    html, markdown = tmp_path / "out" / "page.html", tmp_path / "out" / "page.md"
    assert cli.main(["compat", str(results), "-o", str(html), "-o", str(markdown)]) == 0
    assert "../run/index.html#view=compat&behaviour=count-uneven" in markdown.read_text(encoding="utf-8")
    assert html.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert cli.main(["compat", str(results), "-o", str(markdown), "--report", "https://ci/r.html"]) == 0
    assert "https://ci/r.html#view=compat" in markdown.read_text(encoding="utf-8")
    foreign = tmp_path / "notes.md"
    foreign.write_text("my notes\n", encoding="utf-8")
    assert cli.main(["compat", str(results), "-o", str(foreign)]) == 2
    assert cli.main(["compat", str(results), "-o", str(tmp_path / "page.txt")]) == 2
    assert foreign.read_text(encoding="utf-8") == "my notes\n"
    assert "not a page the suite wrote" in capsys.readouterr().err


def test_a_run_writes_the_page_beside_its_report_and_leaves_a_foreign_one_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "results.json"
    results.write_text(__import__("json").dumps(_document()), encoding="utf-8")
    (tmp_path / "compat.md").write_text("mine\n", encoding="utf-8")
    assert publishing.run_report(results) == tmp_path / "index.html"
    html = (tmp_path / "compat.html").read_text(encoding="utf-8")
    sections = re.findall(r'<section id="([a-z0-9-]+)" class="behaviour">', html)
    assert sections == [row.behaviour.slug for row in _page().rows]
    assert (tmp_path / "compat.md").read_text(encoding="utf-8") == "mine\n"
    assert "compat.md was not written" in capsys.readouterr().err
    (tmp_path / "compat.md").unlink()
    publishing.run_report(results)
    assert (tmp_path / "compat.md").read_text(encoding="utf-8").startswith(compat_markdown.MARKER)


def test_versions_is_no_longer_called_compat(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["compat", "--help"])
    assert "write the compatibility page" in " ".join(capsys.readouterr().out.lower().split())
    assert report.COMPAT_FORMATS.keys() == {".html", ".md"}


def test_a_request_names_the_inputs_fed_at_run_time_only() -> None:
    params = {
        "data": {"shape": [2, 5], "dtype": "float32"},
        "slice": {"starts": [-1], "ends": [-2147483648], "axes": [1], "steps": [-2]},
        "graph": {
            "inputs": {"starts": "runtime", "ends": "runtime", "axes": "constant", "steps": "constant"},
            "index_dtype": "int32",
        },
    }
    assert viewdata.request_text(params) == (
        "float32 [2,5] slice starts [-1], ends [-2147483648], axes [1], steps [-2] "
        "(inputs={starts: runtime, ends: runtime}, index_dtype=int32)"
    )
