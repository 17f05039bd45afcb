"""One ``conformance explore``: each op's search in turn within the budget, then the results
file and the findings.

Requests run through ``conformance run``'s worker pool and journal, so a request that kills a
backend costs one worker and what finished survives Ctrl-C. Every drawn request's results are
kept; of the shrinking steps, only each finding's smallest request.
"""

from __future__ import annotations

import hashlib
import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TextIO

from conformance.corpus import catalogue
from conformance.corpus.case import Case
from conformance.corpus.loader import Suite, load_paths
from conformance.corpus.selection import unmatched_ops
from conformance.engine.interruption import stopping
from conformance.engine.pool import Pool
from conformance.engine.worker import Job
from conformance.errors import UsageError
from conformance.explore import generated
from conformance.explore.limits import DEFAULT_EXAMPLES, UNBOUNDED_EXAMPLES, Limits
from conformance.explore.search import OpSearch, ShrunkDisagreement
from conformance.loading.registry import LoadedAdapter
from conformance.results.result import Result
from conformance.run import planning, resumption, runner
from conformance.run.planning import Plan, RunConfig, Station
from conformance.storage import out_folder, out_lock
from conformance.storage.journal import FILE_NAME as JOURNAL
from conformance.storage.journal import Journal
from conformance.verdict import known_issues


@dataclass(frozen=True)
class ExploreConfig:
    """``conformance explore``'s options: a run's (selection, adapters, pool, output) and the search's."""

    run: RunConfig
    seed: int = 0
    budget_s: float | None = None
    max_examples: int | None = None
    limits: Limits = field(default_factory=Limits)

    @property
    def examples(self) -> int:
        if self.max_examples is not None:
            return self.max_examples
        return UNBOUNDED_EXAMPLES if self.budget_s is not None else DEFAULT_EXAMPLES


@dataclass
class ExploreOutcome:
    """What an exploration found and wrote."""

    findings: list[ShrunkDisagreement]
    results: list[Result]
    requests: int
    wall_s: float
    interrupted: bool
    written: list[Path] = field(default_factory=list)
    #: the corpus case with the same request as a finding's smallest one, by finding
    in_corpus: dict[int, str] = field(default_factory=dict)


