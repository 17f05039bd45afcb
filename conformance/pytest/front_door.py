"""The pytest front door: ``pytest cases/ --adapter onnxruntime`` collects the YAML cases.

Each (case, op, target) is a test item with a stable id
(``cases/lengths.yaml::lengths-minus1-first::onnx.Split-13[onnxruntime/default/cpu]``); ``-k``
keeps the items ``conformance run -k`` keeps, and ``-m`` selects by tag, op family or target.
Items run in ``conformance run``'s executor (worker processes, timeouts, journal, crash review):
each hands over its job when pytest runs it, a few jobs ahead to keep every worker busy, so
``-x``, ``--maxfail`` and Ctrl-C stop the run itself, and the same results file is written. With
pytest-xdist the controlling process writes it (:mod:`conformance.pytest.xdist`). The session takes
its output folder as ``conformance run`` does: the folder's lock from the session's start to its
end, a refusal to replace the complete run of another selection there (unless
``--conformance-replace``), and the earlier results moved into ``previous/``. The plugin is inert
unless ``--adapter`` is given, so it never touches other test suites.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import shutil
import tempfile
from collections.abc import Generator, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from conformance import options, publishing
from conformance.corpus import catalogue, keywords
from conformance.corpus.loader import NOT_CASE_DIRECTORIES
from conformance.engine import interruption
from conformance.engine.worker import Job
from conformance.errors import ConformanceError, WorkerStartError
from conformance.loading import registry
from conformance.pytest import xdist
from conformance.results import document as results_file
from conformance.results.result import Result
from conformance.run import planning, runner
from conformance.statuses import GREEN, NOT_JUDGED
from conformance.storage import out_folder, out_lock
from conformance.storage.shard import Shard
from conformance.verdict.crash_review import DEATHS

_RUN = pytest.StashKey["_Streamed"]()
_LOADED = pytest.StashKey[list[registry.LoadedAdapter]]()
_SHARD = pytest.StashKey[Shard | None]()
_MARKERS = pytest.StashKey[set[str]]()
_NEXT = pytest.StashKey[Job | None]()
_TURNED = pytest.StashKey[list[str]]()
_GATHERED = pytest.StashKey[xdist.Gathered]()
#: what the session's start said about its folder (earlier results moved, a journal set aside)
_NOTES = pytest.StashKey[list[str]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """The run's options from the option table, as ``--conformance-<name>``."""
    options.add_to_pytest(parser.getgroup("conformance", "Operator conformance suite"))


def _value(config: pytest.Config, dest: str) -> Any:
    """An option's value, by its name in the option table."""
    return config.getoption(options.PYTEST_DEST + dest)


def _flag(dest: str) -> str:
    """An option's name in pytest (``--conformance-out``), for messages."""
    return f"--conformance-{options.TABLE[dest].long}"


def _active(config: pytest.Config) -> bool:
    return bool(_value(config, "adapter"))


def _command(config: pytest.Config) -> tuple[str, ...]:
    """The session's command, as its results file and its folder's lock record it."""
    return ("pytest", *config.invocation_params.args)


def pytest_configure(config: pytest.Config) -> None:
    if not _active(config):
        return
    try:  # the front door: every user-input error of the engine becomes pytest's usage error
        adapter_options = planning.parse_options(_value(config, "option"))
        shard = _value(config, "shard")
        config.stash[_SHARD] = None if shard is None else Shard.parse(shard, "--conformance-shard")
        out_folder.check(Path(_value(config, "out")), "--conformance-out")
        config.stash[_LOADED] = [
            registry.load(name, adapter_options.get(name, {})) for name in _value(config, "adapter")
        ]
    except ConformanceError as error:
        raise pytest.UsageError(str(error)) from None
    if xdist.is_controller(config):  # the workers run the items; this process gathers them
        begin = functools.partial(_begin_gathered, config)
        write = functools.partial(_session_config, config)
        config.stash[_GATHERED] = xdist.Gathered(config, begin, write, config.stash[_LOADED])
        config.pluginmanager.register(config.stash[_GATHERED], "conformance-xdist")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Take the output folder's lock for the whole session, as ``conformance run`` holds it for its
    run: another run into the folder is refused until the session ends, however it ends (pytest's
    clean-up releases it; the operating system, if the process dies). With xdist the controlling
    process holds it, before its workers start; they write into folders of their own."""
    config = session.config
    if not _active(config) or config.option.collectonly or xdist.is_worker(config):
        return
    held = contextlib.ExitStack()
    try:
        held.enter_context(out_lock.locked(Path(_value(config, "out")), _command(config), _flag("out")))
    except ConformanceError as error:  # another run holds it, or the folder cannot be written
        raise pytest.UsageError(str(error)) from None
    config.add_cleanup(held.close)


def _run_config(config: pytest.Config, case_paths: tuple[str, ...], **narrowing: Any) -> planning.RunConfig:
    """The run this session stands for, read from the options as ``conformance run`` reads them,
    with pytest's own narrowing (:func:`_narrowing`). Collection plans every shard (pytest
    deselects the others); the run records its shard (:func:`_session_config`)."""

    def value(dest: str) -> Any:
        return _value(config, dest) if dest in options.PYTEST else None

    given = {"shard": None, "case_paths": case_paths, "narrowing": _narrowing(config), **narrowing}
    return options.run_config(value, _command(config), **given)


def _session_config(
    config: pytest.Config, case_paths: tuple[str, ...], **narrowing: Any
) -> planning.RunConfig:
    """The session's run over the corpus ``case_paths``: :func:`_run_config` with its shard."""
    return _run_config(config, case_paths, **{"shard": config.stash.get(_SHARD, None), **narrowing})


