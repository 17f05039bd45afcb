"""The compatibility page and the report's ways into it, in Chromium at 1,280 x 800.

The page (``conformance compat``) must be readable at 1,280 px without sideways scrolling of its
first table, however many frameworks and adapters with however long names; the report must
scroll a result a link opens (``open=``) into view, rank the case whose title is the search
first, select a behaviour's requests (``behaviour=``, the page's links), and keep each block's op
and reference at the left while its targets, grouped under their adapter, scroll sideways.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browsing import open_report, screenshot, wait_until, write_pages
from report_fixtures import WIDE_TARGETS, corpus, document, result, wide_document

from conformance import report
from conformance.corpus.catalogue import applicable_ops
from conformance.report import compat_html
from conformance.results import compat_table
from conformance.results.combined import combine

FIRST_SCREEN = {"width": 1280, "height": 800}
SIDEWAYS = "document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth"
#: Cells of the first table whose content is wider than the cell (it would spill over its neighbour).
SPILLING = (
    "[...document.querySelectorAll('#specs th, #specs td')]"
    ".filter((c) => c.scrollWidth > c.clientWidth + 1).length"
)
#: A target of every adapter the main job runs, under long labels, and every framework's ops.
TARGETS = [*WIDE_TARGETS[::4], "tensorflow/eager/cpu", "keras/jax/cpu", "litert/tflite/cpu", "jax/jit/cpu"]
SEARCHED = ("count-7-into-1", "count-7-into-2", "count-7-into-3", "count-10-into-3")
#: The words of the two overview tables laid out on more than one line. A word runs to the next
#: space or to just after a dot, hyphen, underscore, comma, at sign or slash, the page's only break
#: points; one on a single line has a single box (upright or turned).
BROKEN_WORDS = """(() => {
  const broken = [];
  for (const table of document.querySelectorAll('#specs, #backends')) {
    const walker = document.createTreeWalker(table, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const word of node.data.matchAll(/[^\\s.\\-_,@\\/]+[.\\-_,@\\/]*/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const boxes = [...range.getClientRects()].filter((box) => box.width > 0 && box.height > 0);
        if (boxes.length > 1) broken.push(word[0]);
      }
    }
  }
  return broken;
})()"""


def _compat_document() -> dict[str, Any]:
    cases = ("count-7-into-3", "tf-sizes-minus1-past-dim", "indices-past-end", "dtype-int8-parts-uneven")
    found = [
        result(case, op, target, **({"status": "fail", "message": "x"} if number % 5 == 0 else {}))
        for case in cases
        for number, op in enumerate(applicable_ops(corpus().by_id(case)))
        for target in TARGETS
    ]
    return document(found)


def _long_document() -> dict[str, Any]:
    """Results of 90 cases on two targets, so that the 80th item sits far below the first screen."""
    cases = [case for case in corpus().cases if "numpy.array_split" in applicable_ops(case)][:90]
    return document([result(case.id, "numpy.array_split", t) for case in cases for t in WIDE_TARGETS[:2]])


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    ops = ("numpy.array_split", "torch.chunk")
    searched = document([result(case, op, "numpy/emulated/cpu") for case in SEARCHED for op in ops])
    files = {
        "compat": compat_html.render(compat_table.build(combine([_compat_document()])), "report.html"),
        "report": report.render([_compat_document()]),
        "long": report.render([_long_document()]),
        "searched": report.render([searched]),
        "wide": report.render([wide_document()]),
    }
    return write_pages(tmp_path_factory.mktemp("compat"), files)


@pytest.mark.slow
def test_the_compatibility_page_fits_1280_pixels(page: Any, pages: dict[str, str], tmp_path: Path) -> None:
    page.set_viewport_size(FIRST_SCREEN)
    page.goto(pages["compat"])
    assert page.evaluate(SIDEWAYS) <= 0
    first = page.locator("#specs").bounding_box()
    assert first and first["x"] >= 0 and first["x"] + first["width"] <= FIRST_SCREEN["width"]
    assert page.evaluate(SPILLING) == 0
    frameworks = page.locator("#specs thead th").all_inner_texts()[2:]
    assert frameworks == list(
        compat_table.FRAMEWORKS.values()
    )  # every catalogue family, in the declared order
    assert page.locator("#backends thead th").count() == 1 + len({t.split("/")[0] for t in TARGETS})
    screenshot(page, tmp_path, "compat-page-first-screen")
    # a behaviour's section: its spec answers and backend verdicts on one screen
    page.goto(pages["compat"] + "#count-uneven")
    box = page.locator("section#count-uneven").bounding_box()
    assert box and 0 <= box["y"] <= 16 and box["height"] <= FIRST_SCREEN["height"]
    assert page.inner_text("section#count-uneven").count("3,3,1") >= 2
    screenshot(page, tmp_path, "compat-page-count-uneven")


@pytest.mark.slow
def test_no_name_in_the_compatibility_tables_breaks_inside_a_word(
    page: Any, pages: dict[str, str], tmp_path: Path
) -> None:
    """At 1,280 px a framework's or an adapter's name (``TensorFlow``, ``openvino@2025.4.1-18932``)
    and an op's (``SplitToSequence-11``) break between words or after a dot or hyphen, never inside."""
    page.set_viewport_size(FIRST_SCREEN)
    page.goto(pages["compat"])
    assert "SplitToSequence-11" in page.inner_text("#specs")  # the longest op name is there
    assert page.evaluate(BROKEN_WORDS) == []
    screenshot(page, tmp_path, "compat-page-headers")


