"""A whole run: execute a plan's jobs on the pool, journal them, apply known issues, and write
the results file and JUnit XML. Every front door comes through :class:`Execution` (:func:`execute`
when every job is known at the start), so all produce the same results file; the HTML report, a
view of it, is theirs to write.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import platform
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO, cast

from conformance import __version__
from conformance.engine.bandwidth import memcpy_baseline
from conformance.engine.deaths import Death
from conformance.engine.interruption import stopping
from conformance.engine.item import make_task
from conformance.engine.pool import Pool
from conformance.engine.progress import ProgressLine
from conformance.engine.sampling import sample_of_each
from conformance.engine.worker import Job
from conformance.plugin import Target, Task
from conformance.results import document as results_file
from conformance.results import junit
from conformance.results.records import (
    CrashReviewRecord,
    FindingRecord,
    RunInfoRecord,
    SuiteRecord,
    TargetRecord,
)
from conformance.results.result import JSON, Result
from conformance.run import rerun, resumption
from conformance.run.planning import Plan, RunConfig
from conformance.statuses import REPRODUCIBLE
from conformance.storage import out_folder, out_lock
from conformance.storage.journal import CASES, Journal
from conformance.storage.journal import FILE_NAME as JOURNAL
from conformance.verdict import crash_review, known_issues
from conformance.verdict.known_issues import KnownIssue


@dataclass(frozen=True)
class ExecutionOutcome:
    """What a run produced, for the front door that started it."""

    results: list[Result]
    stale: list[KnownIssue]
    #: Ctrl-C stopped the run: ``results`` are those that finished, the journal is kept
    interrupted: bool
    wall_s: float
    written: list[Path]
    #: the distinct problems, as results.json records them
    findings: list[FindingRecord]
    #: worker-seconds lost to workers' deaths (see Pool.lost_s)
    lost_s: float = 0.0
    #: the crash review's seconds (its record's ``spent_s``; 0.0 when none ran)
    review_s: float = 0.0


def _selection(config: RunConfig) -> JSON:
    """The run's selection, as its journal and its results file record it."""
    return {
        "ops": list(config.ops),
        "tags": list(config.tags),
        "keyword": config.keyword,
        "items": list(config.items),
        "targets": list(config.targets),
        "shard": str(config.shard) if config.shard else None,
        # pytest's own narrowing (-k, -m, node ids), only where a session had some
        **({"pytest": list(config.narrowing)} if config.narrowing else {}),
    }


