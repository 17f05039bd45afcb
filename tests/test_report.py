"""The HTML report: summary counts and pass rates, the embedded data, merging, timing and
bandwidth, and the wiring into ``conformance report`` and ``conformance run``."""

from __future__ import annotations

import json
import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest
from report_fixtures import ROOT, corpus, document, mixed_document, result

from conformance import report
from conformance.cli import main
from conformance.errors import ResultsFileError
from conformance.report import page, viewdata
from conformance.report import viewdata as model
from conformance.results import combined
from conformance.statuses import STATUSES


class Tables(HTMLParser):
    """Every table of a page as rows of cell texts, keyed by the table's class."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self._current: list[list[str]] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._current = self.tables.setdefault(dict(attrs).get("class") or "", [])
        elif tag == "tr" and self._current is not None:
            self._current.append([])
        elif tag in ("td", "th") and self._current is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._current is not None:
            self._current[-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "table":
            self._current = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def tables(html: str) -> dict[str, list[list[str]]]:
    parser = Tables()
    parser.feed(html)
    return parser.tables


def embedded(html: str) -> dict:  # type: ignore[type-arg]
    match = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S)
    assert match, "the page embeds its data"
    return json.loads(match.group(1))  # type: ignore[no-any-return]


def test_summary_counts_equal_the_results_counts() -> None:
    doc = mixed_document()
    counts = tables(report.render([doc]))["counts"]
    header = counts[0]
    expected: dict[str, Counter[str]] = {}
    for r in doc["results"]:
        expected.setdefault(f"{r['adapter']}/{r['route']}/{r['device']}", Counter())[r["status"]] += 1
    for row in counts[1:]:
        target = row[0]
        want = expected[target] if target != "all" else sum(expected.values(), Counter())
        for column, cell in zip(header[1:], row[1:], strict=False):
            status = column.split()[-1]
            if status in STATUSES:
                assert int(cell) == want[status], (target, status)
        assert int(row[header.index("total")]) == sum(want.values())
    assert {row[0] for row in counts[1:]} == {*expected, "all"}


def test_pass_rate_per_op_version_excludes_unsupported_and_counts_xfail_as_not_passing() -> None:
    results = [
        result("indices-rank1", "torch.tensor_split", "torch/eager/cpu"),
        result("indices-rank1", "torch.tensor_split", "torch/export/cpu", status="xfail"),
        result("indices-rank1", "numpy.array_split", "torch/eager/cpu", status="unsupported"),
        result("indices-rank1", "numpy.array_split", "torch/export/cpu"),
    ]
    rates = tables(report.render([document(results)]))["rates"]
    header, rows = rates[0], {row[0]: row for row in rates[1:]}
    column = {name: header.index(name) for name in ("torch/eager/cpu", "torch/export/cpu", "all")}
    assert rows["torch.tensor_split"][column["torch/eager/cpu"]] == "100.0% 1/1"
    assert rows["torch.tensor_split"][column["torch/export/cpu"]] == "0.0% 0/1"
    assert rows["torch.tensor_split"][column["all"]] == "50.0% 1/2"
    assert rows["numpy.array_split"][column["torch/eager/cpu"]] == "n/a 0/0"  # only unsupported: not judged
    assert rows["numpy.array_split"][column["all"]] == "100.0% 1/1"


def test_the_embedded_data_holds_every_result() -> None:
    doc = mixed_document()
    data = embedded(report.render([doc]))
    strings = data["s"]
    at, item_at = data["fields"]["res"], data["fields"]["items"]
    seen = set()
    for row in data["res"]:
        item = data["items"][row[at["item"]]]
        case = strings[data["cases"][item[item_at["case"]]]["id"]]
        seen.add(
            (
                case,
                data["ops"][item[item_at["op"]]],
                data["targets"][row[at["target"]]]["id"],
                data["statuses"][row[at["status"]]],
                strings[row[at["message"]]],
            )
        )
    wanted = {
        (r["case"], r["op"], f"{r['adapter']}/{r['route']}/{r['device']}", r["status"], r["message"])
        for r in doc["results"]
    }
    assert seen == wanted and len(data["res"]) == len(doc["results"])


def test_a_case_s_parameters_are_stored_once_however_many_targets() -> None:
    targets = ["numpy/emulated/cpu", "torch/eager/cpu", "torch/export/cpu"]
    doc = document([result("indices-rank1", "torch.tensor_split", target) for target in targets])
    data = embedded(report.render([doc]))
    assert len(data["cases"]) == 1 and len(data["res"]) == 3
    assert data["cases"][0]["p"]["data"] == {"shape": [9], "dtype": "float32", "fill": "arange"}


def test_merging_refuses_results_of_different_corpora() -> None:
    one = document([result("indices-rank1", "numpy.split")])
    other = document([result("indices-rank1", "numpy.split")], digest="sha256:" + "0" * 64)
    with pytest.raises(ResultsFileError, match=r"different case corpora.*sha256:0000"):
        report.render([one, other], ["a.json", "b.json"])


def test_merging_lays_later_files_over_earlier_ones() -> None:
    first = document(
        [result("indices-rank1", "numpy.split", status="fail"), result("indices-rank1", "numpy.array_split")]
    )
    rerun = document(
        [
            result("indices-rank1", "numpy.split"),
            result("indices-rank1", "torch.tensor_split", "torch/eager/cpu", status="unsupported"),
        ]
    )
    merged = combined.combine([first, rerun])
    statuses = {(r["op"], r["adapter"]): r["status"] for r in merged.results}
    assert statuses == {
        ("numpy.split", "numpy"): "pass",
        ("numpy.array_split", "numpy"): "pass",
        ("torch.tensor_split", "torch"): "unsupported",
    }
    assert merged.replaced == 1
    assert [t["id"] for t in merged.targets] == ["numpy/emulated/cpu", "torch/eager/cpu"]


def test_large_cases_get_an_effective_bandwidth_next_to_the_memory_copy() -> None:
    large = result("indices-large", "numpy.array_split", steady=(1.0, 1.0, 1.0))
    data = large["params"]["data"]
    size = model.data_bytes(large["params"])
    assert size is not None and size >= 1 << 20, data
    html = report.render(
        [
            document(
                [large, result("indices-rank1", "numpy.split")],
                memcpy=[{"bytes": 1 << 20, "gbps": 40.0}, {"bytes": 64 << 20, "gbps": 10.0}],
            )
        ]
    )
    rows = tables(html)["bandwidth"]
    assert len(rows) == 2  # the header and the one large case; the small one has no bandwidth
    gbps = 2 * size / 1e-3 / 1e9
    assert rows[1][4] == f"{gbps:.2f} GB/s"
    near = "10.0 GB/s @ 64 MiB" if size > 8 << 20 else "40.0 GB/s @ 1 MiB"
    assert rows[1][5] == near
    assert "<svg" in html and "time per phase and target" in html


def test_the_page_forbids_the_network_and_allows_only_its_own_script() -> None:
    html = report.render([mixed_document()])
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert policy
    text = policy.group(1).replace("&#x27;", "'")
    assert "default-src 'none'" in text and "connect-src 'none'" in text and "img-src data:" in text
    assert "unsafe-inline" not in text and "unsafe-eval" not in text
    script = page.script_text()
    assert page._hash(script) in text and f"<script>{script}</script>" in html
    assert not re.search(r'\ssrc="', html)  # nothing loaded from anywhere
    assert re.findall(r"<link [^>]*>", html) == ['<link rel="icon" href="data:,">']
    # the only outside addresses are links a reader may follow (a known issue's), never loaded
    assert all(re.match(r'<a href="https://', found) for found in re.findall(r"<[a-z]+ [^>]*https?://", html))


def test_embedded_json_cannot_close_its_script_element() -> None:
    hostile = {"a": "</script><script>alert(1)</script>", "b": "<!--", "c": "\u2028\u2029", "d": "&amp;"}
    text = page.embed_json(hostile)
    assert not set(text) & {"<", ">", "&", "\u2028", "\u2029"}
    assert json.loads(text) == hostile


def test_case_titles_and_notes_come_from_the_results_not_from_files_at_hand(tmp_path: Path) -> None:
    """The report needs nothing but the results file: titles and notes travel in each result's params."""
    document = mixed_document()
    first = document["results"][0]
    first["params"]["title"], first["params"]["note"] = "a title only the results hold", "and a note"
    data = viewdata.view_data(combined.combine([document]))
    strings = data["s"]
    case = data["cases"][0]
    assert (strings[case["t"]], strings[case["n"]]) == ("a title only the results hold", "and a note")


