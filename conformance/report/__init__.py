"""The HTML report: one self-contained page over one or more results files.

It is what people read (CI artifacts, vendor certificates, conversion decisions), so it holds
everything a finding needs (parameters, value diff with bit patterns, the backend's message, two
reproducers) while opening fast with tens of thousands of results: the data is embedded once as
JSON and the page builds only what is on screen.

    render(documents) -> str              # results documents (parsed results.json) to HTML
    write([Path("reports/results.json")], Path("reports/index.html"))

Several results files (e.g. one per adapter) are merged into one view; files from different
case corpora (suite digests) are refused with :class:`ReportError`.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from pathlib import Path

from conformance.report import compatibility, page, summary, timing
from conformance.report import viewdata as model
from conformance.report.markup import Html, join, tag
from conformance.results import versions
from conformance.results.combined import Merged, ReportError, case_texts, merge, no_gc, read_documents
from conformance.results.result import JSON, STATUSES

__all__ = ["ReportError", "render", "write"]

TITLE = "Split conformance report"
VIEWS = (("summary", "Summary"), ("matrix", "Matrix"), ("compat", "Compatibility"), ("timing", "Timing"))
#: Shown only when the documents hold several versions of one backend (a compatibility matrix).
VERSIONS_VIEW = ("versions", "Versions")
MEANINGS = {
    "pass": "matches the reference (or rejected what the spec rejects)",
    "fail": "wrong result, or accepted an input the spec rejects",
    "error": "rejected a valid input",
    "unsupported": "the adapter cannot express it",
    "crash": "the worker died",
    "timeout": "ran past the time limit",
    "xfail": "a known issue, and it failed",
    "xpass": "listed as a known issue, but passed",
    "skip": "deselected",
}


def legend() -> Html:
    """Every status with its letter, colour and meaning."""
    entries = [tag("li", [summary.status_badge(status), " ", MEANINGS[status]]) for status in STATUSES]
    return tag("ul", entries, {"class": "legend", "aria-label": "status legend"})


def _header(merged: Merged, views: Sequence[tuple[str, str]] = VIEWS) -> Html:
    generated = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    digest = str(merged.suite.get("digest", ""))
    nav = tag(
        "nav",
        [tag("a", label, {"href": f"#view={key}", "data-view": key}) for key, label in views],
        {"class": "tabs", "aria-label": "views"},
    )
    facts = (
        f"{len(merged.results)} results, {len(merged.targets)} targets, suite "
        f"{merged.suite.get('version', '?')} ({digest[:19]}…), generated {generated}"
    )
    return tag("header", [tag("h1", TITLE), tag("p", facts, {"class": "facts"}), nav])


def versions_view(found: Sequence[versions.Series]) -> Html:
    """The Versions view, when some backend ran under several versions; nothing otherwise."""
    if not found:
        return Html("")
    return tag("section", versions.section(found), {"id": "view-versions", "class": "view"})


def _views(merged: Merged, found: Sequence[versions.Series] = ()) -> Html:
    filters = tag(
        "form",
        tag("p", "Filters need JavaScript; the summary and timing views work without it."),
        {"id": "filters", "class": "filters", "role": "search", "aria-label": "filters"},
    )
    return join(
        [
            tag("section", summary.section(merged), {"id": "view-summary", "class": "view"}),
            tag("div", filters, {"id": "controls", "class": "controls"}),
            tag(
                "section",
                [
                    tag("h2", "Matrix"),
                    legend(),
                    tag(
                        "p",
                        "Cases by targets. Select a cell for the details of that result; the view "
                        "(filters, page, open result) is in the address, so a link shows the same.",
                        {"class": "rule"},
                    ),
                    tag("div", None, {"id": "matrix", "class": "matrix"}),
                ],
                {"id": "view-matrix", "class": "view"},
            ),
            tag("section", compatibility.section(legend()), {"id": "view-compat", "class": "view"}),
            tag("section", timing.section(merged), {"id": "view-timing", "class": "view"}),
            versions_view(found),
        ]
    )


def render(
    documents: Sequence[JSON],
    names: Sequence[str] | None = None,
    texts: Mapping[str, Mapping[str, str]] | None = None,
) -> str:
    """The report page for ``documents`` (parsed results files), merged into one view.

    ``names`` label the documents (file names) in the page; ``texts`` maps case ids to their
    ``title`` and ``note`` (see :func:`case_texts`), which results files do not carry.
    """
    with no_gc():
        merged = merge(documents, names)
        data = model.view_data(merged, texts)
        found = versions.compare(merged) if versions.has_versions(merged) else []
        views = (*VIEWS, VERSIONS_VIEW) if found else VIEWS
        return page.document(TITLE, _header(merged, views), _views(merged, found), data)


def write(results_paths: Sequence[Path], out: Path, root: Path | None = None) -> Path:
    """Render the results files into ``out`` (written atomically) and return ``out``.

    Case titles and notes are read from the case files the suite names, relative to ``root``
    (default: the current directory, where runs are started), when they are there.
    """
    from conformance.results.document import write_atomically

    paths = [Path(path) for path in results_paths]
    documents = read_documents(paths)
    texts = case_texts(documents[0].get("suite", {}), root or Path.cwd()) if documents else {}
    write_atomically(out, render(documents, [str(path) for path in paths], texts))
    return out
