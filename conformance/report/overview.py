"""The pass-rate table the summary opens with: one row per target, one column per op family.

It must fit the first screen with a dozen targets: targets are rows, op versions fold into their
family, and a cell is a rate alone, its counts in its tooltip; each opens the matrix.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from conformance import ids
from conformance.corpus.catalogue import op_order
from conformance.report.markup import Content, Html, join, table, tag, wide
from conformance.report.status_tables import judged_count, matrix_link, rate_level
from conformance.report.viewdata import op_family
from conformance.results.combined import CombinedResults
from conformance.statuses import PROBLEMS, STATUSES

ALL = "all targets"


def short_rate(passed: int, judged: int) -> str:
    """A pass rate that never rounds up to 100 % (``99.9%`` with one result failing)."""
    if not judged:
        return "n/a"
    if passed == judged:
        return "100%"
    return f"{int(1000 * passed / judged) / 10:.1f}%"


def rate_cell(counts: Counter[str] | None, **state: str) -> Html:
    """One target's rate on one family (or every family), coloured by how far from 100 % it is."""
    if not counts:
        return tag("span", "·", {"class": "none", "title": "no result"})
    judged = judged_count(counts)
    detail = ", ".join(f"{status} {counts[status]:,}" for status in STATUSES if counts[status])
    title = f"pass {counts['pass']:,} of {judged:,} judged ({detail})"
    rate = tag(
        "span", short_rate(counts["pass"], judged), {"class": f"rate {rate_level(counts)}", "title": title}
    )
    return matrix_link(rate, **state)


def _count_cell(count: int, cls: str, **state: str) -> Html:
    if not count:
        return tag("span", "0", {"class": "n zero"})
    return matrix_link(tag("span", f"{count:,}", {"class": f"n {cls}"}), **state)


def _family_header(family: str) -> Html:
    """``onnx`` over ``Split``: a family name on two lines keeps the columns narrow."""
    framework, _, name = family.partition(".")
    return tag("code", [framework, Html("<br>") if name else "", name], {"title": f"{family}, every version"})


def _cells(combined: CombinedResults) -> dict[tuple[str, str], Counter[str]]:
    """Status counts per (target, family), per target (family ""), per family (target ALL) and
    overall; tallied over the few distinct (adapter, route, device, op, status) keys."""
    distinct = Counter(
        (result["adapter"], result["route"], result["device"], result["op"], result["status"])
        for result in combined.results
    )
    cells: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for (adapter, route, device, op, status), count in distinct.items():
        target, family = ids.target_id(adapter, route, device), op_family(op)
        for key in ((target, family), (target, ""), (ALL, family), (ALL, "")):
            cells[key][status] += count
    return cells


def overview_table(combined: CombinedResults) -> Html:
    """Pass rate per target (rows) and op family (columns), with the counts a reader acts on."""
    cells = _cells(combined)
    ops = sorted({result["op"] for result in combined.results}, key=op_order)
    families = list(dict.fromkeys(op_family(op) for op in ops))  # in catalogue order
    rows: list[list[Content]] = []
    for target in [*(t["id"] for t in combined.targets), ALL]:
        where = {} if target == ALL else {"target": target}
        counts = cells.get((target, ""), Counter())
        rows.append(
            [
                matrix_link(tag("code", target), **where) if target != ALL else tag("b", ALL),
                rate_cell(counts, **where),
                *(rate_cell(cells.get((target, family)), op=family, **where) for family in families),
                _count_cell(sum(counts[s] for s in PROBLEMS), "st-fail", status="problems", **where),
                _count_cell(counts["xfail"], "st-xfail", status="xfail", **where),
                _count_cell(counts["unsupported"], "st-unsupported", status="unsupported", **where),
            ]
        )
    head: list[Content] = [
        "target",
        "pass rate",
        *(_family_header(family) for family in families),
        tag("span", "problems", {"title": "fail, error, crash, timeout, xpass: what fails a run"}),
        tag("span", "known (xfail)", {"title": "failures a known issue explains"}),
        tag("span", "not judged", {"title": "unsupported: the adapter cannot express the item"}),
    ]
    return join(
        [
            wide(table(head, rows, "overview")),
            tag(
                "p",
                "Pass rate = pass / judged (unsupported results are not judged; a known failure is not a "
                "pass); each family holds every version of its op (per version: further down). Select a "
                "rate or a count for its results.",
                {"class": "rule"},
            ),
        ]
    )
