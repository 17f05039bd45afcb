"""The summary's crashes: every item a worker died on, told apart by what the crash review found.

An item's own crash needs a backend developer; one that did not reproduce alone points to an
earlier item (its culprit, when found); an unconfirmed one needs a second look. So each is shown
with its evidence (how the worker died, in which phase, after how many items), never mixed up.
"""

from __future__ import annotations

from collections import Counter

from conformance import ids
from conformance.report import urlkeys
from conformance.report.headline import plural
from conformance.report.markup import Content, Html, join, table, tag, wide
from conformance.report.status_tables import status_badge
from conformance.results.combined import CombinedResults
from conformance.results.records import ResultRecord

#: The review's outcomes, in the order the table lists them, and each one's words.
OUTCOMES = {
    "confirmed": "the item's own, it died again alone in a fresh worker",
    "unconfirmed": "not run again (the review's budget was spent, or the run stopped)",
    "culprit": "it ran, and left its worker broken for a later item",
    "not reproduced": "alone it got the verdict shown; an earlier item broke its worker",
    "known": "a known issue says the item crashes; not run again (counted, not listed)",
}
HEAD = ["outcome", "item", "target", "status", "how the worker died", "phase", "items before", "related item"]


def _link(key: str, target: str) -> Html:
    return tag(
        "a",
        tag("code", key.partition("@")[0]),
        {"href": urlkeys.link({"view": "matrix", "target": target, "open": key})},
    )


def _row(result: ResultRecord) -> list[Content]:
    crash = result["crash"]
    target = ids.record_target(result)
    related = crash.get("victim") if crash["outcome"] == "culprit" else crash.get("culprit")
    return [
        crash["outcome"],
        _link(ids.record_key(result), target),
        tag("code", target),
        status_badge(result["status"]),
        crash["exit"],
        crash["phase"] or "—",
        f"{crash['ran_before']:,}",
        _link(related, target) if related else (crash.get("search") or "—"),
    ]


def counted(counts: Counter[str]) -> str:
    """``1 culprit, 2 not reproduced, 311 known``: each outcome's count in the table's order; only
    "culprit" is a noun (the others are what the review found of a crash, and take no plural)."""
    return ", ".join(
        plural(counts[outcome], outcome) if outcome == "culprit" else f"{counts[outcome]:,} {outcome}"
        for outcome in OUTCOMES
        if counts[outcome]
    )


def crashes_section(combined: CombinedResults) -> Html:
    """The table of every result with crash evidence, by outcome; nothing when no worker died."""
    died = [result for result in combined.results if result.get("crash")]
    if not died:
        return Html("")
    rank = {outcome: number for number, outcome in enumerate(OUTCOMES)}
    died.sort(key=lambda result: rank.get(result["crash"]["outcome"], len(rank)))
    listed = [result for result in died if result["crash"]["outcome"] != "known"]
    counts = Counter(result["crash"]["outcome"] for result in died)
    said = counted(counts)
    rule = "; ".join(f"{outcome}: {OUTCOMES[outcome]}" for outcome in OUTCOMES if counts[outcome])
    return join(
        [
            tag("h3", f"Crashes and timeouts: {said}"),
            tag("p", rule, {"class": "rule"}),
            wide(table(HEAD, [_row(result) for result in listed], "crashes")) if listed else Html(""),
        ]
    )
