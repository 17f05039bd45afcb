"""A route with workers of its own (``Route.own_worker``): its jobs never share a process with
another route's, neither a worker that ran them nor the zygote, which holds the other backends'
modules: its workers fork from a zygote of their own.

Paddle needs this: it segfaults when imported into a process that imported TensorFlow. Here two
standard-library modules stand in for the two backends: each adapter imports its own when loaded
and refuses to run where the other's is imported.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from fake_adapters import Slicer

from conformance.engine.pool import Pool
from conformance.plugin import AdapterInfo, Target, Task
from conformance.results.result import Result
from conformance.run.planning import RunConfig, plan

CASES = """\
defaults: {source: own worker tests, data: {dtype: float32}, ops: [numpy.array_split]}
cases:
""" + "".join(
    f"  - {{id: c{n}, title: t, data: {{shape: [{6 + n}, 3]}}, axis: 0, indices: [1, 3]}}\n" for n in range(6)
)


class Mingler(Slicer):
    """Shares its workers: imports ``colorsys`` when loaded, fails where ``wave`` was imported."""

    name, mine, theirs = "mingler", "colorsys", "wave"

    def __init__(self, options: Mapping[str, str]) -> None:
        super().__init__(options)
        importlib.import_module(self.mine)

    def _run(self, compiled: tuple[int, ...], task: Task) -> Sequence[np.ndarray]:
        if self.theirs in sys.modules:
            raise RuntimeError(f"{self.name} runs in a process that imported {self.theirs}")
        return super()._run(compiled, task)


class Follower(Mingler):
    """Another adapter sharing its workers, whose jobs come after the loner's."""

    name = "follower"


class Loner(Mingler):
    """Its route has workers of its own: imports ``wave``, fails where ``colorsys`` was imported."""

    name, mine, theirs = "loner", "wave", "colorsys"

    def info(self) -> AdapterInfo:
        shared = super().info()
        return replace(shared, routes=tuple(replace(route, own_worker="test") for route in shared.routes))


def _jobs(tmp_path: Path) -> list:  # type: ignore[type-arg]
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "few.yaml").write_text(CASES, encoding="utf-8")
    adapters = tuple(f"test_own_worker:{name}" for name in ("Mingler", "Loner", "Follower"))
    config = RunConfig(case_paths=(str(tmp_path / "cases"),), adapters=adapters, repeat=0)
    return plan(config).jobs


@pytest.mark.slow  # seconds: subprocesses or imported backends
@pytest.mark.parametrize("size", [1, 2])
def test_a_route_with_workers_of_its_own_shares_no_process(tmp_path: Path, size: int) -> None:
    jobs = _jobs(tmp_path)
    assert [job.own_worker for job in jobs] == [False] * 6 + [True] * 6 + [False] * 6
    results: list[Result] = []
    parents: dict[int, object] = {}  # each worker's pid: the zygote it was forked from, if any

    def kept(result: Result) -> None:
        results.append(result)
        for slot in pool.slots:
            if result.worker and slot.process.pid == result.worker["pid"]:
                parents[slot.process.pid] = getattr(slot.process, "_zygote", None)

    # replaced every two jobs, so that workers are forked from the zygote once it is up
    pool = Pool(size, 60, kept, recycle_after=2, log_dir=tmp_path / "workers")
    pool.process(jobs)
    failed = [result.message for result in results if result.status != "pass"]
    assert len(results) == len(jobs) and not failed, failed
    pids = {name: {r.worker["pid"] for r in results if r.adapter == name} for name in ("mingler", "loner")}
    assert pids["loner"] and not pids["loner"] & pids["mingler"]
    # forked from one zygote, which no other route's worker was forked from
    (zygote,) = {parents[pid] for pid in pids["loner"]}
    assert zygote is not None and zygote not in {parents.get(pid) for pid in pids["mingler"]}


def test_a_route_of_its_own_is_marked_on_its_jobs_only(tmp_path: Path) -> None:
    jobs = _jobs(tmp_path)
    assert {job.group for job in jobs} == {None, "test_own_worker:Loner/slices"}
    assert Target("loner", "slices", "cpu") in {job.target for job in jobs if job.group}
