"""The HTML report: one self-contained page over one or more results files.

It holds everything a finding needs (parameters, value diff, the backend's message, reproducers)
yet opens fast with tens of thousands of results: the data is embedded once as JSON and the page
builds only what is on screen. Files from different case corpora are refused
(:class:`~conformance.errors.ResultsFileError`).
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from pathlib import Path

from conformance.report import (
    compat_html,
    compat_markdown,
    compat_wording,
    page,
    request_view,
    status_tables,
    summary_view,
    timing,
    urlkeys,
    versions_page,
    viewdata,
)
from conformance.report.markup import Content, Html, join, tag
from conformance.results import compat_table
from conformance.results.combined import CombinedResults, combine
from conformance.results.document import no_gc, read_documents, write_atomically
from conformance.results.records import ResultsDocument
from conformance.results.versions import Series, compare, has_versions
from conformance.statuses import MEANINGS, STATUSES

__all__ = ["render", "render_combined", "write", "write_combined", "write_compat"]

TITLE = "Operator conformance report"
VIEWS = (("summary", "Summary"), ("matrix", "Matrix"), ("compat", "Compatibility"), ("timing", "Timing"))
#: Shown only when the documents hold several versions of one backend (a compatibility matrix).
VERSIONS_VIEW = ("versions", "Versions")


def legend() -> Html:
    """Every status with its letter, colour and meaning."""
    entries = [tag("li", [status_tables.status_badge(status), " ", MEANINGS[status]]) for status in STATUSES]
    return tag("ul", entries, {"class": "legend", "aria-label": "status legend"})


def _header(combined: CombinedResults, views: Sequence[tuple[str, str]] = VIEWS) -> Html:
    generated = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    digest = str(combined.suite.get("digest", ""))
    nav = tag(
        "nav",
        [tag("a", label, {"href": urlkeys.link({"view": key}), "data-view": key}) for key, label in views],
        {"class": "tabs", "aria-label": "views"},
    )
    facts = (
        f"{len(combined.results):,} results, {len(combined.targets)} targets, suite "
        f"{combined.suite.get('version', '?')} ({digest[:19]}…), generated {generated}"
    )
    return page.header(TITLE, facts, nav)


def _view(key: str, content: Content) -> Html:
    return tag("section", content, {"id": f"view-{key}", "class": "view"})


def _views(combined: CombinedResults, found: Sequence[Series]) -> Html:
    filters = tag(
        "form",
        tag("p", "Filters need JavaScript; the summary and timing views work without it."),
        {"id": "filters", "class": "filters", "role": "search", "aria-label": "filters"},
    )
    matrix_rule = (
        "Cases by targets. Select a cell for the details of that result; the view "
        "(filters, page, open result) is in the address, so a link shows the same."
    )
    matrix = [
        tag("h2", "Matrix"),
        legend(),
        tag("p", matrix_rule, {"class": "rule"}),
        tag("div", None, {"id": "matrix", "class": "matrix"}),
    ]
    return join(
        [
            _view("summary", summary_view.section(combined)),
            tag("div", filters, {"id": "controls", "class": "controls"}),
            _view("matrix", matrix),
            _view("compat", request_view.section(legend())),
            _view("timing", timing.section(combined)),
            _view("versions", versions_page.section(found)) if found else None,  # a backend's releases
        ]
    )


def render(documents: Sequence[ResultsDocument], names: Sequence[str] | None = None) -> str:
    """The report page for ``documents`` (parsed results files, labelled by ``names``) combined."""
    with no_gc():
        return render_combined(combine(documents, names))


def render_combined(combined: CombinedResults) -> str:
    """The report page for results already combined (:func:`conformance.results.combined.combine`)."""
    with no_gc():
        data = viewdata.view_data(combined)
        found = compare(combined) if has_versions(combined) else []
        views = (*VIEWS, VERSIONS_VIEW) if found else VIEWS
        return page.document(TITLE, _header(combined, views), _views(combined, found), data)


def write(results_paths: Sequence[Path], out: Path) -> Path:
    """Render the results files into ``out`` (written atomically) and return ``out``."""
    paths = [Path(path) for path in results_paths]
    write_atomically(out, render(read_documents(paths), [str(path) for path in paths]))
    return out


def write_combined(combined: CombinedResults, out: Path) -> Path:
    """:func:`write` for results already read and combined (so that other pages share them)."""
    write_atomically(out, render_combined(combined))
    return out


#: The compatibility page's formats, by the output's suffix.
COMPAT_FORMATS = {".html": compat_html.render, ".md": compat_markdown.render}


def write_compat(combined: CombinedResults, out: Path, report: compat_wording.Reports) -> Path:
    """The compatibility page (Split's behaviours by framework) as HTML or Markdown, by ``out``'s
    suffix; ``report`` is the report's path or URL relative to the page, or one for each results
    document (None: no links)."""
    with no_gc():
        built = compat_table.build(combined)
        write_atomically(out, COMPAT_FORMATS[out.suffix.lower()](built, report))
    return out
