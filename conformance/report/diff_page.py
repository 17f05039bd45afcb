"""The diff as a static page (no script): the categories of the terminal output with every message
in full, each list a ``<details>`` element, keyboard accessible and printed open.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from pathlib import Path

from conformance.report import page
from conformance.report.markup import Content, Html, definitions, folded, join, table, tag
from conformance.report.status_tables import status_badge
from conformance.report.viewdata import TIMES
from conformance.results.diff import Change, Diff, TimingChange, digest
from conformance.results.document import write_atomically
from conformance.results.result import Result

TITLE = "Operator conformance: run-to-run diff"


def _badge(status: str) -> Html:
    return status_badge(status) if status != "absent" else tag("span", "absent", {"class": "badge"})


def _listed(title: str, head: list[str], rows: list[list[Content]], open_: bool = False) -> Html:
    """A folded list: its title with a count, and its table (or "none")."""
    content = table(head, rows) if rows else tag("p", "none")
    return folded(f"{title}: {len(rows)}", content, open_=open_ and bool(rows))


def _changes(title: str, changes: list[Change]) -> Html:
    rows: list[list[Content]] = []
    for change in changes:
        shown = change.new or change.old
        message = tag("pre", shown.message if shown else "", {"class": "message"})
        rows.append([tag("code", change.key), _badge(change.old_status), _badge(change.new_status), message])
    return _listed(title, ["result (case::op@target)", "old", "new", "message (new run)"], rows, True)


def _timings(title: str, changes: list[TimingChange]) -> Html:
    rows: list[list[Content]] = [
        [
            tag("code", change.key),
            f"{change.old_ms:.4g} ms",
            f"{change.new_ms:.4g} ms",
            f"{TIMES}{change.ratio:.2f}",
            ", ".join(f"{value:.4g}" for value in change.old.steady_ms),
            ", ".join(f"{value:.4g}" for value in change.new.steady_ms),
        ]
        for change in changes
    ]
    head = ["result", "old median", "new median", "ratio", "old runs (ms)", "new runs (ms)"]
    return _listed(title, head, rows, True)


def render(diff: Diff) -> str:
    """The diff page."""
    generated = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    facts = f"{diff.old.label} → {diff.new.label}: {diff.verdict()}; generated {generated}"
    header = page.header(TITLE, facts)
    body = join(
        [
            _validity(diff),
            _facts(diff),
            _rules(diff),
            _changes("New failures", diff.new_failures),
            _changes("Fixes", diff.fixes),
            _changes("Other status changes", diff.changes),
            _timings("Timing regressions", diff.regressions),
            _timings("Timing improvements", diff.improvements),
            _only("crashes in the new run that did not reproduce alone", diff.died_once),
            _only("only in the new run", diff.added),
            _only("only in the old run", diff.removed),
        ]
    )
    return page.document(TITLE, header, body)


def _validity(diff: Diff) -> Html:
    """Why the runs do not compare, first on the page, and the notes that do not stop it."""
    parts: list[Html] = []
    if diff.problems:
        parts.append(tag("h2", "The comparison is not valid"))
        parts.append(tag("ul", [tag("li", problem) for problem in diff.problems]))
    if diff.notes:
        parts.append(tag("ul", [tag("li", f"Note: {note}") for note in diff.notes]))
    return tag("section", parts, {"class": "diff-validity"}) if parts else join([])


def _facts(diff: Diff) -> Html:
    """What was compared with what: both runs, how many results, whether the corpora agree."""
    return definitions(
        [
            ("old", [tag("code", diff.old.label), f" (suite {digest(diff.old.suite)})"]),
            ("new", [tag("code", diff.new.label), f" (suite {digest(diff.new.suite)})"]),
            (
                "compared",
                f"{diff.compared} results in both runs; {len(diff.added)} only in new, "
                f"{len(diff.removed)} only in old",
            ),
            (
                "corpus",
                "the same cases"
                if diff.same_suite
                else "the case corpora differ: results of changed cases may not compare",
            ),
        ]
    )


def _rules(diff: Diff) -> Html:
    """What counts as a new failure, a fix and a timing change, printed on the page."""
    return tag(
        "div",
        [
            tag(
                "p",
                "New failure: fail, error, crash or timeout in the new run, and none of those in the old one "
                "(or absent from it). Fix: fail, error, crash, timeout or xfail before, pass or xpass now. "
                "Any other change of status is listed as a status change.",
            ),
            tag("p", diff.rule.describe().capitalize() + "."),
        ],
        {"class": "diff-rule"},
    )


def _only(name: str, results: Sequence[Result]) -> Html:
    """The results only one of the runs has, folded."""
    return _listed(name, ["result", "status"], [[tag("code", r.key), _badge(r.status)] for r in results])


def write(diff: Diff, out: Path) -> Path:
    write_atomically(out, render(diff))
    return out