def test_report_verb_writes_the_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "results.json"
    source.write_text(json.dumps(mixed_document()), encoding="utf-8")
    out = tmp_path / "out" / "report.html"
    assert main(["report", str(source), "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert f"wrote {out}" in capsys.readouterr().out
    assert main(["report", str(tmp_path / "missing.json"), "-o", str(out)]) == 2
    assert "missing.json" in capsys.readouterr().err
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"schema": "something/2"}), encoding="utf-8")
    assert main(["report", str(other), "-o", str(out)]) == 2


CASES = """\
defaults: {source: report tests, data: {dtype: float32}, ops: [numpy.array_split]}
cases:
  - {id: two-points, title: 'split at 1 and 3', data: {shape: [6, 3]}, axis: 0, indices: [1, 3]}
"""


@pytest.mark.slow
def test_every_run_writes_the_report_and_a_broken_report_costs_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "few.yaml").write_text(CASES, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(ROOT / "tests"))
    argv = ["run", "--adapter", "fake_adapters:Slicer", "--out", "out", "--repeat", "1"]
    assert main(argv) == 0
    page_text = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert "two-points" in page_text and "split at 1 and 3" in page_text  # the title, from the case file
    assert "out/index.html" in capsys.readouterr().out

    def broken(*args: object, **kwargs: object) -> Path:
        raise RuntimeError("renderer exploded")

    monkeypatch.setattr(report, "render_combined", broken)
    (tmp_path / "out" / "index.html").unlink()
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "warning: the HTML report was not written: RuntimeError: renderer exploded" in captured.err
    assert (tmp_path / "out" / "results.json").exists() and not (tmp_path / "out" / "index.html").exists()


def test_corpus_fixture_is_the_real_one() -> None:
    assert corpus().by_id("doc-readme-6-into-4")
