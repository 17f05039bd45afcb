"""The report opens on the answer, as a reader sees it at 1,280 x 800 in Chromium.

On the first screen (above y = 800): the verdict in words and the pass-rate table of every
target; the known findings folded. On no view, however long the ids and messages and however
many the targets, does the page scroll sideways. A filter that matches nothing says what that
means ("No result has status fail (the run is green)"), never "0 of 101". The reports are the
fixtures' widest (20 targets with long ids, a case id with nowhere to break, long backend
messages and links), green and red, and a real run's numbers from the NumPy adapter.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browsing import open_report, screenshot, wait_until, write_pages
from report_fixtures import WIDE_TARGETS, document, result, wide_document

from conformance import report

FIRST_SCREEN = {"width": 1280, "height": 800}
VIEWS = ("summary", "matrix", "compat", "timing")
SIDEWAYS = "document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth"


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    versions = [
        result("doc-readme-6-into-4", op, target)
        for op in ("onnx.Split-13", "onnx.Split-18")
        for target in ("onnxruntime/default/cpu", "openvino/onnx/CPU")
    ]
    files = {
        "green": report.render([wide_document(red=False)]),
        "red": report.render([wide_document()]),
        "versions": report.render([document(versions)]),
    }
    return write_pages(tmp_path_factory.mktemp("first-screen"), files)


def at_first_screen(page: Any, url: str, fragment: str = "") -> None:
    page.set_viewport_size(FIRST_SCREEN)
    open_report(page, url, fragment)


def bottom(page: Any, selector: str) -> float:
    box = page.locator(selector).bounding_box()
    assert box, f"{selector} is not shown"
    return float(box["y"] + box["height"])


@pytest.mark.slow
@pytest.mark.parametrize(("name", "word"), [("green", "GREEN: "), ("red", "RED: ")])
def test_the_first_screen_shows_the_verdict_and_every_targets_pass_rate(
    page: Any, pages: dict[str, str], tmp_path: Path, name: str, word: str
) -> None:
    at_first_screen(page, pages[name])
    assert page.inner_text("#verdict").startswith(word)
    assert bottom(page, "section.verdict") <= FIRST_SCREEN["height"]
    # the whole table: every target's row and the row of all targets
    table = page.locator("table.overview")
    assert table.locator("tbody tr").count() == len(WIDE_TARGETS) + 1
    assert bottom(page, "table.overview") <= FIRST_SCREEN["height"]
    # the known findings are folded: there, closed, with their count in the summary line
    assert page.evaluate("document.querySelector('details.known-findings').open") is False
    assert not page.locator("table.known-findings").is_visible()
    assert page.inner_text("details.known-findings > summary").startswith("Known issues: 20 results (xfail)")
    assert page.evaluate(SIDEWAYS) <= 0
    screenshot(page, tmp_path, f"report-first-screen-{name}")


def test_no_view_scrolls_sideways_at_1280_pixels(page: Any, pages: dict[str, str]) -> None:
    at_first_screen(page, pages["red"])
    for view in VIEWS:
        page.click(f"nav.tabs a[data-view={view}]")
        assert page.locator(f"#view-{view}").is_visible()
        assert page.evaluate(SIDEWAYS) <= 0, view
    page.click("nav.tabs a[data-view=summary]")
    page.click("details.known-findings > summary")
    assert page.locator("table.known-findings").is_visible() and page.evaluate(SIDEWAYS) <= 0
    # the widest details: the failure with OpenVINO's long message, and the case with the long id
    for fragment in ("view=matrix&status=fail", "view=matrix&q=explore_onnx"):
        open_report(page, pages["red"], fragment)
        page.locator("#matrix-table button.cell:not(.dim)").first.click()
        page.locator("tr.detail .panel").scroll_into_view_if_needed()
        assert page.evaluate(SIDEWAYS) <= 0, fragment


def test_a_filter_matching_nothing_says_what_that_means(page: Any, pages: dict[str, str]) -> None:
    at_first_screen(page, pages["green"], "view=matrix&status=fail")
    said = "No result has status fail (the run is green)"
    assert page.inner_text("#f-count") == said and "0 of" not in page.inner_text("#controls")
    assert page.inner_text("#matrix-table td.empty") == said + "."
    open_report(page, pages["green"], f"view=matrix&status=failing&target={WIDE_TARGETS[0]}")
    assert page.inner_text("#f-count") == (
        f"No result with target={WIDE_TARGETS[0]} has status fail, error, crash or timeout (the run is green)"
    )
    # on a red run, nothing matching is no sign of a green run
    open_report(page, pages["red"], "view=matrix&status=crash")
    assert page.inner_text("#f-count") == "No result has status crash"


def test_the_verdict_opens_the_unexplained_findings_and_the_defects_apart(
    page: Any, pages: dict[str, str]
) -> None:
    at_first_screen(page, pages["red"])
    page.click("#verdict a:text('1 unexplained finding on 1 target')")
    wait_until(page, "document.body.dataset.view === 'matrix'")
    assert page.input_value("#f-status") == "failing" and page.input_value("#f-defect") == "none"
    assert page.inner_text("#f-count").startswith("1 of ")
    assert page.locator("#matrix-table button.cell.st-fail:not(.dim)").count() == 1
    page.click("nav.tabs a[data-view=summary]")
    page.click("#verdict a:text('2 adapter defects')")
    wait_until(page, "document.body.dataset.view === 'matrix'")
    assert page.input_value("#f-defect") == "adapter" and page.inner_text("#f-count").startswith("2 of ")
    page.locator("#matrix-table button.cell.st-error:not(.dim)").first.click()
    panel = page.inner_text("tr.detail .panel")
    assert "the adapter's own code failed; not a verdict on the backend" in panel


def test_a_family_cell_filters_every_version_of_its_op(page: Any, pages: dict[str, str]) -> None:
    at_first_screen(page, pages["versions"])
    page.click("table.overview tr:has(code:text-is('openvino/onnx/CPU')) a:has(span.rate)  >> nth=1")
    wait_until(page, "document.body.dataset.view === 'matrix'")
    assert page.input_value("#f-op") == "onnx.Split" and page.input_value("#f-target") == "openvino/onnx/CPU"
    assert "onnx.Split (every version) (2)" in page.locator("#f-op option").all_inner_texts()
    assert page.inner_text("#f-count").startswith("2 of 4")


def test_a_compatibility_block_shows_its_first_op_below_its_header(page: Any, pages: dict[str, str]) -> None:
    """The block's table scrolls sideways in its own box, which is also its header's sticky
    container: the page's sticky offset there pushed the header down over the first op's row."""
    at_first_screen(page, pages["red"], "view=compat")
    table = page.locator("table.compat-table").first
    head = table.locator("thead th").first.bounding_box()
    first_row = table.locator("tbody tr").first.bounding_box()
    assert head and first_row
    assert first_row["y"] >= head["y"] + head["height"] - 1, (head, first_row)
