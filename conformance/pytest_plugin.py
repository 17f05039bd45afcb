"""The pytest front door: ``pytest cases/ --adapter onnxruntime`` collects the YAML cases.

Each (case, op, target) becomes a test item with a stable id
(``cases/lengths.yaml::lengths-minus1-first::onnx.Split-13[onnxruntime/default/cpu]``), so
pytest's own ``-k``, ``--lf`` and reporting work. Items are not executed one by one in the
pytest process: once collection (and deselection) is done, every selected item goes through
the same executor as ``conformance run`` (worker processes, timeouts, journal) and each item
then reports its result. The same results file and JUnit XML are written.

The plugin is inert unless ``--adapter`` is given, so it never touches other test suites.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance.corpus.catalogue import applicable_ops
from conformance.corpus.loader import (
    NOT_CASE_DIRECTORIES,
    CaseFileError,
    CaseFileErrors,
    load_file,
    load_paths,
)
from conformance.results.result import Result
from conformance.run import known_issues, registry, runner
from conformance.run.shard import Shard
from conformance.run.worker import Job

_RESULTS = pytest.StashKey[dict[str, Result]]()
_LOADED = pytest.StashKey[list[registry.Loaded]]()
_OPTIONS = pytest.StashKey[dict[str, dict[str, str]]]()
_SHARD = pytest.StashKey[Shard | None]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance", "Split conformance suite")
    group.addoption(
        "--adapter",
        action="append",
        default=[],
        metavar="NAME",
        help="run the YAML cases collected here on this adapter (repeatable)",
    )
    group.addoption(
        "--adapter-option",
        action="append",
        default=[],
        metavar="ADAPTER.KEY=VALUE",
        help="adapter option, e.g. openvino.device=CPU",
    )
    group.addoption("--conformance-jobs", type=int, default=1, metavar="N", help="worker processes")
    group.addoption("--conformance-timeout", type=float, default=120.0, metavar="S", help="per-item limit")
    group.addoption("--conformance-repeat", type=int, default=3, metavar="N", help="steady-state runs")
    group.addoption("--conformance-out", default="reports", metavar="DIR", help="where results go")
    group.addoption(
        "--conformance-shard",
        metavar="I/N",
        help="run only shard I of N (the items `conformance run --shard I/N` runs); the rest are deselected",
    )


def _active(config: pytest.Config) -> bool:
    return bool(config.getoption("--adapter"))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "conformance: an item of the Split conformance suite")
    if not _active(config):
        return
    try:
        options = runner.parse_options(config.getoption("adapter_option"))
    except ValueError as error:
        raise pytest.UsageError(str(error)) from None
    config.stash[_OPTIONS] = options
    try:
        config.stash[_LOADED] = [
            registry.load(name, options.get(name, {})) for name in config.getoption("--adapter")
        ]
    except registry.PluginError as error:
        raise pytest.UsageError(str(error)) from None
    config.stash[_RESULTS] = {}
    shard = config.getoption("--conformance-shard")
    try:
        config.stash[_SHARD] = None if shard is None else Shard.parse(shard, "--conformance-shard")
    except ValueError as error:
        raise pytest.UsageError(str(error)) from None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> CaseFile | None:
    if (
        _active(parent.config)
        and file_path.suffix in (".yaml", ".yml")
        and file_path.parent.name not in NOT_CASE_DIRECTORIES  # cases/profiles/ holds no cases
    ):
        return CaseFile.from_parent(parent, path=file_path)
    return None


class CaseFile(pytest.File):
    def collect(self) -> Iterator[ConformanceItem]:
        try:
            cases = load_file(self.path)
        except (CaseFileError, CaseFileErrors) as error:
            raise self.CollectError(str(error)) from None
        for adapter in self.config.stash[_LOADED]:
            for target in adapter.targets():
                runnable = set(adapter.route_ops(target.route))
                for case in cases:
                    for op in applicable_ops(case):
                        if op in runnable:
                            job = Job(
                                0,
                                adapter.spec,
                                target,
                                case,
                                op,
                                self.config.getoption("--conformance-repeat"),
                                self.config.stash[_OPTIONS].get(adapter.spec, {}),
                            )
                            yield ConformanceItem.from_parent(
                                self, name=f"{case.id}::{op}[{target.id}]", job=job
                            )


class ConformanceFailure(Exception):
    """A result outside pass / xfail / unsupported / skip."""


class ConformanceItem(pytest.Item):
    def __init__(self, *, job: Job, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.job = job
        self.add_marker(pytest.mark.conformance)

    def runtest(self) -> None:
        result = self.config.stash[_RESULTS].get(self.job.key)
        if result is None:
            raise ConformanceFailure("no result: the run was interrupted before this item finished")
        if result.status in ("unsupported", "skip"):
            pytest.skip(f"{result.status}: {result.message}")
        if result.status == "xfail":
            pytest.xfail(result.message)
        if result.status != "pass":
            raise ConformanceFailure(f"{result.status}: {result.message}")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ConformanceFailure):
            return f"{self.job.key}\n{excinfo.value}\ncase: {self.job.case.location}"
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.job.case.location.line - 1, self.name


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With --conformance-shard, deselect the items of the other shards (by the CLI's rule)."""
    shard = config.stash.get(_SHARD, None)
    if shard is None:
        return
    kept: list[pytest.Item] = []
    deselected: list[pytest.Item] = []
    for item in items:
        mine = not isinstance(item, ConformanceItem) or shard.owns(item.job.key)
        (kept if mine else deselected).append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = kept


def pytest_collection_finish(session: pytest.Session) -> None:
    """Run every selected item through the executor before pytest walks the items."""
    config = session.config
    if not _active(config) or config.option.collectonly:
        return
    items = [item for item in session.items if isinstance(item, ConformanceItem)]
    if not items:
        return
    loaded = config.stash[_LOADED]
    jobs = [
        Job(
            index,
            item.job.adapter,
            item.job.target,
            item.job.case,
            item.job.op,
            item.job.repeat,
            item.job.options,
        )
        for index, item in enumerate(items)
    ]
    files = sorted({str(item.path) for item in items})
    issues = [
        issue for adapter in loaded for issue in known_issues.shipped(adapter.info.name, adapter.reference)
    ]
    plan = runner.Plan(load_paths(files), loaded, jobs, issues)
    run_config = runner.RunConfig(
        case_paths=tuple(files),
        jobs=config.getoption("--conformance-jobs"),
        timeout=config.getoption("--conformance-timeout"),
        repeat=config.getoption("--conformance-repeat"),
        out=Path(config.getoption("--conformance-out")),
        keyword=config.getoption("keyword") or None,
        command=("pytest", *config.invocation_params.args),
        shard=config.stash.get(_SHARD, None),
    )
    outcome = runner.execute(plan, run_config)
    config.stash[_RESULTS].update({result.key: result for result in outcome.results})
