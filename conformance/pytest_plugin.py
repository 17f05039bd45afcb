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

from conformance import ids, publishing
from conformance.corpus.loader import NOT_CASE_DIRECTORIES
from conformance.errors import ConformanceError
from conformance.results.result import Result
from conformance.run import interruption, out_folder, planning, registry, runner
from conformance.run.shard import Shard
from conformance.run.worker import Job
from conformance.statuses import NOT_JUDGED

_RESULTS = pytest.StashKey[dict[str, Result]]()
_LOADED = pytest.StashKey[list[registry.LoadedAdapter]]()
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
    group.addoption(
        "--conformance-crash-budget",
        type=float,
        default=300.0,
        metavar="S",
        help="seconds to rerun crashed items alone and find the items that broke their workers",
    )
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
    try:  # the front door: every user-input error of the engine becomes pytest's usage error
        options = planning.parse_options(config.getoption("adapter_option"))
        shard = config.getoption("--conformance-shard")
        config.stash[_SHARD] = None if shard is None else Shard.parse(shard, "--conformance-shard")
        out_folder.check(Path(config.getoption("--conformance-out")), "--conformance-out")
        config.stash[_LOADED] = [
            registry.load(name, options.get(name, {})) for name in config.getoption("--adapter")
        ]
    except ConformanceError as error:
        raise pytest.UsageError(str(error)) from None
    config.stash[_OPTIONS] = options
    config.stash[_RESULTS] = {}


def _run_config(config: pytest.Config, case_paths: tuple[str, ...], **narrowing: Any) -> planning.RunConfig:
    """The run this session stands for, as ``conformance run`` would be configured for it."""
    options: dict[str, dict[str, str]] = config.stash[_OPTIONS]
    return planning.RunConfig(
        case_paths=case_paths,
        adapters=tuple(loaded.requested for loaded in config.stash[_LOADED]),
        options=options,
        jobs=config.getoption("--conformance-jobs"),
        timeout=config.getoption("--conformance-timeout"),
        repeat=config.getoption("--conformance-repeat"),
        crash_budget_s=config.getoption("--conformance-crash-budget"),
        out=Path(config.getoption("--conformance-out")),
        command=("pytest", *config.invocation_params.args),
        **narrowing,
    )


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
        """This file's jobs, planned exactly as ``conformance run --cases FILE`` plans them."""
        try:
            plan = planning.plan(_run_config(self.config, (str(self.path),)), self.config.stash[_LOADED])
        except ConformanceError as error:
            raise self.CollectError(str(error)) from None
        for job in plan.jobs:
            name = f"{ids.item_id(job.case.id, job.op)}[{job.target.id}]"
            yield ConformanceItem.from_parent(self, name=name, job=job)


class ConformanceFailure(Exception):
    """A result that leaves a run red (see conformance.statuses.GREEN)."""


class ConformanceItem(pytest.Item):
    def __init__(self, *, job: Job, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.job = job
        self.add_marker(pytest.mark.conformance)

    def runtest(self) -> None:
        result = self.config.stash[_RESULTS].get(self.job.key)
        if result is None:
            raise ConformanceFailure("no result: the run was interrupted before this item finished")
        if result.status in NOT_JUDGED:
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


def _corpus_paths(config: pytest.Config, items: list[ConformanceItem]) -> tuple[str, ...]:
    """The corpus as the command line named it (``pytest cases/`` stands for ``--cases cases/``),
    so the suite digest is the one ``conformance run`` computes for the same corpus and results of
    both front doors merge, report and diff together; the collected files when no path was named."""
    collected = {Path(item.path).resolve() for item in items}
    named = [Path(argument.split("::")[0]) for argument in config.args]
    corpus = [
        path
        for path in named
        if (path.is_dir() and any(file.is_relative_to(path.resolve()) for file in collected))
        or path.resolve() in collected
    ]
    return tuple(str(path) for path in corpus) or tuple(sorted(str(file) for file in collected))


def pytest_collection_finish(session: pytest.Session) -> None:
    """Run every selected item through the executor before pytest walks the items.

    The run is planned again over the collected files, narrowed to the items pytest kept (after
    ``-k``, ``--lf``, deselection and sharding), so its jobs are in the CLI's order and its
    results file is the one ``conformance run`` would write for the same selection.
    """
    config = session.config
    if not _active(config) or config.option.collectonly:
        return
    items = [item for item in session.items if isinstance(item, ConformanceItem)]
    if not items:
        return
    run_config = _run_config(
        config,
        _corpus_paths(config, items),
        keys=frozenset(item.job.key for item in items),
        shard=config.stash.get(_SHARD, None),
    )
    try:
        plan = planning.plan(run_config, config.stash[_LOADED])
    except ConformanceError as error:
        raise pytest.UsageError(str(error)) from None
    advice = f"interrupted: the results so far are in {run_config.out}/; the same command starts over"
    with interruption.boundary(lambda: advice, say=lambda _: None) as verb:
        try:
            outcome = runner.execute(plan, run_config)
        except ConformanceError as error:  # a journal that cannot be resumed, an unwritable --conformance-out
            raise pytest.UsageError(str(error)) from None
        verb.ended(outcome.interrupted)
        publishing.run_report(outcome.written[0])
        config.stash[_RESULTS].update({result.key: result for result in outcome.results})
    if verb.interrupted:
        pytest.exit(verb.advice, returncode=verb.status)
