"""pytest-xdist with the suite's plugin: ``pytest cases/ --adapter X -n 2``.

Each xdist worker runs its items through its own run of the suite (its own pool and crash
review) in a private folder removed at its end, and hands each result to the controlling process
with pytest's report (``user_properties``) and its whole outcome when it ends (``workeroutput``).
The controller runs no backend and writes the results file, JUnit XML and report a ``conformance
run`` of the same selection writes; it holds the output folder's lock from the session's start,
and takes the folder for its run (or refuses it) once the workers have collected, before any item
runs. Registered by :mod:`conformance.pytest.front_door` when ``-n`` asks for workers.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import pytest

from conformance import publishing
from conformance.errors import ConformanceError
from conformance.results.records import CrashReviewRecord
from conformance.results.result import Result
from conformance.run import planning, runner

#: the name of a result in a report's user_properties, and of an outcome in workeroutput
PROPERTY: Final = "conformance_result"
OUTPUT: Final = "conformance"


def is_worker(config: pytest.Config) -> bool:
    """Whether this process is one of xdist's workers."""
    return hasattr(config, "workerinput")


def is_controller(config: pytest.Config) -> bool:
    """Whether this process hands items to xdist workers (``-n N``, N above 0)."""
    return bool(getattr(config.option, "numprocesses", None)) and not is_worker(config)


def hand_over(config: pytest.Config, outcome: runner.ExecutionOutcome, review: Any) -> None:
    """A worker's outcome for the controller, in ``workeroutput``: sent when it ends, JSON-safe."""
    output: dict[str, Any] = getattr(config, "workeroutput")  # noqa: B009 (set by xdist, untyped)
    output[OUTPUT] = {
        "results": [json.dumps(result.to_json()) for result in outcome.results],
        "review": review,
    }


@dataclass(eq=False)  # a pytest plugin object: hashed by identity
class Gathered:
    """What the controller has received: every result by key, the corpus, the crash reviews."""

    config: pytest.Config
    #: the session's start, given the node ids a worker collected: returns the corpus (the
    #: plugin's _begin_gathered: the run checked against its folder, which is cleared for it)
    begin: Callable[[list[str]], tuple[str, ...]]
    #: the session's run over a corpus, with its narrowing (the plugin's _session_config)
    run_config: Callable[..., planning.RunConfig]
    loaded: list[Any]
    started: str = field(default_factory=runner.now)
    clock: float = field(default_factory=time.monotonic)
    results: dict[str, Result] = field(default_factory=dict)
    #: each item's status as its report gave it (the worker's crash review may amend it later)
    reported: dict[str, str] = field(default_factory=dict)
    corpus: tuple[str, ...] = ()
    review: CrashReviewRecord | None = None
    #: how many items the workers collected (after deselection): the selection
    selected: int = 0
    written: list[Path] = field(default_factory=list)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for name, value in report.user_properties:
            if name == PROPERTY:
                result = Result.from_json(json.loads(str(value)))
                self.results[result.key] = result
                self.reported[result.key] = result.status

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """The first worker's collection starts the run (every worker collects the same items)."""
        if ids and not self.corpus:
            self.corpus = self.begin(ids)
        self.selected = max(self.selected, len(ids))

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        output: Mapping[str, Any] | None = getattr(node, "workeroutput", {}).get(OUTPUT)
        if not output:  # a worker that ran none of the suite's items, or died
            return
        for body in output["results"]:
            result = Result.from_json(json.loads(body))
            self.results[result.key] = result
        if output["review"] is not None:
            budget = output["review"]["budget_s"]
            self.review = runner.merged_review(self.review, output["review"], budget)

    def write(self, interrupted: bool) -> list[Path]:
        """The one results file, JUnit XML and report of everything the workers ran (in the folder
        whose lock the session holds)."""
        if not self.results:
            return []
        config = self.run_config(self.corpus, keys=frozenset(self.results))
        interrupted = interrupted or len(self.results) < self.selected  # -x, --maxfail: fewer ran
        try:
            plan = planning.plan(config, self.loaded)
            order = {job.key: job.index for job in plan.jobs}
            results = sorted(self.results.values(), key=lambda result: order.get(result.key, len(order)))
            results = runner.with_reproducers(plan, results)
            wall_s = time.monotonic() - self.clock
            self.written, _ = runner.write_results(
                plan, config, results, self.started, wall_s, interrupted, self.review
            )
        except ConformanceError as error:
            raise pytest.UsageError(str(error)) from None
        page = publishing.run_report(self.written[0])
        self.written += [page] if page else []
        return self.written
