"""The compatibility view: one request, what each op's spec answers, and what each target returned.

Grouping results by case sets apart where ops differ from each other (a *definitional*
difference a model converter must know about) and where a target departs from its own op's
reference (a *bug*). The page's script (assets/compat.js) draws the view from the embedded data;
this module writes its static part.
"""

from __future__ import annotations

from conformance.report.markup import Html, join, tag


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
