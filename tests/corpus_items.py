"""The corpus's items as the adapters' tests use them in-process: the shipped cases loaded once,
an item's task, and an item judged on a target (``case::op`` ids, as results and known issues
name them)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from conformance.corpus.loader import Suite, load_paths
from conformance.plugin import AnyAdapter, Route, Target, Task
from conformance.results.result import Result
from conformance.loading import hooks, registry
from conformance.engine.item import make_task, run_item

CASES = Path(__file__).resolve().parent.parent / "cases"


@cache
def suite() -> Suite:
    return load_paths([CASES])


def task_of(item: str) -> Task:
    """The task an adapter receives for ``item`` (``case::op``)."""
    case_id, op = item.split("::")
    return make_task(suite().by_id(case_id), op)


def judge(adapter: AnyAdapter | hooks.Hooks, target: Target, item: str) -> Result:
    """``item`` executed and judged on ``target`` in this process (one steady run)."""
    case_id, op = item.split("::")
    return run_item(adapter, target, suite().by_id(case_id), op, repeat=1)