def _narrowing(config: pytest.Config) -> tuple[str, ...]:
    """pytest's own selection, as typed: ``-k``, ``-m``, the node ids named and ``--deselect``.
    The run's selection records them, as ``conformance run`` records its ``-k``."""
    option = config.option
    words = ["-k", option.keyword] if option.keyword else []
    words += ["-m", option.markexpr] if option.markexpr else []
    words += [argument for argument in config.args if "::" in argument]
    for node in getattr(option, "deselect", None) or ():
        words += ["--deselect", node]
    return tuple(words)


def _start(config: pytest.Config, plan: planning.Plan, run_config: planning.RunConfig) -> None:
    """Before the session's run starts in its folder: refused, as ``conformance run`` is, when
    the folder holds the complete run of another selection (unless ``--conformance-replace``)."""
    try:
        runner.check_replacing(plan, run_config, _flag("out"), _flag("replace"))
    except ConformanceError as error:
        raise pytest.UsageError(str(error)) from None
    if (run_config.out / results_file.FILE_NAME).is_file():
        moved = f"note: the earlier results and report moved to {run_config.out / out_folder.PREVIOUS}/"
        config.stash.setdefault(_NOTES, []).append(moved)


def _begin_gathered(config: pytest.Config, ids: list[str]) -> tuple[str, ...]:
    """The xdist controller's start, once a worker collected the node ``ids``: the session's run
    checked against its folder (:func:`_start`), whose way is cleared as ``conformance run``
    clears it (runner.make_room). Returns the corpus."""
    corpus = corpus_paths(config, (config.rootpath / node.split("::")[0] for node in ids))
    run_config = _session_config(config, corpus)
    try:
        plan = planning.plan(run_config, config.stash[_LOADED])
    except ConformanceError as error:
        raise pytest.UsageError(str(error)) from None
    _start(config, plan, run_config)
    said = io.StringIO()
    runner.make_room(run_config.out, said)
    config.stash.setdefault(_NOTES, []).extend(said.getvalue().splitlines())
    return corpus


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
            name = keywords.item_name(job.case.id, job.op, job.target.id)
            yield ConformanceItem.from_parent(self, name=name, job=job)


def _markers(job: Job) -> list[tuple[str, str]]:
    """An item's markers for ``-m`` (its tags, op family and target), with what each means: each
    is registered as it first appears, so ``--strict-markers`` accepts them."""
    return [
        (keywords.MARKER, "an item of the operator conformance suite"),
        *((tag, "a case tag") for tag in job.case.tags),
        (catalogue.get(job.op).framework, "an op family: the ops named <family>.*"),
        (job.target.id, "a target: adapter/route/device"),
    ]


class ConformanceFailure(Exception):
    """A result that leaves a run red (see conformance.statuses.GREEN)."""


