"""A whole run: execute a plan's jobs on the pool, journal them, apply known issues, and write
the results file and JUnit XML.

Every front door (``conformance run``, ``certify``, the pytest plugin) comes through
:func:`conformance.run.planning.plan` and :func:`execute`, so they produce the same results file
from the same executor. The HTML report is the front doors' to write: it is a view of the
results file, and the engine does not depend on it.
"""

from __future__ import annotations

import datetime
import os
import platform
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

from conformance import __version__
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
from conformance.run import crash_review, known_issues, out_folder, out_lock, reproducers, resumption
from conformance.run.bandwidth import memcpy_baseline
from conformance.run.deaths import Death
from conformance.run.interruption import stopping
from conformance.run.item import make_task
from conformance.run.journal import FILE_NAME as JOURNAL
from conformance.run.journal import Journal
from conformance.run.known_issues import KnownIssue
from conformance.run.planning import Plan, RunConfig
from conformance.run.pool import Pool
from conformance.run.progress import ProgressLine, rate_class
from conformance.run.worker import Job
from conformance.statuses import REPRODUCIBLE


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


def _header(plan_: Plan, config: RunConfig) -> JSON:
    return {
        "digest": plan_.suite.digest,
        "selection": {
            "ops": list(config.ops),
            "tags": list(config.tags),
            "keyword": config.keyword,
            "items": list(config.items),
            "targets": list(config.targets),
            "shard": str(config.shard) if config.shard else None,
        },
        "targets": sorted({job.target.id for job in plan_.jobs}),
    }


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def _host() -> JSON:
    memory_kib = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory_kib = int(line.split()[1])
    except OSError:
        pass
    return {
        "hostname": platform.node(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor(),
        "cpus": os.cpu_count(),
        "memory_mib": memory_kib // 1024,
    }


def _open_journal(plan_: Plan, config: RunConfig, stream: TextIO) -> tuple[Journal, list[Result]]:
    path = config.out / JOURNAL
    header = _header(plan_, config)
    if config.resume:
        return Journal.resume(path, header, warn=stream)
    out_folder.clear_worker_logs(config.out)  # the previous run's
    if path.exists():  # an unfinished run: keep its results where --resume finishes it
        print(resumption.set_aside_note(out_folder.set_aside(path)), file=stream)
    return Journal.start(path, header, config.command), []


def check_resumable(plan_: Plan, config: RunConfig) -> None:
    """Refuse (JournalError) a ``--resume`` whose journal does not match the plan, before the
    front door prints anything about the run."""
    Journal.check(config.out / JOURNAL, _header(plan_, config))


def execute(
    plan_: Plan,
    config: RunConfig,
    stream: TextIO | None = None,
    on_result: Callable[[Result], None] | None = None,
) -> ExecutionOutcome:
    """Run the plan and write the results. On Ctrl-C the run stops, writes what finished (marked
    interrupted) and returns with ``interrupted`` set, keeping its journal (see
    :mod:`conformance.run.interruption`). The output folder is checked and marked
    (:mod:`conformance.run.out_folder`) and locked throughout: a second run on it stops with a
    usage error naming this one."""
    with out_lock.locked(config.out, config.command or ("(unknown command)",)):
        return _execute(plan_, config, stream, on_result)


def _execute(
    plan_: Plan,
    config: RunConfig,
    stream: TextIO | None,
    on_result: Callable[[Result], None] | None,
) -> ExecutionOutcome:
    stream = stream or sys.stderr
    started, clock = now(), time.monotonic()
    journal, done = _open_journal(plan_, config, stream)
    # Known issues are applied as results arrive, so the progress line counts xfail, not fail;
    # the journal keeps each result as judged, so a resumed run re-applies the current list.
    issues = known_issues.ByTarget(plan_.issues)
    finished = {result.key: issues.apply(result) for result in done}
    #: each result as the worker (or the crash review) gave it, before known issues
    raw = {result.key: result for result in done}
    pending = sampled_first([job for job in plan_.jobs if job.key not in finished])
    progress = ProgressLine(
        len(plan_.jobs),
        stream,
        done=len(plan_.jobs) - len(pending),
        remaining=Counter(rate_class(job) for job in pending),
        classes={job.key: rate_class(job) for job in pending if job.large},
    )
    if done:
        print(f"resuming: {len(finished)} results already journaled, {len(pending)} to go", file=stream)

    def amend(result: Result) -> Result:
        journal.append(result)
        raw[result.key] = result
        result = finished[result.key] = issues.apply(result)
        return result

    def record(result: Result) -> None:
        result = amend(result)
        progress.update(result)
        if on_result:
            on_result(result)

    threads = max(1, (os.cpu_count() or 1) // max(1, config.jobs))
    review: CrashReviewRecord | None = None
    try:
        with stopping() as stop:
            pool = Pool(
                config.jobs,
                config.timeout,
                record,
                threads_per_worker=threads,
                log_dir=config.out / out_folder.WORKERS,
                memory_budget=_budget_bytes(config),
            )
            pool.process(pending)
            if pool.deaths:
                progress.close()
                review = _review(pool.deaths, config, raw, issues, threads, stream, amend)
    finally:
        progress.close()
        journal.close()
    interrupted = stop.happened
    order = {job.key: job.index for job in plan_.jobs}
    results = sorted(
        finished.values(),
        key=lambda result: order.get(result.key, len(order)),
    )
    results = with_reproducers(plan_, results)
    wall_s = time.monotonic() - clock
    written, found = write_results(plan_, config, results, started, wall_s, interrupted, review)
    if interrupted:
        print(f"interrupted: {len(results)} of {len(plan_.jobs)} results kept in {journal.path}", file=stream)
        return ExecutionOutcome(results, [], interrupted, wall_s, written, found)
    journal.path.unlink(missing_ok=True)
    stale = known_issues.stale(plan_.issues, results)
    return ExecutionOutcome(results, stale, interrupted, wall_s, written, found)


def _budget_bytes(config: RunConfig) -> int | None:
    """The bytes an item may need in a worker (--memory-budget), or None: what the machine has."""
    return None if config.memory_budget_mib is None else config.memory_budget_mib << 20


def _review(
    deaths: list[Death],
    config: RunConfig,
    raw: dict[str, Result],
    issues: known_issues.ByTarget,
    threads: int,
    stream: TextIO,
    amend: Callable[[Result], object],
) -> CrashReviewRecord:
    """Run the crash review (conformance.run.crash_review) on the run's deaths and record the
    results it changed in place of the run's (journaled, then judged with the known issues)."""

    def pool(on_result: Callable[[Result], None], replay: bool) -> Pool:
        return Pool(
            1 if replay else config.jobs,
            config.timeout,
            on_result,
            threads_per_worker=threads,
            recycle_after=10**9 if replay else 1,
            log_dir=config.out / out_folder.WORKERS / out_folder.REVIEW,
            memory_budget=_budget_bytes(config),
            in_order=replay,
            warn=lambda text: print(text, file=stream),
        )

    def cost(job: Job) -> float:
        worker = raw[job.key].worker if job.key in raw else None
        return worker["elapsed_ms"] / 1000 if worker else 1.0

    def known(result: Result) -> str | None:
        claimed = issues.apply(result)
        return claimed.known_issue["id"] if claimed.status == "xfail" and claimed.known_issue else None

    outcome = crash_review.review(deaths, raw.get, known, pool, cost, config.crash_budget_s, stream)
    for result in outcome.changed.values():
        amend(result)
    return outcome.record


#: Items of each target run first, so that every target's rate is measured early in the run.
SAMPLE = 40


def sampled_first(jobs: list[Job], sample: int = SAMPLE) -> list[Job]:
    """A sample of ``sample`` jobs of each target, spread evenly over its jobs, then the rest in
    plan order.

    Targets differ in speed by two orders of magnitude and the plan groups them, so without a
    sample of each the progress line could only guess the slow ones' rate until they start (the
    ETA said 56 s at 10 % of a run with 200 s to go). The sample is spread over the target's
    jobs because the corpus is not uniform: a target's first cases (documentation examples,
    ambiguous points) are not its typical ones, and a rate taken from them over-promised the end
    of a run by half. The bulk keeps the plan's order: a worker replaced after a crash then
    imports only the backend it meets next. Results keep the plan's order (``Job.index``). Large
    jobs run before all of these, on the first worker (see :class:`conformance.run.pool.Pool`).
    """
    by_target: dict[str, list[Job]] = {}
    for job in jobs:
        by_target.setdefault(job.target.id, []).append(job)
    chosen: set[int] = set()
    first: list[Job] = []
    for group in by_target.values():
        picks = sorted({round(number * len(group) / sample) for number in range(min(sample, len(group)))})
        first.extend(group[pick] for pick in picks)
        chosen.update(group[pick].index for pick in picks)
    return first + [job for job in jobs if job.index not in chosen]


def with_reproducers(plan_: Plan, results: list[Result]) -> list[Result]:
    """Attach to each result worth reproducing the command and the adapter's Python snippet; a
    culprit's (conformance.run.crash_review) run it, then the item that died after it."""
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
        bodies = [_snippet(adapters[each.adapter].hooks.reproducer, each) for each in sequence]
        python = None
        if all(bodies):
            then = "\n# then, in the same process, the item that dies after it:\n"
            python = reproducers.header(
                result.item_id, job.target, reproducers.describe_expected(result.expected)
            ) + then.join(body or "" for body in bodies)
        if victim is None:
            line = reproducers.command(job.case, job.op, job.adapter, job.target, job.options)
        else:
            line = reproducers.sequence_command(
                [(each.case, each.op) for each in sequence],
                job.adapter,
                job.target,
                job.options,
                suite_order=job.index < victim.index,
            )
        attached.append(replace(result, reproducer={"command": line, "python": python}))
    return attached


def _snippet(hook: Callable[[Task, Target], str | None] | None, job: Job) -> str | None:
    """The adapter's Python snippet for ``job`` (None when it writes none)."""
    if hook is None:
        return None
    try:
        return hook(make_task(job.case, job.op, fill=reproducers.snippet_data), job.target)
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
        "selection": _header(plan_, config)["selection"],
        "memcpy": memcpy_baseline(),
    }
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
    document = results_file.build(suite, run, adapters, results)
    results_file.write(path, document)
    written = [path]
    if config.junit:
        junit.write(config.out / junit.FILE_NAME, results)
        written.append(config.out / junit.FILE_NAME)
    return written, document.get("findings", [])