class _Executor:
    """Runs generated cases on the pool once per (case, target), so a search round replays the
    requests before the last finding for free; it keeps each result raw and with known issues."""

    def __init__(
        self, stations: Sequence[Station], issues: list[known_issues.KnownIssue], run: RunConfig
    ) -> None:
        self.stations = stations
        self.issues = issues
        threads = max(1, (os.cpu_count() or 1) // max(1, run.jobs))
        self.pool = Pool(
            run.jobs, run.timeout, self._receive, threads_per_worker=threads, log_dir=run.out / "workers"
        )
        self.cache: dict[tuple[str, str], tuple[Result, Result]] = {}  # (raw, known issues applied)
        self.recorded: dict[str, Result] = {}  # result key -> result, in the order they were drawn
        self.jobs: dict[str, Job] = {}
        self.cases: dict[str, Case] = {}
        self.journal: Journal | None = None
        self._arrived: list[Result] = []

    def _receive(self, result: Result) -> None:
        self._arrived.append(result)

    def _job(self, station: Station, case: Case, op: str) -> Job:
        """A job of this exploration (no steady-state repeats: timing is not what it looks for)."""
        return station.job(len(self.jobs), case, op, 0)

    def __call__(self, op: str, case: Case, targets: Sequence[str] | None, record: bool) -> dict[str, Result]:
        chosen = [s for s in self.stations if op in s.ops and (targets is None or s.target.id in targets)]
        fresh = [self._job(s, case, op) for s in chosen if (case.id, s.target.id) not in self.cache]
        jobs = {job.key: job for job in fresh}
        if jobs:
            self._arrived = []
            self.pool.serve(jobs.values())
            for raw in self._arrived:
                job = jobs[raw.key]
                self.cache[(case.id, job.target.id)] = (raw, known_issues.apply(raw, self.issues))
        if record:
            for station in chosen:
                self.keep(op, case, station.target.id)
        return {s.target.id: self.cache[(case.id, s.target.id)][1] for s in chosen}

    def keep(self, op: str, case: Case, target: str) -> None:
        """Put a result that ran in the results file (and the journal), once."""
        raw, applied = self.cache[(case.id, target)]
        if raw.key in self.recorded:
            return
        station = next(s for s in self.stations if s.target.id == target)
        self.jobs[raw.key] = self._job(station, case, op)
        self.cases.setdefault(case.id, case)
        self.recorded[raw.key] = applied
        if self.journal is not None:
            self.journal.append(raw)


class _ExploreProgressLine:
    """One line per op and, while it searches, a line every few seconds (every 30 s in logs)."""

    def __init__(self, stream: TextIO, budget_s: float | None) -> None:
        self.stream = stream
        self.interactive = stream.isatty()
        self.budget_s = budget_s
        self.started = time.monotonic()
        self._last = 0.0

    def __call__(self, op: str, drawn: int, found: int, steps: int) -> None:
        now = time.monotonic()
        if now - self._last < (0.5 if self.interactive else 30):
            return
        self._last = now
        elapsed = now - self.started
        budget = f" of {self.budget_s:.0f}" if self.budget_s is not None else ""
        shrinking = f", shrinking (step {steps})" if steps else ""
        line = f"[{elapsed:5.0f} s{budget}] {op}: {drawn} requests, {found} findings{shrinking}"
        self.stream.write(("\r" + line + "\x1b[K") if self.interactive else line + "\n")
        self.stream.flush()

    def op_done(self, op: str, drawn: int, findings: list[ShrunkDisagreement], elapsed: float) -> None:
        if self.interactive:
            self.stream.write("\r\x1b[K")
        self.stream.write(f"{op}: {drawn} requests in {elapsed:.0f} s, {len(findings)} findings\n")
        self.stream.flush()


def _ops(config: RunConfig, stations: Sequence[Station]) -> list[str]:
    served = set().union(*(station.ops for station in stations)) if stations else set()
    wanted = catalogue.match(config.ops) if config.ops else list(catalogue.OPS)
    ops = [op for op in wanted if op in served]
    if not ops:
        targets = ", ".join(sorted(s.target.id for s in stations)) or "none"
        raise UsageError(
            f"no selected op runs on the selected targets ({targets}); see `conformance adapters`"
        )
    return ops


def _corpus(config: RunConfig, stream: TextIO) -> generated.CorpusIndex:
    paths = [path for path in config.case_paths if Path(path).exists()]
    if not paths:
        print("warning: no corpus found; every finding counts as new to it", file=stream)
        return generated.CorpusIndex(())
    return generated.CorpusIndex(load_paths(paths).cases)


def explore(config: ExploreConfig, stream: TextIO | None = None) -> ExploreOutcome:
    """Search every selected op within the budget and write the results file, in a folder locked
    as a run's is; on Ctrl-C, write what was found all the same (``interrupted`` says so)."""
    with out_lock.locked(config.run.out, config.run.command or ("conformance explore",)):
        return _explore(config, stream)


def _explore(config: ExploreConfig, stream: TextIO | None) -> ExploreOutcome:
    stream = stream or sys.stderr
    run = config.run
    adapters = planning.load_adapters(run)
    unmatched = unmatched_ops(run.ops) + planning.unmatched_targets(run.targets, adapters)
    if unmatched:  # among good values, a typo would only narrow the search
        raise UsageError("; ".join(unmatched))
    stations = planning.stations(run, adapters)
    ops = _ops(run, stations)
    corpus = _corpus(run, stream)
    issues = planning.issues_for(run, adapters)
    started, clock = runner.now(), time.monotonic()
    deadline = clock + config.budget_s if config.budget_s is not None else math.inf
    executor = _Executor(stations, issues, run)
    _set_aside_a_runs_journal(run.out / JOURNAL, stream)
    executor.journal = Journal.start(run.out / JOURNAL, {"explore": {"seed": config.seed, "ops": ops}})
    progress = _ExploreProgressLine(stream, config.budget_s)
    bound = (
        f"{config.examples} requests per op" if config.budget_s is None else f"budget {config.budget_s:g} s"
    )
    print(f"exploring {len(ops)} ops on {len(stations)} targets, seed {config.seed}, {bound}", file=stream)
    findings: list[ShrunkDisagreement] = []
    drawn = 0
    try:
        with stopping() as stop:
            for index, op in enumerate(ops):
                op_started = time.monotonic()
                remaining = len(ops) - index
                share = (deadline - op_started) / remaining if config.budget_s is not None else math.inf
                search = OpSearch(
                    op,
                    executor,
                    run_seed=config.seed,
                    limits=config.limits,
                    max_examples=config.examples,
                    deadline=op_started + share,
                    progress=progress,
                )
                try:
                    search.run()
                finally:
                    drawn += len(search.drawn)
                    findings += search.findings
                progress.op_done(op, len(search.drawn), search.findings, time.monotonic() - op_started)
    finally:
        executor.pool.close()
    interrupted = stop.happened
    for finding in findings:  # the smallest request of each finding, beside the drawn ones
        executor.keep(finding.op, finding.case, finding.target)
    executor.journal.close()
    results = list(executor.recorded.values())
    outcome = ExploreOutcome(findings, results, drawn, time.monotonic() - clock, interrupted)
    outcome.in_corpus = {i: found for i, f in enumerate(findings) if (found := corpus.find(f.op, f.case))}
    _write_results(config, executor, adapters, issues, outcome, started)
    if not interrupted:
        (run.out / JOURNAL).unlink(missing_ok=True)
    return outcome


def _set_aside_a_runs_journal(path: Path, stream: TextIO) -> None:
    """An unfinished ``run``'s journal in the folder is set aside where --resume finishes it; an
    exploration's own (explorations do not resume) is replaced."""
    header = Journal.header(path)
    if header is not None and "explore" not in header:
        print(resumption.set_aside_note(out_folder.set_aside(path)), file=stream)


def _write_results(
    config: ExploreConfig,
    executor: _Executor,
    adapters: list[LoadedAdapter],
    issues: list[known_issues.KnownIssue],
    outcome: ExploreOutcome,
    started: str,
) -> None:
    cases = tuple(executor.cases.values())
    digest = hashlib.sha256("\n".join(sorted(case.id for case in cases)).encode()).hexdigest()[:16]
    suite = Suite(cases, (), f"explore-seed-{config.seed}-{digest}")
    # the requests ran once each (no steady runs): the reproducer commands say so
    settings = planning.verdict_settings(replace(config.run, repeat=0))
    plan = Plan(suite, adapters, list(executor.jobs.values()), issues, settings=settings)
    outcome.results = runner.with_reproducers(plan, outcome.results)
    outcome.written, _ = runner.write_results(
        plan, replace(config.run, repeat=0), outcome.results, started, outcome.wall_s, outcome.interrupted
    )