class ConformanceItem(pytest.Item):
    def __init__(self, *, job: Job, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.job = job
        registered: set[str] = self.config.stash.setdefault(_MARKERS, set())
        for marker, meaning in _markers(job):
            if marker not in registered:
                self.config.addinivalue_line("markers", f"{marker}: {meaning}")
                registered.add(marker)
            self.add_marker(marker)
        # the rest of the -k words (conformance.corpus.keywords): the family, the form and the dtype
        self.extra_keyword_matches.update({job.case.family, job.case.kind, job.case.data.dtype})

    def runtest(self) -> None:
        streamed = self.config.stash.get(_RUN, None)
        following = self.config.stash.get(_NEXT, None)
        try:
            result = streamed.result(self.job, following) if streamed is not None else None
        except WorkerStartError as error:  # no worker can start: no item can run, so none is failed
            pytest.exit(f"conformance: {error}", returncode=pytest.ExitCode.USAGE_ERROR)
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


def corpus_paths(config: pytest.Config, files: Iterable[Path]) -> tuple[str, ...]:
    """The corpus as the command line named it (``pytest cases/`` stands for ``--cases cases/``),
    so both front doors compute the same suite digest and their results merge; else the case
    ``files`` collected."""
    collected = {file.resolve() for file in files}
    named = [Path(argument.split("::")[0]) for argument in config.args]
    corpus = [
        path
        for path in named
        if (path.is_dir() and any(file.is_relative_to(path.resolve()) for file in collected))
        or path.resolve() in collected
    ]
    return tuple(str(path) for path in corpus) or tuple(sorted(str(file) for file in collected))


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the run, planned again over the collected files and narrowed to the items pytest
    kept, so its results file is the one ``conformance run`` writes for the same selection."""
    config = session.config
    if not _active(config) or config.option.collectonly:
        return
    items = [item for item in session.items if isinstance(item, ConformanceItem)]
    if not items:
        return
    corpus = corpus_paths(config, (Path(item.path) for item in items))
    keys = frozenset(item.job.key for item in items)
    private = xdist.is_worker(config)  # xdist's worker: the controller writes the results
    out = {"out": Path(tempfile.mkdtemp(prefix="conformance-xdist-"))} if private else {}
    run_config = _session_config(config, corpus, keys=keys, **out)
    try:
        plan = planning.plan(run_config, config.stash[_LOADED])
    except ConformanceError as error:
        raise pytest.UsageError(str(error)) from None
    if not private:  # the session's lock is held since its start (pytest_sessionstart)
        _start(config, plan, run_config)
    try:  # Execution clears the way as for `conformance run` (runner.make_room)
        execution = runner.Execution(plan, run_config, stream=io.StringIO(), locked=not private).__enter__()
    except ConformanceError as error:  # an unwritable --conformance-out
        raise pytest.UsageError(str(error)) from None
    jobs = {job.key: job for job in plan.jobs}
    order = [jobs[item.job.key] for item in items if item.job.key in jobs]
    # an xdist worker is handed its items one by one: it sends the item pytest runs and the next
    streamed = _Streamed(execution, order, window=0 if private else 2 * run_config.jobs)
    config.stash[_RUN] = streamed


class _Streamed:
    """The run behind a pytest session: jobs handed to the pool in pytest's order, ``window``
    ahead of the item pytest runs (two a worker, shared out a level at a time: see Pool._fill)."""

    def __init__(self, execution: runner.Execution, order: list[Job], window: int) -> None:
        self.execution = execution
        self.order = order
        self.position = {job.key: index for index, job in enumerate(order)}
        self.window = window
        self.sent = 0
        self.handed: set[str] = set()
        #: each item's status as pytest reported it (the crash review may amend it later)
        self.reported: dict[str, str] = {}
        self.outcome: runner.ExecutionOutcome | None = None

    def result(self, job: Job, following: Job | None = None) -> Result | None:
        """The job's result once it has run (reviewed if it died), None if it cannot run. With
        ``window`` 0 (an xdist worker), this job and ``following``, pytest's next, are handed over."""
        wanted = self.position.get(job.key)
        if wanted is None:
            return None
        if self.window == 0:
            fresh = [one for one in (job, following) if one is not None and one.key in self.position]
            self.execution.add([one for one in fresh if one.key not in self.handed])
            self.handed.update(one.key for one in fresh)
        elif self.sent <= wanted + self.window:
            upto = wanted + self.window + 1
            self.execution.add(self.order[self.sent : upto])
            self.sent = max(self.sent, upto)
        finished = self.execution.results.finished
        self.execution.serve(until=lambda: job.key in finished)
        if job.key in finished and finished[job.key].status in DEATHS:
            self.execution.review()
        result = finished.get(job.key)
        if result is not None:
            self.reported[job.key] = result.status
        return result

    def finish(self, interrupted: bool) -> runner.ExecutionOutcome:
        """Let the jobs sent finish (unless interrupted), review the deaths, write the results."""
        with interruption.stopping() as stop:
            if not interrupted:
                self.execution.stop_early()
                self.execution.review()
        ran_all = len(self.execution.results.finished) == len(self.execution.plan.jobs)
        try:
            self.outcome = self.execution.outcome(interrupted or stop.happened or not ran_all)
        finally:
            self.execution.__exit__(None, None, None)
        return self.outcome


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """An item's call takes its time in its worker, not the wait for it, and its setup and
    teardown none (pytest's JUnit XML adds the three phases up; ``--durations`` reads them)."""
    report: pytest.TestReport = yield
    streamed = item.config.stash.get(_RUN, None)
    if not isinstance(item, ConformanceItem) or streamed is None:
        return report
    if call.when != "call":
        report.duration = 0.0
        return report
    result = streamed.execution.results.finished.get(item.job.key)
    if result is not None and result.worker:
        report.duration = result.worker["elapsed_ms"] / 1000
    if result is not None and xdist.is_worker(item.config):  # for the controller to write
        report.user_properties.append((xdist.PROPERTY, json.dumps(result.to_json())))
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Note the job pytest runs after this item here (an xdist worker sends it ahead)."""
    following = nextitem.job if isinstance(nextitem, ConformanceItem) else None
    item.config.stash[_NEXT] = following


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Write the results of the items that ran and the report (an xdist worker hands them over)."""
    config = session.config
    maxfail = config.option.maxfail
    stopped = bool(maxfail) and session.testsfailed >= maxfail  # -x, --maxfail: not a Ctrl-C
    interrupted = exitstatus == pytest.ExitCode.INTERRUPTED and not stopped
    if stopped:  # xdist ends a -x run by interrupting it
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    gathered = config.stash.get(_GATHERED, None)
    if gathered is not None:
        gathered.write(interrupted)
        _turned_red(session, gathered.reported, gathered.results.values())
    streamed = config.stash.get(_RUN, None)
    if streamed is not None and streamed.outcome is None:
        outcome = streamed.finish(interrupted=interrupted)
        if xdist.is_worker(config):
            xdist.hand_over(config, outcome, streamed.execution.reviews.record)
            shutil.rmtree(streamed.execution.config.out, ignore_errors=True)
            return
        publishing.run_report(outcome.written[0])
        _turned_red(session, streamed.reported, outcome.results)
    if interrupted and (gathered is not None or streamed is not None):  # Ctrl-C: the suite's exit status
        out = _value(config, "out")
        advice = f"interrupted: the results so far are in {out}/; the same command starts over"
        pytest.exit(advice, returncode=interruption.EXIT_STATUS)


def _turned_red(session: pytest.Session, reported: Mapping[str, str], results: Iterable[Result]) -> None:
    """Items reported green that the crash review turned red (found to break their worker): the
    session fails, as ``conformance run`` does, and the summary names them."""
    turned = [
        result.key for result in results if reported.get(result.key) in GREEN and result.status not in GREEN
    ]
    session.config.stash[_TURNED] = turned
    if turned and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Where the results went, how many of the selection ran, and the crash review's lines."""
    gathered = config.stash.get(_GATHERED, None)
    streamed = config.stash.get(_RUN, None)
    if gathered is not None and gathered.written:
        terminalreporter.write_sep("-", "conformance")
        where = ", ".join(str(path) for path in gathered.written)
        terminalreporter.write_line(f"{len(gathered.results)} items ran in xdist's workers; results: {where}")
    elif streamed is not None and streamed.outcome is not None:
        outcome = streamed.outcome
        terminalreporter.write_sep("-", "conformance")
        said = (
            streamed.execution.stream.getvalue() if isinstance(streamed.execution.stream, io.StringIO) else ""
        )
        for line in said.splitlines():
            if line.startswith(("crash review", "interrupted", "note:")):
                terminalreporter.write_line(line)
        planned = len(streamed.execution.plan.jobs)
        where = ", ".join(str(path) for path in outcome.written)
        terminalreporter.write_line(f"{len(outcome.results)} of {planned} items ran; results: {where}")
    else:
        return
    for line in config.stash.get(_NOTES, []):
        terminalreporter.write_line(line)
    for key in config.stash.get(_TURNED, []):
        terminalreporter.write_line(
            f"{key}: reported green, then found to break its worker (crash): the run is red"
        )
