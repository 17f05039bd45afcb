"""The corpus's items as the adapters' tests use them in-process: the shipped cases loaded once,
an item's task, and an item judged on a target (``case::op`` ids, as results and known issues
name them), and an adapter made wrong on purpose (:func:`with_outputs`)."""

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


def snippet(target: Target, task: Task) -> str | None:
    """The reproducer the installed adapter of ``target`` writes for ``task`` there (None: its
    route writes none)."""
    reproducer = registry.load(target.adapter).hooks.route(target).reproducer
    return None if reproducer is None else reproducer(task, target)


def with_outputs(adapter: AnyAdapter, change: Callable[[list[np.ndarray]], list[np.ndarray]]) -> hooks.Hooks:
    """``adapter``'s checked calls with every route's outputs copied and passed through ``change``
    before the suite sees them: a broken adapter (pieces swapped, a bit flipped) whose results the
    comparison must fail."""

    def changed(route: Route) -> Route:
        run = route.run
        assert run is not None

        def wrong(model: Any, task: Task) -> Sequence[np.ndarray]:
            return change([np.array(output, copy=True) for output in run(model, task)])

        return dataclasses.replace(route, run=wrong)

    checked = hooks.of(adapter)
    routes = {name: changed(route) for name, route in checked.routes.items()}
    return dataclasses.replace(checked, routes=routes)
