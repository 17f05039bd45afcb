"""A whole run: plan the jobs, execute them on the pool, journal, apply known issues, write files.

Both front doors (``conformance run`` and the pytest plugin) come through :func:`plan` and
:func:`execute`, so they produce the same results file from the same executor.
"""

from __future__ import annotations

import datetime
import fnmatch
import os
import platform
import shutil
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TextIO

from conformance import __version__, report
from conformance.corpus.loader import Suite, load_paths
from conformance.corpus.selection import select
from conformance.results import document as results_file
from conformance.results import junit
from conformance.results.result import JSON, Result
from conformance.run import known_issues, registry, reproducers
from conformance.run.bandwidth import memcpy_baseline
from conformance.run.item import make_task
from conformance.run.journal import FILE_NAME as JOURNAL
from conformance.run.journal import Journal
from conformance.run.known_issues import KnownIssue
from conformance.run.pool import Pool
from conformance.run.progress import Progress
from conformance.run.shard import Shard
from conformance.run.worker import Job


@dataclass(frozen=True)
class RunConfig:
    case_paths: tuple[str, ...] = ("cases",)
    adapters: tuple[str, ...] = ()  # empty: every installed adapter
    options: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # adapter -> options
    ops: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    keyword: str | None = None
    items: tuple[str, ...] = ()  # exact item ids
    targets: tuple[str, ...] = ()  # target id globs, e.g. openvino/onnx/*
    jobs: int = 1
    timeout: float = 120.0
    repeat: int = 3
    out: Path = Path("reports")
    resume: bool = False
    known_issue_files: tuple[Path, ...] = ()
    #: False: raw statuses (no shipped known issues), e.g. to compare backend releases
    known_issues: bool = True
    #: written as the adapter's name in the results (e.g. openvino@2024.6.0), so runs of several
    #: releases of one backend merge into one report without their target ids colliding
    label: str | None = None
    junit: bool = True
    command: tuple[str, ...] = ()
    #: run only this part of the jobs (``--shard I/N``; see conformance.run.shard)
    shard: Shard | None = None

    @property
    def filtered(self) -> bool:
        return bool(self.ops or self.tags or self.keyword or self.items or self.targets or self.shard)


@dataclass(frozen=True)
class Plan:
    suite: Suite
    loaded: list[registry.Loaded]
    jobs: list[Job]
    issues: list[KnownIssue]
    #: with --shard: how many jobs the whole selection holds (the shard keeps a part of them)
    unsharded: int | None = None


@dataclass(frozen=True)
class Outcome:
    results: list[Result]
    stale: list[KnownIssue]
    interrupted: bool
    wall_s: float
    written: list[Path]


def plan(config: RunConfig) -> Plan:
    """Load the corpus and the adapters and list every job, in the run's deterministic order."""
    suite = load_paths(config.case_paths)
    names = config.adapters or tuple(sorted(registry.installed()))
    if not names:
        raise registry.PluginError(
            "no adapter is installed; install one (see README) or pass --adapter module:Class"
        )
    if config.label is not None:
        check_label(config.label, names)
    loaded = [registry.load(name, config.options.get(name, {})) for name in names]
    items = select(suite.cases, config.ops, config.tags, config.keyword, config.items)
    jobs: list[Job] = []
    for adapter in loaded:
        for target in adapter.targets():
            if config.targets and not any(fnmatch.fnmatchcase(target.id, glob) for glob in config.targets):
                continue
            runnable = set(adapter.route_ops(target.route))
            jobs.extend(
                Job(
                    len(jobs),
                    adapter.spec,
                    target,
                    item.case,
                    item.op,
                    config.repeat,
                    dict(config.options.get(adapter.spec, {})),
                )
                for item in items
                if item.op in runnable
            )
    issues = [
        issue
        for adapter in loaded
        if config.known_issues
        for issue in known_issues.shipped(adapter.info.name, adapter.reference)
    ]
    issues += [issue for path in config.known_issue_files for issue in known_issues.from_file(path)]
    if config.shard is None:
        return Plan(suite, loaded, jobs, issues)
    # Job.index stays the position in the whole run, so a shard's results keep the run's order.
    return Plan(suite, loaded, config.shard.select(jobs), issues, unsharded=len(jobs))


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


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


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
        return Journal.resume(path, header)
    shutil.rmtree(config.out / "workers", ignore_errors=True)  # worker logs of the previous run
    if path.exists():  # an unfinished run: keep its results rather than overwrite them
        kept = path.with_name(f"journal-{int(path.stat().st_mtime)}.jsonl")
        path.rename(kept)
        print(f"an unfinished run's journal was moved to {kept} (use --resume to finish a run)", file=stream)
    return Journal.start(path, header), []


