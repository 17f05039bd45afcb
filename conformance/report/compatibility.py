"""The compatibility view: one request, what each op's spec answers, and what each target returned.

Grouping results by case sets apart where ops differ from each other (a *definitional*
difference a model converter must know about) and where a target departs from its own op's
reference (a *bug*). The page draws the view from the embedded data; this module holds the
grouping rules, so tests and other consumers apply the same ones.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from conformance import ids
from conformance.corpus.catalogue import op_order
from conformance.report.markup import Html, join, tag
from conformance.report.viewdata import actual_text, expected_text
from conformance.results.records import ResultRecord
from conformance.statuses import DEVIATING


def answer_key(expected: str) -> str:
    """What makes two ops' answers the same: shapes alike, or both rejecting (by whatever rule)."""
    return "rejects" if expected.startswith("rejects (") else expected


@dataclass
class CaseView:
    """One case's row group: per op the reference's answer, per (op, target) what came back."""

    case: str
    expected: dict[str, str] = field(default_factory=dict)
    returned: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)

    @property
    def ops_differ(self) -> bool:
        """True when the ops' references do not all give the same answer (a definitional difference)."""
        return len({answer_key(text) for text in self.expected.values()}) > 1

    @property
    def deviations(self) -> list[tuple[str, str]]:
        """(op, target) pairs where the target departs from its op's reference (a bug)."""
        return sorted(key for key, (status, _) in self.returned.items() if status in DEVIATING)

    def groups(self) -> dict[str, int]:
        """Each op's answer class: ops sharing a number agree with each other."""
        answers: dict[str, int] = {}
        classes: dict[str, int] = {}
        for op in sorted(self.expected, key=op_order):
            answers[op] = classes.setdefault(answer_key(self.expected[op]), len(classes))
        return answers


def group(results: Iterable[ResultRecord]) -> dict[str, CaseView]:
    """The results grouped by case, in order of first appearance."""
    views: dict[str, CaseView] = {}
    for result in results:
        view = views.setdefault(result["case"], CaseView(result["case"]))
        dtype = result["params"].get("data", {}).get("dtype")
        view.expected[result["op"]] = expected_text(result["expected"], dtype)
        view.returned[(result["op"], ids.record_target(result))] = (result["status"], actual_text(result))
    return views


def section(legend: Html) -> Html:
    """The static part of the view: what it shows and how to read it (the page fills the rest)."""
    return join(
        [
            tag("h2", "Compatibility: one request, every op, every target"),
            tag(
                "p",
                "Each block is one request (data, axis, and the pieces asked for) judged under every op "
                "that can express it. The reference column is what each op's spec answers; ops whose "
                "answers differ are marked with different letters (A, B, …): a definitional difference "
                "between frameworks. A target cell outlined in red departs from its own op's reference: "
                "a bug in that backend (known ones are xfail). Ambiguous spec points list every reading "
                "and the one each target matched.",
                {"class": "rule"},
            ),
            legend,
            tag("div", None, {"id": "compat", "class": "compat"}),
        ]
    )
