"""Which (case, op) pairs a command works on: the items, their stable ids and the filters.

An item id is ``<case id>::<op id>`` (``vsplit-doc-1::openvino.VariadicSplit-1``): stable,
greppable, and the same in the CLI, the pytest plugin, results files and reports.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from conformance import ids
from conformance.corpus import catalogue
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

    @property
    def keywords(self) -> frozenset[str]:
        """Words ``-k`` matches against: the ids, the tags, the form and the dtype."""
        return frozenset({self.case.id, self.op, *self.case.tags, self.case.form.kind, self.case.data.dtype})


def select(
    cases: Iterable[Case],
    op_patterns: Sequence[str] = (),
    tags: Sequence[str] = (),
    keyword: str | None = None,
    item_ids: Sequence[str] = (),
) -> list[Item]:
    """Every applicable item of ``cases``, narrowed by op patterns, tags (any of), ``-k`` and
    exact item ids (``case::op``, as reproducers name them).

    Order is deterministic: cases in suite order, then ops in catalogue order.
    """
    wanted_ops = set(catalogue.match(op_patterns)) if op_patterns else None
    if op_patterns and not wanted_ops:
        raise UsageError(f"--op {' '.join(op_patterns)} matches no op; known: {', '.join(catalogue.OPS)}")
    matches = compile_keyword(keyword) if keyword else None
    chosen = []
    for case in cases:
        if tags and not set(tags) & set(case.tags):
            continue
        for op in catalogue.applicable_ops(case):
            item = Item(case, op)
            if wanted_ops is not None and op not in wanted_ops:
                continue
            if matches is not None and not matches(item):
                continue
            if item_ids and item.id not in item_ids:
                continue
            chosen.append(item)
    return chosen


_TOKEN = re.compile(r"\s*(\(|\)|[^\s()]+)")


def compile_keyword(expression: str) -> Callable[[Item], bool]:
    """A ``-k`` expression as a predicate, in pytest's style: words joined by and / or / not,
    with parentheses; a word matches when it is a substring of the item id or equals one of its
    keywords. Parsed here rather than evaluated, so no expression can run code."""
    tokens: list[str] = _TOKEN.findall(expression)
    position = 0

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def take() -> str:
        nonlocal position
        if position >= len(tokens):
            raise UsageError(f"-k {expression!r}: the expression ends too early")
        position += 1
        return tokens[position - 1]

    def disjunction() -> Callable[[Item], bool]:
        parts = [conjunction()]
        while peek() == "or":
            take()
            parts.append(conjunction())
        return lambda item: any(part(item) for part in parts)

    def conjunction() -> Callable[[Item], bool]:
        parts = [negation()]
        while peek() == "and":
            take()
            parts.append(negation())
        return lambda item: all(part(item) for part in parts)

    def negation() -> Callable[[Item], bool]:
        if peek() == "not":
            take()
            inner = negation()
            return lambda item: not inner(item)
        token = take()
        if token == "(":
            inner = disjunction()
            if take() != ")":
                raise UsageError(f"-k {expression!r}: a parenthesis is not closed")
            return inner
        if token in (")", "and", "or"):
            raise UsageError(f"-k {expression!r}: unexpected {token!r}")
        return lambda item: token in item.id or token in item.keywords

    predicate = disjunction()
    if position != len(tokens):
        raise UsageError(f"-k {expression!r}: unexpected {tokens[position]!r}")
    return predicate
