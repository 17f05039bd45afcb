"""The report in a real browser: headless Chromium (see benchmarks/headless.py) driven by playwright.

Opened from file:// as people open a CI artifact: it must make no network request, its filters
must change the rows and the URL (and a reload must restore the view), a failure must open to its
mismatch, bit patterns and reproducers, and hostile strings must stay text (``window.pwned`` is
never set). Screenshots go to the test's tmp dir, and a copy to ``$CONFORMANCE_SCREENSHOTS`` when
set (never to reports/: a run refuses an output folder holding files it did not write).

Playwright's own browser download is not used (and not possible here): the tests launch the
system Chromium with a fresh profile, and skip with the reason when it or playwright is missing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browsing import LOCAL, open_report, screenshot, wait_until, write_pages
from report_fixtures import (
    HOSTILE,
    HOSTILE_ID,
    document,
    hostile_document,
    mixed_document,
    result,
    runs_result,
)

from conformance import report
from conformance.report.viewdata import TIMES


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    files = {
        "mixed": report.render([mixed_document()]),
        "hostile": report.render([hostile_document()]),
        "runs": report.render([document([runs_result()])]),
        # two ops that reject the same request, each by a rule of its own
        "rejects": report.render(
            [document([result("doc-readme-6-into-4", op) for op in ("numpy.split", "onnx.Split-13")])]
        ),
    }
    return write_pages(tmp_path_factory.mktemp("report"), files)


def rows(page: Any) -> list[str]:
    return [str(text) for text in page.locator("#matrix-table tbody tr[data-item] th code").all_inner_texts()]


@pytest.mark.slow
def test_the_report_opens_from_file_with_no_network_request(page: Any, pages: dict[str, str]) -> None:
    open_report(page, pages["mixed"])
    for view in ("matrix", "compat", "timing", "summary"):
        page.click(f"nav.tabs a[data-view={view}]")
        assert page.locator(f"#view-{view}").is_visible()
    # the policy is in force: a script that tried to reach out would be refused
    outcome = page.evaluate("fetch('http://127.0.0.1:9/x').then(() => 'sent', () => 'refused')")
    assert outcome == "refused"
    assert page.requests and all(url.startswith(LOCAL) for url in page.requests)


@pytest.mark.slow
def test_filters_change_the_rows_and_the_hash_and_a_reload_restores_them(
    page: Any, pages: dict[str, str], tmp_path: Path
) -> None:
    open_report(page, pages["mixed"], "view=matrix")
    everything = rows(page)
    assert len(everything) == 8  # items (case, op): 5 of the "6 into 4" request, 3 of indices-rank1
    page.select_option("#f-status", "fail")
    wait_until(page, "location.hash.includes('status=fail')")
    failing = rows(page)
    assert failing == ["doc-readme-6-into-4", "indices-rank1"]
    for row in page.locator("#matrix-table tbody tr[data-item]").all():
        assert row.locator("button.cell.st-fail:not(.dim)").count() == 1
    # counts next to each value, under the other filters (faceted): statuses ignore the status filter
    assert {"F fail (2)", "P pass (6)", "E error (1)"} <= set(
        page.locator("#f-status option").all_inner_texts()
    )
    assert {"torch.tensor_split (1)", "numpy.array_split (1)", "torch.chunk (0)"} <= set(
        page.locator("#f-op option").all_inner_texts()
    )
    page.fill("#f-q", "indices")
    wait_until(page, "location.hash.includes('q=indices')")
    assert rows(page) == ["indices-rank1"]
    screenshot(page, tmp_path, "report-filtered")
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.input_value("#f-status") == "fail" and page.input_value("#f-q") == "indices"
    assert rows(page) == ["indices-rank1"]
    page.click("#f-clear")
    assert rows(page) == everything and "status=" not in page.evaluate("location.hash")


def test_a_failure_opens_to_its_mismatch_bits_and_reproducers(
    page: Any, pages: dict[str, str], tmp_path: Path
) -> None:
    open_report(page, pages["mixed"], "view=matrix&q=indices-rank1&op=numpy.array_split")
    cell = page.locator("#matrix-table button.cell.st-fail")
    cell.click()
    panel = page.locator("tr.detail .panel")
    text = panel.inner_text()
    assert "VALUE DIFF" in text.upper() and "3 differing element(s)" in text
    assert "np.float32(0.0)" in text and "0x3f800000" in text and "0x40800000" in text
    assert panel.locator(".bits mark").count() > 0  # the differing bits are marked
    assert "conformance run --cases cases/indices.yaml --adapter fake_adapters:Liar" in text
    assert "np.array_split(data, [3, 6])" in text and "base64.b64decode('''" in text
    assert "expected shape" in text and cell.get_attribute("aria-expanded") == "true"
    assert "open=indices-rank1" in page.evaluate("decodeURIComponent(location.hash)")
    panel.scroll_into_view_if_needed()
    screenshot(page, tmp_path, "report-failure")
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("tr.detail .panel").count() == 1  # the open result is part of the link
    page.click("text=Compare this request across ops and targets")
    wait_until(page, "location.hash.includes('view=compat')")
    assert page.locator("#compat article.case-block h3 code").all_inner_texts() == ["indices-rank1"]


def test_a_result_with_runs_shows_every_run_and_the_deciding_runs_outputs(
    page: Any, pages: dict[str, str], tmp_path: Path
) -> None:
    open_report(page, pages["runs"], "view=matrix")
    reference = page.locator("#matrix-table tbody tr").first.inner_text()
    assert "[10,3] [4,3] [2,3]" in reference  # the item's own answer: the case's request, run 1
    page.locator("#matrix-table button.cell.st-fail").click()
    panel = page.locator("tr.detail .panel")
    runs = panel.locator("table.runs tbody tr").all_inner_texts()
    assert len(runs) == 4 and "run 1" in runs[0] and "pass" in runs[0]
    assert "run 2 (lengths [5, 5, 6])" in runs[1] and "fail" in runs[1]
    text = panel.inner_text()
    assert "expected 3: [5,3] [5,3] [6,3]" in text  # the deciding run's expectation, not run 1's
    assert "got 3: [10,3] [4,3] [2,3]" in text
    panel.scroll_into_view_if_needed()
    screenshot(page, tmp_path, "report-runs")


def test_cells_open_from_the_keyboard(page: Any, pages: dict[str, str]) -> None:
    open_report(page, pages["mixed"], "view=matrix&status=error")
    cell = page.locator("#matrix-table button.cell.st-error")
    cell.focus()
    page.keyboard.press("Enter")
    assert cell.get_attribute("aria-expanded") == "true"
    assert "raised" in page.locator("tr.detail .panel").inner_text()
    cell.focus()
    page.keyboard.press("Space")
    assert page.locator("tr.detail").count() == 0


def test_the_compatibility_view_separates_definitions_from_bugs(
    page: Any, pages: dict[str, str], tmp_path: Path
) -> None:
    open_report(page, pages["mixed"], "view=compat&q=doc-readme-6-into-4")
    block = page.locator("#compat article.case-block")
    assert block.count() == 1
    answers = {}  # op -> (answer letter, the reference's answer)
    for row in block.locator("tbody tr").all():
        letter, _, text = row.locator("td.ref").inner_text().strip().partition(" ")
        answers[row.locator("th").inner_text().strip()] = (letter, text)
    assert answers["torch.chunk"][1] == f"3 {TIMES} [2]"
    assert answers["torch.tensor_split"][1] == answers["numpy.array_split"][1] == "4: [2] [2] [1] [1]"
    assert answers["onnx.Split-18"][1] == "4: [2] [2] [2] [0]"
    assert answers["numpy.split"][1] == "rejects (sections-divide)"
    assert answers["torch.tensor_split"][0] == answers["numpy.array_split"][0]  # the same answer, one letter
    assert len({letter for letter, _ in answers.values()}) == 4
    assert "ops answer differently: 4 answers" in block.inner_text()
    assert block.locator("td.deviates").count() == 1  # the one wrong result, outlined
    screenshot(page, tmp_path, "report-compatibility")
    page.fill("#f-q", "")
    wait_until(page, "!location.hash.includes('q=')")
    assert page.locator("#compat article.case-block").count() == 2
    # indices-rank1: every op gives the same answer (no definitional difference), but targets err
    page.select_option("#f-show", "differ")
    assert page.locator("#compat article.case-block h3 code").all_inner_texts() == ["doc-readme-6-into-4"]
    page.select_option("#f-show", "deviate")
    assert page.locator("#compat article.case-block").count() == 2
    # ops that all reject a request agree, whatever rule each cites: one answer, no letters
    open_report(page, pages["rejects"], "view=compat")
    block = page.locator("#compat article.case-block")
    assert block.count() == 1 and "ops answer differently" not in block.inner_text()
    assert block.locator("td.ref b.group").count() == 0


def test_hostile_strings_stay_text_and_never_run(page: Any, pages: dict[str, str], tmp_path: Path) -> None:
    open_report(page, pages["hostile"])
    page.click("nav.tabs a[data-view=matrix]")
    for cell in page.locator("#matrix-table button.cell").all():
        cell.click()
        page.wait_for_selector("tr.detail .panel")
    page.locator("tr.detail .panel").first.scroll_into_view_if_needed()
    screenshot(page, tmp_path, "report-hostile")
    shown = page.locator("body").inner_text()
    for attack in HOSTILE[:3]:
        assert attack in shown, attack
    assert HOSTILE_ID in shown
    page.click("nav.tabs a[data-view=compat]")
    assert HOSTILE_ID in page.locator("#compat").inner_text()
    page.click("nav.tabs a[data-view=timing]")
    page.click("nav.tabs a[data-view=summary]")
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert page.locator("img").count() == 0
    assert page.locator("a[href^='javascript' i]").count() == 0


def _count(page: Any) -> str:
    return str(page.inner_text("#f-count"))


def test_every_summary_number_opens_the_matrix_filtered_to_it(
    page: Any, pages: dict[str, str], tmp_path: Path
) -> None:
    open_report(page, pages["mixed"])
    # a status count of one target: the fail on numpy/emulated/cpu
    page.click("table.counts tr:has(code:text-is('numpy/emulated/cpu')) a:has(span.st-fail)")
    wait_until(page, "document.body.dataset.view === 'matrix'")
    assert page.input_value("#f-status") == "fail" and page.input_value("#f-target") == "numpy/emulated/cpu"
    assert _count(page).startswith("1 of ")
    assert "status=fail" in page.url and "target=numpy%2Femulated%2Fcpu" in page.url
    # a pass-rate cell: that op on that target
    page.click("nav.tabs a[data-view=summary]")
    page.locator("table.rates tr:has(code:text-is('torch.tensor_split')) a.filter-link").first.click()
    wait_until(page, "document.body.dataset.view === 'matrix'")
    assert page.input_value("#f-op") == "torch.tensor_split" and page.input_value("#f-status") == ""
    # a known issue: its results, on the targets the table names (folded with the known findings)
    page.click("nav.tabs a[data-view=summary]")
    assert not page.locator("table.known-issues").is_visible()
    page.click("details.known-findings > summary")
    assert "torch/eager/cpu" in page.inner_text("table.known-issues tbody tr")
    page.click("table.known-issues a:has(code:text-is('k1'))")
    wait_until(page, "document.body.dataset.view === 'matrix'")
    assert page.input_value("#f-known") == "k1" and _count(page).startswith("1 of ")
    assert rows(page) == ["indices-rank1"]
    screenshot(page, tmp_path, "summary-link-known-issue")


def test_the_deviating_group_keeps_known_failures_and_leaves_out_unsupported(
    page: Any, pages: dict[str, str]
) -> None:
    open_report(page, pages["mixed"], "view=matrix&status=deviating")
    statuses = page.evaluate(
        "Array.from(document.querySelectorAll('#matrix-table button.cell:not(.dim)'), (b) => b.className)"
    )
    assert any("st-xfail" in name for name in statuses) and any("st-fail" in name for name in statuses)
    assert not any("st-unsupported" in name or "st-pass" in name for name in statuses)


def test_a_link_with_an_unknown_value_says_so_and_filters_nothing(page: Any, pages: dict[str, str]) -> None:
    open_report(page, pages["mixed"], "view=matrix&status=nonsense&op=numpy.split")
    assert "status=nonsense" in page.inner_text("#f-note")
    assert page.input_value("#f-status") == "" and page.input_value("#f-op") == "numpy.split"
    assert len(rows(page)) == 2


def test_an_unsupported_result_is_not_drawn_as_a_mismatch(page: Any, pages: dict[str, str]) -> None:
    open_report(page, pages["mixed"], "view=matrix&status=unsupported")
    page.click("#matrix-table button.cell.st-unsupported")
    table = page.locator("tr.detail table.outputs")
    assert "not run" in table.inner_text() and "≠" not in table.inner_text()
    assert table.locator("tr.differs").count() == 0
