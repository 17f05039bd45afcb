"""Hostile strings in case files and backend output never become markup in the report or the diff.

Every free-text field of a result (case id, title, note, source, message, mismatch, reproducers,
known issue, adapter options, host) carries markup, script-closing sequences, U+2028 and a
``javascript:`` URL. The page's server-side HTML must show them escaped, and its data block must
hold them in a form that cannot end the script element. The browser test
(tests/browser/test_report_browser.py) checks the same page in Chromium, where nothing may run.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

from report_fixtures import HOSTILE, HOSTILE_ID, document, hostile_document, liar_result

from conformance import report
from conformance.report import diff_page
from conformance.results import diff
from conformance.results.result import Result


class Elements(HTMLParser):
    """Every element of a page with its attributes; script elements' contents kept apart."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))


def elements(html: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = Elements()
    parser.feed(html)
    return parser.elements


def assert_inert(html: str, scripts: int) -> None:
    found = elements(html)
    tags = [tag for tag, _ in found]
    assert tags.count("script") == scripts, "no script element but the page's own"
    assert "img" not in tags and "iframe" not in tags and "object" not in tags
    for tag, attrs in found:
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
        for name in ("href", "src", "action", "formaction"):
            assert not str(attrs.get(name) or "").lower().lstrip().startswith("javascript:"), (tag, attrs)
    for attack in HOSTILE[:3]:
        assert attack not in html, attack


def test_hostile_strings_are_escaped_in_the_report() -> None:
    html = report.render([hostile_document()], ["<script>window.pwned=1</script>.json"])
    assert_inert(html, scripts=2)
    # shown as text: the summary's escaped host, options and command
    assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in html
    assert "&quot;&gt;&lt;img src=x onerror=window.pwned=1&gt;" in html
    # the data block: no character that could close it, and the strings intact once parsed
    block = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S)
    assert block and not set(block.group(1)) & {"<", ">", "\u2028", "\u2029"}
    assert HOSTILE_ID in block.group(1).encode().decode("unicode_escape")


def test_hostile_titles_and_notes_in_a_results_file_are_escaped(tmp_path: Path) -> None:
    """Titles and notes travel in the results file (from the case files): the same escaping applies."""
    base = liar_result()
    base["params"]["title"] = "<script>window.pwned=1</script>"
    base["params"]["note"] = '"><img src=x onerror=window.pwned=1>'
    source = tmp_path / "results.json"
    source.write_text(json.dumps(document([base])), encoding="utf-8")
    html = report.write([source], tmp_path / "index.html").read_text(encoding="utf-8")
    assert_inert(html, scripts=2)
    assert "\\u003cscript\\u003ewindow.pwned=1\\u003c/script\\u003e" in html  # the title, in the data


def test_hostile_strings_are_escaped_in_the_diff_page() -> None:
    doc = hostile_document()
    new = [Result.from_json(body) for body in doc["results"]]
    old = [Result.from_json({**body, "status": "pass"}) for body in doc["results"]]
    found = diff.compare(old, new, old_label="<script>window.pwned=1</script>", new_label=HOSTILE[1])
    html = diff_page.render(found)
    assert_inert(html, scripts=0)
    assert "script-src 'none'" in html.replace("&#x27;", "'")
    assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in html
