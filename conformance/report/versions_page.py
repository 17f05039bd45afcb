"""The Versions view: backend releases side by side (see :mod:`conformance.results.versions`),
as a tab of the report and as a standalone page."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from conformance.report import page
from conformance.report.markup import Content, Html, folded, join, table, tag, wide
from conformance.report.status_tables import status_badge
from conformance.results.document import write_atomically
from conformance.results.versions import Series
from conformance.statuses import STATUSES

TITLE = "Operator conformance: backend versions"


def _cell(status: str | None, message: str) -> Html:
    if status is None:
        return tag("span", "not run", {"class": "badge"})
    return tag("span", status_badge(status), {"title": message[:400] or None})


def series_html(series: Series) -> Html:
    """One series: totals and change counts per version, then every changed item."""
    shown = [s for s in STATUSES if any(t[s] for t in series.totals)]
    per_version = series.steps_per_version()
    totals_rows: list[list[Content]] = [
        [
            tag("code", version),
            tag("code", label),
            *[status_badge(s, totals[s]) if totals[s] else "0" for s in shown],
            sum(totals.values()),
            ", ".join(f"{kind} {n}" for kind, n in sorted(per_version[version].items())) or "—",
        ]
        for version, label, totals in zip(series.versions, series.labels, series.totals, strict=True)
    ]
    totals = table(["version", "results labelled", *shown, "total", "changes in this version"], totals_rows)
    rows: list[list[Content]] = [
        [
            tag("code", row.item),
            *[_cell(status, message) for status, message in zip(row.statuses, row.messages, strict=True)],
            tag("span", row.verdict, {"class": f"verdict kind-{row.kind}"}),
        ]
        for row in series.rows
    ]
    changed = (
        wide(table(["item (case::op)", *series.versions, "verdict"], rows, "versions-table"))
        if rows
        else tag("p", "every item has the same status under every version")
    )
    title = f"{series.name}: {len(series.rows)} items change across {', '.join(series.versions)}"
    return folded(title, [totals, changed], "h3", open_=True)


def section(found: Sequence[Series]) -> Html:
    """The "Versions" view of the report (static HTML: it reads top to bottom, like the diff page)."""
    return join(
        [
            tag("h2", "Versions: which release introduced or fixed each disagreement"),
            tag(
                "p",
                "Each block is one backend route on one device, run under several released versions of the "
                "backend. Only items whose status differs between versions are listed. Verdicts compare "
                "neighbouring versions that ran the item: pass to fail, error, crash or timeout is "
                "\u201cintroduced\u201d, the reverse \u201cfixed\u201d, any other step \u201cchanged\u201d. "
                "Hover a status for the backend's message.",
                {"class": "rule"},
            ),
            *[series_html(series) for series in found],
        ]
    )


def write(found: Sequence[Series], out: Path) -> Path:
    """A standalone page of :func:`section` (no script, like the diff page)."""
    header = page.header(TITLE, f"{len(found)} backend route(s) under several versions")
    write_atomically(out, page.document(TITLE, header, section(found)))
    return out
