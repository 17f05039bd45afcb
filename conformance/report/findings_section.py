"""The summary's findings: the unexplained ones in full, adapter and harness defects apart, the
known ones folded in a closed ``<details>``, so a hundred known findings never bury the news.
"""

from __future__ import annotations

from collections.abc import Sequence

from conformance.report import urlkeys
from conformance.report.headline import Verdict, plural
from conformance.report.markup import Content, Html, join, table, tag, text, wide
from conformance.report.status_tables import known_issue_table, status_badge
from conformance.results.combined import CombinedResults
from conformance.results.records import FindingRecord
from conformance.statuses import DEFECT_LABELS, DEFECT_MEANINGS

HEAD = ["results", "status", "target", "family", "kind", "message", "known issue"]


def findings_table(found: Sequence[FindingRecord], cls: str, defect: str = "") -> Html:
    """One row per finding, its count a link to the matrix on its target and status with its
    first result open (``defect`` narrows the link to results with that defect)."""
    rows: list[list[Content]] = []
    for finding in found:
        state = {"view": "matrix", "target": finding["target"], "status": finding["status"], "defect": defect}
        state["op"] = finding["ops"][0] if len(finding["ops"]) == 1 else ""  # empty keys are left out
        state["open"] = finding["representative"]
        known = finding["known_issue"]
        rows.append(
            [
                tag("a", f"{finding['count']:,}", {"href": urlkeys.link(state)}),
                status_badge(finding["status"]),
                tag("code", breakable(finding["target"])),
                tag("code", finding["family"]),
                finding["kind"],
                tag("code", finding["message"], {"class": "message"}),
                tag("code", known) if known else "—",
            ]
        )
    return wide(table(HEAD, rows, cls))


def breakable(target: str) -> Html:
    """A target id that may wrap after each ``/`` (and nowhere else): long labels stay readable."""
    return Html("/<wbr>".join(text(part) for part in target.split("/")))


def _grouping_rule(found: Sequence[FindingRecord]) -> Html:
    total = sum(finding["count"] for finding in found)
    return tag(
        "p",
        f"{plural(len(found), 'distinct problem')} in {plural(total, 'result')}: results that share "
        "target, op family, status, kind and the backend's message (numbers and names masked) are one "
        "finding. Select a count for its results.",
        {"class": "rule"},
    )


def unexplained_section(verdict: Verdict) -> Html:
    """The backend's departures no known issue explains: the news, in full."""
    if not verdict.unexplained:
        said = (
            "every departure from a spec is a known issue (below)"
            if verdict.known
            else "no result departs from its spec"
        )
        return tag("p", f"None: {said}.", {"class": "rule"})
    return join([_grouping_rule(verdict.unexplained), findings_table(verdict.unexplained, "findings")])


def defects_section(verdict: Verdict) -> Html:
    """Adapter defects and harness failures: no verdict on the backend, each kind apart."""
    parts: list[Content] = []
    for kind, found in verdict.defects.items():
        count = verdict.defect_results[kind]
        meaning = DEFECT_MEANINGS[kind].partition(": ")[2]
        parts.append(tag("h3", f"{plural(count, DEFECT_LABELS[kind])}: {meaning}"))
        parts.append(findings_table(found, f"findings defects-{kind}", defect=kind))
    return join(parts)


def known_section(verdict: Verdict, combined: CombinedResults) -> Html:
    """The departures a known issue explains, folded under their count."""
    if not verdict.known and not verdict.counts["xpass"]:
        return Html("")
    xfail = verdict.counts["xfail"]
    summary = tag(
        "summary",
        tag(
            "h3",
            f"Known issues: {plural(xfail, 'result')} (xfail) in {plural(len(verdict.known), 'finding')}",
        ),
    )
    inside: list[Content] = [known_issue_table(combined.results)]
    if verdict.known:
        inside += [
            tag("h3", "Known findings"),
            _grouping_rule(verdict.known),
            findings_table(verdict.known, "known-findings"),
        ]
    return tag("details", [summary, *inside], {"class": "known-findings"})
