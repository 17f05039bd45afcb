"""Which (case, op) pairs a command works on: the items, their ids (``<case id>::<op id>``, the same
in the CLI, the pytest plugin, results files and reports) and the filters.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from conformance import ids
from conformance.corpus import catalogue, keywords
from conformance.corpus.case import Case
from conformance.errors import UsageError


@dataclass(frozen=True)
class Item:
    """One case judged under one op."""

    case: Case
    op: str

    @property
    def id(self) -> str:
        return ids.item_id(self.case.id, self.op)


def select(
    cases: Iterable[Case],
    op_patterns: Sequence[str] = (),
    tags: Sequence[str] = (),
    keyword: str | None = None,
    item_ids: Sequence[str] = (),
) -> list[Item]:
    """Every applicable item of ``cases`` (in suite, then catalogue order), narrowed by op patterns,
    tags (any of), ``-k`` and exact item ids."""
    wanted_ops = set(catalogue.match(op_patterns)) if op_patterns else None
    if op_patterns and not wanted_ops:
        raise UsageError("; ".join(unmatched_ops(op_patterns)))
    matches = keywords.compile_keyword(keyword) if keyword else None
    chosen = []
    for case in cases:
        if tags and not set(tags) & set(case.tags):
            continue
        for op in catalogue.applicable_ops(case):
            item = Item(case, op)
            if wanted_ops is not None and op not in wanted_ops:
                continue
            if matches is not None and not matches(keywords.words(case, op)):  # no target: as listed
                continue
            if item_ids and item.id not in item_ids:
                continue
            chosen.append(item)
    return chosen


def close_to(value: str, choices: Iterable[str]) -> str:
    """``did you mean a, b?`` for the choices closest to a mistyped ``value``; empty when none is close."""
    close = difflib.get_close_matches(value, list(choices), n=3)
    return f"did you mean {', '.join(close)}?" if close else ""


def unmatched_ops(patterns: Sequence[str]) -> list[str]:
    """A problem for each ``--op`` id or glob that names no op of the catalogue."""
    known = "known: " + ", ".join(catalogue.OPS)
    return [
        f"--op {pattern!r} matches no op; {close_to(pattern, catalogue.OPS) or known}"
        for pattern in patterns
        if not catalogue.match([pattern])
    ]


def unmatched_tags(tags: Sequence[str], cases: Iterable[Case]) -> list[str]:
    """A problem for each ``--tag`` no case has (tags are matched exactly, as :func:`select` does)."""
    known = sorted({tag for case in cases for tag in case.tags})
    return [
        f"--tag {tag!r}: no case has it; {close_to(tag, known) or 'tags: ' + ', '.join(known)}"
        for tag in tags
        if tag not in known
    ]


def missing_items(wanted: Sequence[str], cases: Iterable[Case]) -> list[str]:
    """What is wrong with each ``--item`` that names no item: the case (with close case ids) or
    the op (with the case's ops)."""
    ops_of: dict[str, list[str]] = {}
    for item in select(cases):
        ops_of.setdefault(item.case.id, []).append(item.op)
    problems = []
    for one in wanted:
        case, _, op = one.partition("::")
        if case not in ops_of:
            hint = close_to(case, ops_of) or "`conformance list` shows the items"
            problems.append(f"--item {one!r}: no case {case!r} in the corpus; {hint}")
        elif op not in ops_of[case]:
            hint = close_to(op, ops_of[case])
            only = f"--item {one!r}: case {case!r} has items for {', '.join(ops_of[case])} only"
            problems.append(f"{only}; {hint}" if hint else only)
    return problems
