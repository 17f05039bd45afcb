"""What the compatibility page says of a backend and where its links go, in words and links that
both of its formats render (:mod:`conformance.report.compat_html`, ``compat_markdown``), so the
HTML and the Markdown cannot tell a verdict differently.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import TypeAlias
from urllib.parse import urlsplit

from conformance.report import urlkeys
from conformance.results.behaviours import BEHAVIOURS
from conformance.results.compat_table import CompatPage, routes
from conformance.results.departures import Departure, Verdict
from conformance.results.records import KnownIssueRecord
from conformance.statuses import DEFECT_LABELS

#: The symbols of the backends table, with what each says (its legend).
SYMBOLS: dict[str, tuple[str, str]] = {
    "conforms": (
        "✓",
        "conforms: every result of the row was judged, on every target, and matches its op's spec",
    ),
    "departs": ("✗", "departs on this behaviour; the numbers are the known issues below"),
    "departs (unexplained)": ("✗ ?", "departs on this behaviour where no known issue explains it"),
    "departs for another row": (
        "↗",
        "conforms on this behaviour: the requests of the row that depart do so for another row's "
        "behaviour, which the row's section names",
    ),
    "not all judged": (
        "!",
        "not all judged: the number counts the results the adapter's code or the suite failed on "
        "(a ! alone: its run was interrupted, items never ran); never a ✓",
    ),
    "unsupported": ("\u2013", "unsupported: the adapter cannot express these requests"),  # an en dash
    "": ("·", "not run"),
}
#: The CSS class of each verdict's cell.
CLASSES = {
    "conforms": "v-conforms",
    "departs": "v-departs",
    "departs (unexplained)": "v-unexplained",
    "departs for another row": "v-elsewhere",
    "not all judged": "v-unjudged",
    "unsupported": "v-unsupported",
    "": "v-none",
}
#: The characters of a finding's words a verdict quotes.
KIND_CHARS = 64
#: The reports rows link to: one for every results document (a path or URL, None: no report),
#: one for all of them, or none.
Reports: TypeAlias = str | Sequence[str | None] | None


@dataclass(frozen=True)
class Link:
    """A link (or plain words, without ``href``) in a verdict; ``code`` for an identifier."""

    label: str
    href: str | None = None
    title: str = ""
    code: bool = False


Piece: TypeAlias = str | Link


def safe_link(url: str) -> str | None:
    """``url`` when it is http(s), the only links that may leave the page; None otherwise."""
    return url if urlsplit(url).scheme in ("http", "https") else None


def report_link(report: str | None, **state: str) -> str | None:
    """A link into the report's compatibility view, or None when there is no report."""
    return None if report is None else report + urlkeys.link({"view": "compat", **state})


def report_links(page: CompatPage, reports: Reports, documents: set[int], **state: str) -> list[Link]:
    """Links into the report of each results document among ``documents`` (where a row's or an
    example's results came from): one "in the report" where they share one, else one a report,
    named after its results file's folder."""
    if reports is None or isinstance(reports, str):
        href = report_link(reports, **state)
        return [Link("in the report", href)] if href else []
    found: dict[str, int] = {}
    for number in sorted(documents):
        href = report_link(reports[number], **state) if number < len(reports) else None
        if href is not None:
            found.setdefault(href, number)
    if len(found) == 1:
        return [Link("in the report", next(iter(found)))]
    names = source_names(page.sources)
    return [Link(names[number], href, page.sources[number]) for href, number in found.items()]


def source_names(sources: Sequence[str]) -> list[str]:
    """A short name for each results file: its folder's name where that names it alone."""
    folders = [PurePath(source).parent.name or source for source in sources]
    return [folder if folders.count(folder) == 1 else source for folder, source in zip(folders, sources, strict=True)]


def cell(page: CompatPage, verdict: Verdict) -> tuple[str, list[Link], str]:
    """A backend cell of the second table: its symbol, the known issues' numbers (links to the
    list), and what follows them (``!12``: results not judged beside a departure)."""
    symbol = SYMBOLS[verdict.word][0]
    numbers = sorted(page.known_number(issue_id) for issue_id in verdict.known)
    issues = [Link(str(n), f"#ki-{n}", page.known[n - 1]["id"]) for n in numbers]
    unjudged = verdict.unjudged
    if verdict.word == "not all judged":
        return symbol, issues, f"{unjudged:,}" if unjudged else ""
    return symbol, issues, f"!{unjudged:,}" if unjudged else ""