def _header(plan_: Plan, config: RunConfig) -> JSON:
    """The journal's header: what a resume must match, and each case's digest."""
    digests = plan_.suite.case_digests
    cases = dict.fromkeys(job.case.id for job in plan_.jobs)
    return {
        "digest": plan_.suite.digest,
        "selection": _selection(config),
        "targets": sorted({job.target.id for job in plan_.jobs}),
        CASES: {case: digests[case] for case in cases if case in digests},
    }


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def _host() -> JSON:
    return {
        "hostname": platform.node(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor(),
        "cpus": os.cpu_count(),
        "memory_mib": os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") >> 20,
    }


def _open_journal(plan_: Plan, config: RunConfig, stream: TextIO) -> tuple[Journal, resumption.Resumed]:
    """The run's journal, and what it keeps of the journal it resumes. A new run first sets the
    previous run's results aside, so that one killed before its end leaves none that looks current."""
    path = config.out / JOURNAL
    header = _header(plan_, config)
    if config.resume:
        journal, held = Journal.resume(path, header, warn=stream)
        return journal, resumption.resumed(held, plan_)
    make_room(config.out, stream)
    return Journal.start(path, header, config.command), resumption.Resumed({}, [], [], [])


def make_room(out: Path, stream: TextIO) -> list[Path]:
    """Clear the way for a new run in ``out``, whichever front door starts it: the previous run's
    worker logs go, an unfinished run's journal is set aside where ``--resume`` finishes it, and
    the previous results move into ``previous/``. Returns where those results went."""
    out_folder.clear_worker_logs(out)
    if (out / JOURNAL).exists():
        print(resumption.set_aside_note(out_folder.set_aside(out / JOURNAL)), file=stream)
    return out_folder.set_aside_results(out)


def check_resumable(plan_: Plan, config: RunConfig) -> None:
    """Refuse (JournalError) a ``--resume`` whose journal does not match the plan."""
    Journal.check(config.out / JOURNAL, _header(plan_, config))


def check_replacing(
    plan_: Plan, config: RunConfig, option: str = "--out", replace: str = "--replace"
) -> None:
    """Refuse (UsageError) a new run that would replace the complete run of another selection in
    its folder, unless ``--replace``; before the front door prints anything about the run (the
    pytest plugin names its own options, ``option`` and ``replace``)."""
    if config.resume or config.replace:
        return
    names = frozenset(config.label or loaded.info.name for loaded in plan_.loaded)
    run = out_folder.Coverage(_selection(config), plan_.suite.files, names)
    out_folder.check_replacing(config.out, run, option, replace)


def execute(
    plan_: Plan,
    config: RunConfig,
    stream: TextIO | None = None,
    on_result: Callable[[Result], None] | None = None,
) -> ExecutionOutcome:
    """Run the plan and write the results; on Ctrl-C, write what finished (marked interrupted) and
    keep the journal. The output folder is locked throughout."""
    with Execution(plan_, config, stream, on_result) as run:
        with stopping() as stop:
            sample, bulk = sample_of_each(run.pending)
            run.add(sample + bulk)
            run.progress.restart()  # the first workers of a long run waited for the zygote
            run.serve()
            run.review()
        return run.outcome(stop.happened)


class Execution:
    """One run of a plan held open, for front doors that hand its jobs over as they go (the pytest
    plugin, so that ``-x``, ``--maxfail`` and Ctrl-C stop the run itself). Entering takes the
    output folder's lock (unless ``locked``: the front door holds it, as the pytest plugin does from
    its session's start), opens (or resumes) the journal and starts the pool; :meth:`outcome`
    closes them and writes the results; leaving releases the lock."""

    def __init__(
        self,
        plan_: Plan,
        config: RunConfig,
        stream: TextIO | None = None,
        on_result: Callable[[Result], None] | None = None,
        locked: bool = False,
    ) -> None:
        self.plan, self.config, self.locked = plan_, config, locked
        self.stream = stream or sys.stderr
        self.on_result = on_result
        self.started, self.clock = now(), time.monotonic()
        self.results = Collected(known_issues.ByTarget(plan_.issues))
        self.reviews = Reviews(config.crash_budget_s)
        self._lock = contextlib.ExitStack()
        self._stack = contextlib.ExitStack()

    @property
    def threads(self) -> int:
        """The threads each worker's backend may use: the cores shared out among the workers."""
        return max(1, (os.cpu_count() or 1) // max(1, self.config.jobs))

    def __enter__(self) -> Execution:
        config = self.config
        if not self.locked:
            self._lock.enter_context(out_lock.locked(config.out, config.command or ("(unknown command)",)))
        self._lock.callback(self._stack.close)
        self.journal, resumed = _open_journal(self.plan, config, self.stream)
        self._stack.callback(self.journal.close)
        done = resumed.results
        self.results.resume(done)
        self.reviews.resume(resumed.deaths, resumed.reviews)
        self.pending = [job for job in self.plan.jobs if job.key not in self.results.finished]
        self.progress = ProgressLine(
            len(self.plan.jobs),
            self.stream,
            done=len(self.plan.jobs) - len(self.pending),
            jobs=self.pending,
            workers=config.jobs,
        )
        self._stack.callback(self.progress.close)
        for note in resumed.notes:
            print(note, file=self.stream)
        if done:
            to_go = f"{len(self.pending)} to go"
            print(f"resuming: {len(done)} results already journaled, {to_go}", file=self.stream)
        self.pool = Pool(
            config.jobs,
            config.timeout,
            self._record,
            threads_per_worker=self.threads,
            log_dir=config.out / out_folder.WORKERS,
            memory_budget=_budget_bytes(config),
            journal=self.journal.append_line,  # the pool journals each result, as its worker sent it
        )
        self._stack.callback(self.pool.close)
        return self

    def __exit__(self, *exc: object) -> None:
        self._lock.close()

    def _amend(self, result: Result) -> Result:
        """Journal a result the crash review changed, and keep it."""
        self.journal.append(result)
        return self.results.keep(result)

    def _record(self, result: Result) -> None:
        """A result from the pool, which has journaled it."""
        result = self.results.keep(result)
        self.progress.update(result, contended=self.pool.importing_declared)
        if self.on_result:
            self.on_result(result)

    def add(self, jobs: Iterable[Job]) -> None:
        """Queue jobs on the pool, in the order given."""
        self.pool.add(jobs)

    def serve(self, until: Callable[[], bool] = lambda: False) -> None:
        """Run the queued jobs until ``until()`` or none is queued or in flight."""
        self.pool.serve_until(until)

    def stop_early(self) -> None:
        """Run no job not yet sent to a worker; those sent finish, so the results are what ran."""
        self.pool.drop_queued()
        self.serve()

    def review(self) -> None:
        """The crash review (conformance.verdict.crash_review) of the deaths not reviewed yet, within
        what is left of the budget; the results it changed replace the run's, journaled."""
        deaths = self.reviews.due(self.pool.deaths)
        if not deaths:
            return
        self.progress.close()
        # the marks say whether the review finished: a run resumed after Ctrl-C in it reviews again
        self.journal.mark(resumption.REVIEW_STARTED, deaths=len(deaths))
        config, raw, issues = self.config, self.results.raw, self.results.issues

        def pool(on_result: Callable[[Result], None], replay: bool) -> Pool:
            return Pool(
                1 if replay else config.jobs,
                config.timeout,
                on_result,
                threads_per_worker=self.threads,
                recycle_after=10**9 if replay else 1,
                log_dir=config.out / out_folder.WORKERS / out_folder.REVIEW,
                memory_budget=_budget_bytes(config),
                in_order=replay,
                warn=lambda text: print(text, file=self.stream),
            )

        def cost(job: Job) -> float:
            worker = raw[job.key].worker if job.key in raw else None
            return worker["elapsed_ms"] / 1000 if worker else 1.0

        def known(result: Result) -> str | None:
            claimed = issues.apply(result)
            return claimed.known_issue["id"] if claimed.status == "xfail" and claimed.known_issue else None

        left = self.reviews.left_s()
        outcome = crash_review.review(deaths, raw.get, known, pool, cost, left, self.stream)
        for result in outcome.changed.values():
            self._amend(result)
        self.journal.mark(resumption.REVIEW_ENDED, record=outcome.record)
        self.reviews.add(outcome.record)

    def outcome(self, interrupted: bool) -> ExecutionOutcome:
        """Write the results of the jobs that ran (``interrupted``: the journal is kept for
        ``--resume``) and say what the run produced. An interrupted run kills its workers at once:
        a hung backend must not hold up a CI system's cancel (SIGKILL follows in seconds)."""
        if interrupted:
            self.pool.close(at_once=True)
        self._stack.close()  # the pool, the progress line and the journal
        order = {job.key: job.index for job in self.plan.jobs}
        finished = self.results.finished.values()
        results = sorted(finished, key=lambda result: order.get(result.key, len(order)))
        results = with_reproducers(self.plan, results)
        wall_s = time.monotonic() - self.clock
        review = self.reviews.record
        written, found = write_results(
            self.plan, self.config, results, self.started, wall_s, interrupted, review
        )
        spent = (self.pool.lost_s, review["spent_s"] if review else 0.0)
        if interrupted:
            kept = f"{len(results)} of {len(self.plan.jobs)} results kept in {self.journal.path}"
            print(f"interrupted: {kept}", file=self.stream)
            return ExecutionOutcome(results, [], interrupted, wall_s, written, found, *spent)
        self.journal.path.unlink(missing_ok=True)
        stale = known_issues.stale(self.plan.issues, results)
        return ExecutionOutcome(results, stale, interrupted, wall_s, written, found, *spent)


class Collected:
    """A run's results by key, as the worker (or the crash review) gave each and as the known issues
    judge it: the progress line counts xfail, and a resumed run applies the current list again."""

    def __init__(self, issues: known_issues.ByTarget) -> None:
        self.issues = issues
        self.finished: dict[str, Result] = {}
        self.raw: dict[str, Result] = {}

    def resume(self, done: dict[str, Result]) -> None:
        """Start from the results a resumed run's journal holds."""
        self.raw = dict(done)
        self.finished = {key: self.issues.apply(result) for key, result in done.items()}

    def keep(self, result: Result) -> Result:
        """Keep a result as it came and as the known issues judge it; the judged one."""
        self.raw[result.key] = result
        result = self.finished[result.key] = self.issues.apply(result)
        return result


class Reviews:
    """A run's crash reviews: the deaths not reviewed yet and one record of the rounds done, within
    one budget (the pytest plugin reviews as deaths happen, :func:`execute` once)."""

    def __init__(self, budget_s: float) -> None:
        self.budget_s = budget_s
        self.record: CrashReviewRecord | None = None
        #: how many of the pool's deaths were reviewed, and a resumed journal's unreviewed deaths
        self.reviewed = 0
        self.unreviewed: list[Death] = []

    def resume(self, deaths: list[Death], records: Iterable[CrashReviewRecord]) -> None:
        """Start from what a resumed run's journal holds: deaths left unreviewed, rounds done."""
        self.unreviewed = deaths
        for record in records:
            self.add(record)

    def due(self, deaths: list[Death]) -> list[Death]:
        """The deaths to review now, of the pool's ``deaths``: taken as reviewed from here on."""
        due = [*self.unreviewed, *deaths[self.reviewed :]]
        self.unreviewed, self.reviewed = [], len(deaths)
        return due

    def left_s(self) -> float:
        """What is left of the budget (a budget of 0 or less is handed on as it is)."""
        spent = self.record["spent_s"] if self.record else 0.0
        return self.budget_s if self.budget_s <= 0 else max(self.budget_s - spent, 1e-9)

    def add(self, record: CrashReviewRecord) -> None:
        self.record = merged_review(self.record, record, self.budget_s)


def merged_review(
    before: CrashReviewRecord | None, record: CrashReviewRecord, budget_s: float
) -> CrashReviewRecord:
    """One record of several rounds of review: the run's budget, the rounds' spending and counts added."""
    if before is None:
        return {**record, "budget_s": budget_s}
    summed = {key: before[key] + record[key] for key in record if key != "budget_s"}  # type: ignore[literal-required]
    return cast(CrashReviewRecord, {**summed, "budget_s": budget_s})


def _budget_bytes(config: RunConfig) -> int | None:
    """The bytes an item may need in a worker (--memory-budget), or None: what the machine has."""
    return None if config.memory_budget_mib is None else config.memory_budget_mib << 20


def with_reproducers(plan_: Plan, results: list[Result]) -> list[Result]:
    """Attach a command and a snippet to each result worth reproducing; a culprit's run its victim too."""
    jobs = {job.key: job for job in plan_.jobs}
    adapters = {loaded.requested: loaded for loaded in plan_.loaded}
    attached = []
    for result in results:
        job = jobs.get(result.key)
        if result.status not in REPRODUCIBLE or job is None or result.reproducer:
            attached.append(result)
            continue
        victim = jobs.get(result.crash.get("victim", "")) if result.crash else None
        sequence = [job] if victim is None else [job, victim]
        bodies = [
            _snippet(adapters[each.adapter].hooks.route(each.target).reproducer, each) for each in sequence
        ]
        python = None
        if all(bodies):
            then = "\n# then, in the same process, the item that dies after it:\n"
            python = rerun.header(
                result.item_id, job.target, rerun.describe_expected(result.expected)
            ) + then.join(body or "" for body in bodies)
        into = rerun.folder(job.case, job.op, job.target)
        items = [(each.case, each.op) for each in sequence]
        line = rerun.command(items, job.adapter, job.target, job.options, into, plan_.settings)
        if victim is not None and job.index > victim.index:
            line = f"# the suite runs these in another order: the Python reproducer keeps it\n{line}"
        attached.append(replace(result, reproducer={"command": line, "python": python}))
    return attached


def _snippet(hook: Callable[[Task, Target], str | None] | None, job: Job) -> str | None:
    """The adapter's Python snippet for ``job`` (None when it writes none)."""
    if hook is None:
        return None
    try:
        return hook(make_task(job.case, job.op, fill=rerun.snippet_data), job.target)
    except Exception as error:  # a broken hook must not cost the results
        return f"# the adapter's reproducer() failed: {type(error).__name__}: {error}"


def write_results(
    plan_: Plan,
    config: RunConfig,
    results: list[Result],
    started: str,
    wall_s: float,
    interrupted: bool,
    crash_review: CrashReviewRecord | None = None,
) -> tuple[list[Path], list[FindingRecord]]:
    """Write results.json (and junit.xml) of ``results``; the paths written and the findings."""
    suite: SuiteRecord = {
        "version": __version__,
        "digest": plan_.suite.digest,
        "cases": len(plan_.suite.cases),
        "files": list(plan_.suite.files),
    }
    run: RunInfoRecord = {
        "start": started,
        "end": now(),
        "host": _host(),
        "python": platform.python_version(),
        "command": list(config.command),
        "jobs": config.jobs,
        "timeout_s": config.timeout,
        "repeat": config.repeat,
        "wall_s": round(wall_s, 3),
        "interrupted": interrupted,
        "selection": _selection(config),
    }
    with contextlib.suppress(MemoryError):  # a measurement beside the results, never worth them
        run["memcpy"] = memcpy_baseline()
    if crash_review is not None:
        run["crash_review"] = crash_review
    if config.label is not None:  # after known issues and reproducers, which use the real name
        results = [replace(result, adapter=config.label) for result in results]
    adapters: list[TargetRecord] = [
        {
            "name": config.label or a.info.name,
            "route": route.name,
            "device": device,
            "backend": a.info.backend,
            "version": a.info.version,
            "options": dict(a.info.options),
            "description": route.description,
        }
        for a in plan_.loaded
        for route in a.info.routes
        for device in a.info.devices
    ]
    path = config.out / results_file.FILE_NAME
    document = results_file.assemble(suite, run, adapters, [result.to_json() for result in results])
    results_file.write(path, document)
    written = [path]
    if config.junit:
        junit.write(config.out / junit.FILE_NAME, results)
        written.append(config.out / junit.FILE_NAME)
    return written, document.get("findings", [])
