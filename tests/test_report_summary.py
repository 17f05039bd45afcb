"""The summary opens on the answer: the verdict in words, pass rates per target and op family, the
unexplained findings, adapter and harness defects apart, the known findings folded, the run's
details last. Checked on the rendered HTML (the browser tests check what a reader sees)."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qs

import pytest
from report_fixtures import WIDE_TARGETS, document, mixed_document, result, wide_document
from test_report import tables

from conformance import report
from conformance.report import overview, urlkeys
from conformance.report.headline import headline as verdict_line
from conformance.report.headline import judge
from conformance.results.combined import combine


def summary_html(doc: dict) -> str:  # type: ignore[type-arg]
    html = report.render([doc])
    start, end = html.index('id="view-summary"'), html.index('id="controls"')
    return html[start:end]


def words(html: str) -> str:
    """The text of some markup, tags dropped and spaces folded."""
    text = unescape(re.sub(r"<[^>]+>", " ", html))
    return " ".join(text.split()).replace(" :", ":").replace(" ;", ";")


def headline(html: str) -> str:
    match = re.search(r'<p class="verdict-line" id="verdict">(.*?)</p>', html, re.S)
    assert match, "the summary opens on the verdict"
    return words(match.group(1))


def test_a_green_run_says_so_and_counts_its_known_issues() -> None:
    html = summary_html(wide_document(red=False))
    assert 'class="verdict green"' in html
    assert headline(html) == "GREEN: 101 results, no unexplained finding; 20 known issues (xfail)"
    assert "None: every departure from a spec is a known issue" in html


def test_a_red_run_names_what_is_unexplained_and_keeps_defects_apart() -> None:
    html = summary_html(wide_document())
    assert 'class="verdict red"' in html
    assert headline(html) == (
        "RED: 1 unexplained finding on 1 target; 2 adapter defects: not a verdict on the backend; "
        "1 harness failure: not a verdict on the backend; 20 known issues (xfail)"
    )
    found = tables(html)
    # the unexplained findings hold the backend's failure alone; each defect kind has its table
    assert [row[2] for row in found["findings"][1:]] == [WIDE_TARGETS[1]]
    assert sorted(row[2] for row in found["findings defects-adapter"][1:]) == sorted(WIDE_TARGETS[2:4])
    assert [row[4] for row in found["findings defects-harness"][1:]] == ["harness failure"]
    assert "2 adapter defects: the adapter's own code failed; not a verdict on the backend" in words(html)


def test_a_run_whose_only_problem_is_a_defect_is_red_but_blames_no_backend() -> None:
    results = [
        result("indices-rank1", "numpy.split"),
        result("indices-rank1", "numpy.array_split", status="error", defect="adapter", message="KeyError"),
    ]
    assert headline(summary_html(document(results))) == (
        "RED: 1 adapter defect: not a verdict on the backend; no unexplained backend finding; no known issue"
    )


def test_the_verdict_links_open_the_matrix_on_its_results() -> None:
    html = summary_html(wide_document())
    verdict_html = html[html.index('<section class="verdict') : html.index("</section>")]
    links = {
        words(text): parse_qs(unescape(href)[1:])
        for href, text in re.findall(r'<a href="([^"]+)">(.*?)</a>', verdict_html)
    }
    assert links["1 unexplained finding on 1 target"] == {
        "view": ["matrix"],
        "status": ["failing"],
        "target": [WIDE_TARGETS[1]],
        "defect": ["none"],
    }
    assert links["2 adapter defects"] == {"view": ["matrix"], "defect": ["adapter"]}
    assert links["1 harness failure"] == {"view": ["matrix"], "defect": ["harness"]}
    assert links["20 known issues (xfail)"] == {"view": ["matrix"], "status": ["xfail"]}


def test_stale_known_issues_make_the_run_red() -> None:
    issue = {"id": "k1", "reason": "known", "link": "https://example.org/1", "source": "k.yaml"}
    stale = result("indices-rank1", "numpy.split", status="xpass", known_issue=issue)
    found = judge(combine([document([stale])]))
    assert not found.green and found.unexplained == []
    assert "1 stale known issue (1 xpass)" in words(verdict_line(found))


def test_the_summary_runs_from_the_answer_to_the_details() -> None:
    html = summary_html(mixed_document())
    order = [
        'class="verdict',
        'class="overview"',
        'class="findings"',
        '<details class="known-findings">',
        'class="counts"',
        'class="rates"',
        'class="targets"',
        "Suite and runs",
    ]
    places = [html.index(marker) for marker in order]
    assert places == sorted(places), order
    # the known findings are folded: a details element without "open", its count in the summary line
    details = re.search(r"<details class=\"known-findings\"([^>]*)><summary>(.*?)</summary>", html, re.S)
    assert details and "open" not in details.group(1)
    assert words(details.group(2)) == "Known issues: 1 result (xfail) in 1 finding"


def test_the_pass_rate_table_has_a_row_per_target_and_a_column_per_op_family() -> None:
    rows = tables(summary_html(mixed_document()))["overview"]
    head = rows[0]
    assert head[:2] == ["target", "pass rate"] and head[-3:] == ["problems", "known (xfail)", "not judged"]
    assert [name.replace(" ", "") for name in head[2:-3]] == [
        "onnxSplit",
        "torchtensor_split",
        "torchchunk",
        "numpysplit",
        "numpyarray_split",
    ]
    by_target = {row[0]: row for row in rows[1:]}
    assert set(by_target) == {"liar/slices/cpu", "numpy/emulated/cpu", "torch/eager/cpu", overview.ALL}
    torch = by_target["torch/eager/cpu"]
    assert torch[1] == "66.6%"  # 2 passes of 3 judged (the unsupported one is not judged)
    assert torch[head.index("known (xfail)")] == "1" and torch[head.index("not judged")] == "1"


@pytest.mark.parametrize(
    ("passed", "judged", "shown"),
    [(1, 1, "100%"), (9999, 10000, "99.9%"), (0, 3, "0.0%"), (2, 3, "66.6%"), (0, 0, "n/a")],
)
def test_a_short_rate_never_rounds_up_to_everything(passed: int, judged: int, shown: str) -> None:
    assert overview.short_rate(passed, judged) == shown


def test_every_link_of_the_page_uses_only_the_documented_keys() -> None:
    html = report.render([wide_document()])
    fragments = re.findall(r'href="#([^"]*)"', html)
    assert len(fragments) > 100
    used = {key for fragment in fragments for key in parse_qs(fragment.replace("&amp;", "&"))}
    assert used <= set(urlkeys.KEYS)
    assert {"view", "status", "target", "op", "defect", "known", "open"} <= used
    with pytest.raises(ValueError, match="no key filter"):
        urlkeys.link({"filter": "x"})