def tally(verdict: Verdict) -> str:
    """A cell's counts, for its tooltip: ``2 of 163 judged results depart, 0 for this behaviour``."""
    judged = verdict.conforms + verdict.departing
    own = sum(found.own for found in verdict.departures.values())
    parts = [f"{verdict.departing:,} of {judged:,} judged results depart, {own:,} for this behaviour"]
    if verdict.unjudged:
        parts.append(f"{verdict.unjudged:,} not judged")
    if verdict.unsupported:
        parts.append(f"{verdict.unsupported:,} unsupported")
    if verdict.interrupted:
        parts.append("its run was interrupted")
    return "; ".join(parts)


def reasons(page: CompatPage, verdict: Verdict, adapter: str, *, brief: bool = False) -> list[list[Piece]]:
    """A verdict in words, a part a problem: each departure (its count, the finding, its known
    issue linked, the targets it concerns, the rows it belongs to when not this one), then the
    results no one judged. ``brief``: the departures in one part, counted, with their issues and
    rows alone (an example's cell, beside the row's)."""
    every = page.adapters[adapter]
    judged = verdict.conforms + verdict.departing
    order = sorted(verdict.departures.values(), key=lambda found: _rank(page, found))
    if brief:
        return _brief(verdict, judged, order)
    parts = [_departure(found, judged, every) for found in order]
    defects: dict[str, Counter[str]] = {}
    for (kind, target), count in verdict.defects.items():
        defects.setdefault(kind, Counter())[target] += count
    for kind, targets in defects.items():
        said = f"{sum(targets.values()):,} not judged ({DEFECT_LABELS.get(kind, kind)})"
        parts.append([said, *_on(routes(set(targets), every))])
    if verdict.interrupted:
        parts.append(["run interrupted: items never ran", *_on(routes(verdict.interrupted, every))])
    if verdict.defects or verdict.interrupted:
        parts.append([f"{verdict.conforms:,} conform"])
    return parts


def _rank(page: CompatPage, found: Departure) -> tuple[int, int, int]:
    """This row's own departures first, the known issues by number, then the largest."""
    number = page.known_number(found.issue["id"]) if found.issue else len(page.known) + 1
    return (0 if found.own else 1, number, -found.results)


def _brief(verdict: Verdict, judged: int, order: Sequence[Departure]) -> list[list[Piece]]:
    """One part: ``5 of 23 depart: `issue`; for <row>; 3 not judged``."""
    said: list[Piece] = [f"{verdict.departing:,} of {judged:,} depart"] if verdict.departing else []
    issues = list({found.issue["id"]: found.issue for found in order if found.issue}.values())
    for number, issue in enumerate(issues):
        said += [", " if number else ": ", _issue(issue)]
    rows: Counter[int] = sum((found.elsewhere for found in order), Counter())
    if rows and not any(found.own for found in order):
        said += ["; for ", *_rows(rows)]
    if verdict.unjudged:
        said += ["; " if said else "", f"{verdict.unjudged:,} not judged"]
    if verdict.interrupted:
        said += ["; " if said else "", "run interrupted"]
    return [said] if said else []


def _departure(found: Departure, judged: int, every: Sequence[str]) -> list[Piece]:
    """``3 of 40 depart: `finding` (`known-issue`) on export/cpu; 2 of them for <row>``."""
    kind = found.kind if len(found.kind) <= KIND_CHARS else found.kind[: KIND_CHARS - 1] + "…"
    said: list[Piece] = [f"{found.results:,} of {judged:,} depart: ", Link(kind, code=True)]
    if found.issue:
        said += [" (", _issue(found.issue), ")"]
    if found.own:
        said += _on(routes(set(found.targets), every))
    if found.elsewhere:
        said += ["; all for " if not found.own else f"; {found.away:,} of them for ", *_rows(found.elsewhere)]
    return said


def _issue(issue: KnownIssueRecord) -> Link:
    return Link(issue["id"], safe_link(issue["link"]), issue["reason"][:300], True)


def _rows(counts: Counter[int]) -> list[Piece]:
    """Links to the rows of ``counts`` (row numbers), the one with most results first."""
    said: list[Piece] = []
    for number, row in enumerate(sorted(counts, key=lambda row: -counts[row])):
        behaviour = BEHAVIOURS[row]
        said += [", " if number else "", Link(behaviour.title, f"#{behaviour.slug}")]
    return said


def _on(found: list[str]) -> list[Piece]:
    """`` on export/cpu, jit/cpu``: the routes and devices a part concerns (none: all of them)."""
    said: list[Piece] = [" on "] if found else []
    for number, route in enumerate(found):
        said += [", " if number else "", Link(route, code=True)]
    return said