@pytest.mark.slow
def test_a_link_that_opens_a_result_scrolls_it_into_view(
    page: Any, pages: dict[str, str], tmp_path: Path
) -> None:
    page.set_viewport_size(FIRST_SCREEN)
    cases = [case for case in corpus().cases if "numpy.array_split" in applicable_ops(case)]
    key = f"{cases[80].id}::numpy.array_split@{WIDE_TARGETS[1]}"
    open_report(page, pages["long"], f"view=matrix&open={key}")
    wait_until(page, "document.querySelector('tr.detail .panel') !== null")
    row = page.locator("tr.detail").bounding_box()
    opened = page.locator("button.cell[aria-expanded=true]").bounding_box()
    bar = page.locator("#controls").bounding_box()
    assert row and opened and bar
    assert page.evaluate("window.scrollY") > 1000  # it was far down the page
    assert bar["y"] + bar["height"] <= opened["y"]  # below the sticky filter bar
    assert opened["y"] + opened["height"] <= row["y"] < FIRST_SCREEN["height"]  # its details on screen
    assert page.evaluate("document.activeElement.dataset.key") == key
    screenshot(page, tmp_path, "report-open-scrolled")


@pytest.mark.slow
def test_a_search_finds_the_case_whose_title_it_is_first(page: Any, pages: dict[str, str]) -> None:
    open_report(page, pages["searched"], "view=matrix&q=7+elements+into+3+pieces")
    cases = page.locator("#matrix-table tbody tr[data-item] th code").all_inner_texts()
    assert cases[:2] == ["count-7-into-3", "count-7-into-3"]
    assert "count-7-into-1" in cases  # every word matches it too: it stays, after
    open_report(page, pages["searched"], "view=compat&q=7+elements+into+3+pieces")
    assert page.inner_text("#compat article h3 >> nth=0").startswith("count-7-into-3")


@pytest.mark.slow
def test_a_behaviour_link_shows_its_requests(page: Any, pages: dict[str, str]) -> None:
    open_report(page, pages["searched"], "view=compat&behaviour=count-uneven")
    assert page.input_value("#f-behaviour") == "count-uneven"
    blocks = [text.split(" ")[0] for text in page.locator("#compat article h3").all_inner_texts()]
    assert blocks == ["count-7-into-2", "count-7-into-3", "count-10-into-3"]


@pytest.mark.slow
def test_the_compatibility_view_groups_targets_under_their_adapter(page: Any, pages: dict[str, str]) -> None:
    page.set_viewport_size(FIRST_SCREEN)
    open_report(page, pages["wide"], "view=compat")
    table = page.locator("table.compat-table").first
    adapters = table.locator("thead th.adapter").all_inner_texts()
    assert adapters == sorted({target.split("/")[0] for target in WIDE_TARGETS})
    assert table.locator("thead tr").nth(1).locator("th.target").count() == len(WIDE_TARGETS)
    box = page.locator("#compat .wide").first
    before = table.locator("tbody th.op").first.bounding_box()
    box.evaluate("(node) => { node.scrollLeft = 600; }")
    after = table.locator("tbody th.op").first.bounding_box()
    reference = table.locator("tbody td.ref").first.bounding_box()
    assert before and after and reference
    assert abs(after["x"] - before["x"]) <= 1  # the op stays at the left
    assert reference["x"] <= after["x"] + after["width"] + 1  # and its reference beside it
