"""Which (case, op) pairs a command works on: the items, their stable ids and the filters.

An item id is ``<case id>::<op id>`` (``vsplit-doc-1::openvino.VariadicSplit-1``): stable,
greppable, and the same in the CLI, the pytest plugin, results files and reports.
"""

from __future__ import annotations

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

    @property
    def keywords(self) -> frozenset[str]:
        """Words ``-k`` matches against, without a target (``conformance list``)."""
        return keywords.words(self.case, self.op)


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
    matches = keywords.compile_keyword(keyword) if keyword else None
    chosen = []
    for case in cases:
        if tags and not set(tags) & set(case.tags):
            continue
        for op in catalogue.applicable_ops(case):
            item = Item(case, op)
            if wanted_ops is not None and op not in wanted_ops:
                continue
            if matches is not None and not matches(item.keywords):
                continue
            if item_ids and item.id not in item_ids:
                continue
            chosen.append(item)
    return chosen