def execute(
    plan_: Plan,
    config: RunConfig,
    stream: TextIO | None = None,
    on_result: Callable[[Result], None] | None = None,
) -> Outcome:
    """Run the plan; on Ctrl-C write what finished (marked interrupted) and re-raise."""
    stream = stream or sys.stderr
    started, clock = _now(), time.monotonic()
    journal, done = _open_journal(plan_, config, stream)
    # Known issues are applied as results arrive, so the progress line counts xfail, not fail;
    # the journal keeps each result as judged, so a resumed run re-applies the current list.
    finished = {result.key: known_issues.apply(result, plan_.issues) for result in done}
    pending = [job for job in plan_.jobs if job.key not in finished]
    progress = Progress(len(plan_.jobs), stream, done=len(plan_.jobs) - len(pending))
    if done:
        print(f"resuming: {len(finished)} results already journaled, {len(pending)} to go", file=stream)

    def record(result: Result) -> None:
        journal.append(result)
        result = finished[result.key] = known_issues.apply(result, plan_.issues)
        progress.update(result)
        if on_result:
            on_result(result)

    threads = max(1, (os.cpu_count() or 1) // max(1, config.jobs))
    interrupted = False
    try:
        Pool(
            config.jobs, config.timeout, record, threads_per_worker=threads, log_dir=config.out / "workers"
        ).run(pending)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        progress.close()
        journal.close()
    order = {job.key: job.index for job in plan_.jobs}
    results = sorted(
        finished.values(),
        key=lambda result: order.get(result.key, len(order)),
    )
    results = with_reproducers(plan_, results)
    wall_s = time.monotonic() - clock
    written = _write(plan_, config, results, started, wall_s, interrupted)
    if interrupted:
        print(
            f"interrupted: {len(results)} of {len(plan_.jobs)} results kept in {journal.path}; "
            f"finish with: conformance run --resume (same options)",
            file=stream,
        )
        raise KeyboardInterrupt
    journal.path.unlink(missing_ok=True)
    stale = [] if config.filtered else known_issues.stale(plan_.issues, results)
    return Outcome(results, stale, interrupted, wall_s, written)


#: Results that carry no reproducer: nothing to reproduce.
_NOTHING_TO_REPRODUCE = frozenset({"pass", "unsupported", "skip"})


def with_reproducers(plan_: Plan, results: list[Result]) -> list[Result]:
    """Attach to each result worth reproducing the command and the adapter's Python snippet."""
    jobs = {job.key: job for job in plan_.jobs}
    adapters = {loaded.spec: loaded for loaded in plan_.loaded}
    attached = []
    for result in results:
        job = jobs.get(result.key)
        if result.status in _NOTHING_TO_REPRODUCE or job is None or result.reproducer:
            attached.append(result)
            continue
        hook = getattr(adapters[job.adapter].adapter, "reproducer", None)
        python = None
        if callable(hook):
            try:
                body = hook(make_task(job.case, job.op), job.target)
            except Exception as error:  # a broken hook must not cost the results
                body = f"# the adapter's reproducer() failed: {type(error).__name__}: {error}"
            if body:
                python = (
                    reproducers.header(
                        result.item_id, job.target, reproducers.describe_expected(result.expected)
                    )
                    + body
                )
        line = reproducers.command(job.case, job.op, job.adapter, job.target, job.options)
        attached.append(replace(result, reproducer={"command": line, "python": python}))
    return attached


def _write(
    plan_: Plan, config: RunConfig, results: list[Result], started: str, wall_s: float, interrupted: bool
) -> list[Path]:
    suite = {
        "version": __version__,
        "digest": plan_.suite.digest,
        "cases": len(plan_.suite.cases),
        "files": list(plan_.suite.files),
    }
    run = {
        "start": started,
        "end": _now(),
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
    if config.label is not None:  # after known issues and reproducers, which use the real name
        results = [replace(result, adapter=config.label) for result in results]
    adapters = [
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
    results_file.write(path, results_file.document(suite, run, adapters, results))
    written = [path]
    if config.junit:
        junit.write(config.out / "junit.xml", results)
        written.append(config.out / "junit.xml")
    try:
        written.append(report.write([path], config.out / "index.html"))
    except Exception as error:  # the report is a view of the results: it must never cost them
        print(f"warning: the HTML report was not written: {type(error).__name__}: {error}", file=sys.stderr)
    return written


def check_label(label: str, adapters: Sequence[str]) -> None:
    """A label names one adapter's results, and becomes the first part of target ids (a/route/device)."""
    if len(adapters) != 1:
        raise ValueError(f"--label {label!r} relabels one adapter's results: name exactly one --adapter")
    if not label or "/" in label or label != label.strip():
        raise ValueError(f"--label {label!r}: must be non-empty, without '/' or surrounding spaces")


def parse_options(pairs: Sequence[str]) -> dict[str, dict[str, str]]:
    """``ADAPTER.KEY=VALUE`` strings as {adapter: {key: value}}."""
    options: dict[str, dict[str, str]] = {}
    for pair in pairs:
        left, equals, value = pair.partition("=")
        name, dot, key = left.rpartition(".")  # the adapter may be module.path:Class; keys hold no dot
        if not (dot and equals and name and key):
            raise ValueError(f"--option {pair!r}: expected ADAPTER.KEY=VALUE, e.g. openvino.device=CPU")
        options.setdefault(name, {})[key] = value
    return options
