"""The corpus's items as the adapters' tests use them in-process: the shipped cases loaded once,
an item's task, and an item judged on a target (``case::op`` ids, as results and known issues
name them)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from conformance.corpus.loader import Suite, load_paths
from conformance.engine.item import make_task, run_item
from conformance.loading import hooks
from conformance.plugin import Adapter, Target, Task
from conformance.results.result import Result

CASES = Path(__file__).resolve().parent.parent / "cases"


@cache
def suite() -> Suite:
    return load_paths([CASES])


def task_of(item: str) -> Task:
    """The task an adapter receives for ``item`` (``case::op``)."""
    case_id, op = item.split("::")
    return make_task(suite().by_id(case_id), op)


def judge(adapter: Adapter | hooks.Hooks, target: Target, item: str) -> Result:
    """``item`` executed and judged on ``target`` in this process (one steady run)."""
    case_id, op = item.split("::")
    return run_item(adapter, target, suite().by_id(case_id), op, repeat=1)
