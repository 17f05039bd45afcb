"""Planning a run: which (case, op, target) jobs it holds, in its deterministic order. Every front
door plans through :func:`plan`, so one selection rule decides what runs.
"""

from __future__ import annotations

import fnmatch
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from conformance.corpus import catalogue, keywords
from conformance.corpus.case import Case
from conformance.corpus.loader import Suite, load_paths
from conformance.corpus.selection import Item, close_to, missing_items, select, unmatched_ops, unmatched_tags
from conformance.engine.worker import Job
from conformance.errors import PluginError, UsageError
from conformance.loading import registry
from conformance.plugin import Target
from conformance.statuses import Judged
from conformance.storage.shard import Shard
from conformance.verdict import known_issues
from conformance.verdict.known_issues import KnownIssue


@dataclass(frozen=True)
class RunConfig:
    """Everything a run is asked to do; the CLI's options, one field each."""

    case_paths: tuple[str, ...] = ("cases",)
    adapters: tuple[str, ...] = ()  # empty: every installed adapter
    options: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # adapter -> options
    ops: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    keyword: str | None = None
    items: tuple[str, ...] = ()  # exact item ids
    targets: tuple[str, ...] = ()  # target id globs, e.g. openvino/onnx/*
    #: exact result keys (item@target): what a pytest session selected after its own deselection
    keys: frozenset[str] | None = None
    #: the pytest arguments behind ``keys`` (-k, -m, node ids), as typed: the run's selection
    #: records them, so that a narrowed session neither replaces a fuller run nor passes for one
    narrowing: tuple[str, ...] = ()
    jobs: int = 1
    timeout: float = 120.0
    repeat: int = 3
    out: Path = Path("reports")
    resume: bool = False
    known_issue_files: tuple[Path, ...] = ()
    #: False: raw statuses (no shipped known issues), e.g. to compare backend releases
    known_issues: bool = True
    #: the adapter's name in the results (openvino@2024.6.0): runs of several releases merge
    label: str | None = None
    junit: bool = True
    command: tuple[str, ...] = ()
    #: MiB an item may need in a worker (``--memory-budget``); None: what the machine has available
    memory_budget_mib: int | None = None
    #: run only this part of the jobs (``--shard I/N``; see conformance.storage.shard)
    shard: Shard | None = None
    #: seconds the crash review may spend (``--crash-budget``)
    crash_budget_s: float = 300.0
    #: replace the complete run of another selection in ``out`` (``--replace``)
    replace: bool = False


@dataclass(frozen=True)
class Plan:
    suite: Suite
    loaded: list[registry.LoadedAdapter]
    jobs: list[Job]
    issues: list[KnownIssue]
    #: with --shard: how many jobs the whole selection holds (the shard keeps a part of them)
    unsharded: int | None = None
    #: the run's settings that can change a verdict, as words of ``conformance run``
    #: (:func:`verdict_settings`): each reproducer command carries them
    settings: tuple[str, ...] = ()


def verdict_settings(config: RunConfig) -> tuple[str, ...]:
    """The options of ``config`` that can change a verdict, as ``conformance run`` takes them:
    the known-issues mode and files (without them a fail reruns as xfail), and a time limit,
    steady-run count or memory budget other than the default (a timeout, a crash in a steady run,
    an item not attempted). The cases, items, target and adapter options each command names itself."""
    default = RunConfig()
    words = [] if config.known_issues else ["--no-known-issues"]
    for path in config.known_issue_files:
        words += ["--known-issues", str(path)]
    if config.timeout != default.timeout:
        words += ["--timeout", str(config.timeout)]
    if config.repeat != default.repeat:
        words += ["--repeat", str(config.repeat)]
    if config.memory_budget_mib is not None:
        words += ["--memory-budget", str(config.memory_budget_mib)]
    return tuple(words)


def load_adapters(config: RunConfig) -> list[registry.LoadedAdapter]:
    """The adapters the run names (every installed one by default), constructed with their options."""
    installed = registry.installed()
    names = config.adapters or tuple(sorted(installed))
    if not names:
        raise PluginError("no adapter is installed; install one (see README) or pass --adapter module:Class")
    if config.label is not None:
        check_label(config.label, names)
    unknown = [name for name in names if ":" not in name and name not in installed]
    if unknown:  # before any adapter is imported: a typo among several is refused as one alone is
        listing = "installed: " + (", ".join(sorted(installed)) or "none")
        said = [f"no adapter named {n!r} is installed; {close_to(n, installed) or listing}" for n in unknown]
        raise UsageError("; ".join(said) + " (name an entry point or give module:attribute)")
    return [_load(name, config.options.get(name, {})) for name in names]


def _load(name: str, options: Mapping[str, str]) -> registry.LoadedAdapter:
    """The adapter ``name``; a ``module:attribute`` reference whose module imported but lacks the
    attribute is refused with the module's closest names (the registry's message has none)."""
    try:
        return registry.load(name, options)
    except PluginError as error:
        module, _, attribute = name.partition(":")
        imported = sys.modules.get(module) if attribute and "." not in attribute else None
        if imported is None or hasattr(imported, attribute):
            raise
        hint = close_to(attribute, [n for n in dir(imported) if not n.startswith("_")])
        raise UsageError(f"--adapter {name!r}: {error}" + (f"; {hint}" if hint else "")) from None


@dataclass(frozen=True)
class Station:
    """One target a run serves, with what it needs to build jobs."""

    adapter: str
    target: Target
    options: Mapping[str, str]
    judged: Judged
    ops: frozenset[str]
    own_worker: bool = False
    imports: tuple[str, ...] = ()

    def job(self, index: int, case: Case, op: str, repeat: int) -> Job:
        """The job of ``case`` and ``op`` on this target, ``index``-th in its run."""
        options = dict(self.options)
        return Job(
            index,
            self.adapter,
            self.target,
            case,
            op,
            repeat,
            options,
            self.judged,
            self.own_worker,
            self.imports,
        )


def stations(config: RunConfig, adapters: Sequence[registry.LoadedAdapter]) -> list[Station]:
    """The targets the run selects: with ``--target``, what its globs match; without, every
    target of the routes in the default run (``Route.default``)."""
    found = []
    for adapter in adapters:
        for target in adapter.targets():
            route = adapter.route(target.route)
            wanted = (
                any(fnmatch.fnmatchcase(target.id, glob) for glob in config.targets)
                if config.targets
                else route.default
            )
            if wanted:
                options = dict(config.options.get(adapter.requested, {}))
                ops = frozenset(catalogue.match(route.ops))
                found.append(
                    Station(
                        adapter.requested,
                        target,
                        options,
                        route.judged,
                        ops,
                        bool(route.own_worker),
                        route.imports,
                    )
                )
    return found


def issues_for(config: RunConfig, adapters: Sequence[registry.LoadedAdapter]) -> list[KnownIssue]:
    """The known issues a run applies: the adapters' shipped lists and the ``--known-issues`` files."""
    found = [
        issue
        for adapter in adapters
        if config.known_issues
        for issue in known_issues.shipped(adapter.info.name, adapter.import_path)
    ]
    return found + [issue for path in config.known_issue_files for issue in known_issues.from_file(path)]


def plan(config: RunConfig, loaded: Sequence[registry.LoadedAdapter] | None = None) -> Plan:
    """Load the corpus (and the adapters, unless ``loaded``) and list every job; UsageError for a
    selector value that matches nothing (:func:`unmatched`)."""
    suite = load_paths(config.case_paths)
    adapters = list(loaded) if loaded is not None else load_adapters(config)
    items = select(suite.cases, config.ops, config.tags, None, config.items)
    jobs = _jobs(config, adapters, items)
    # an empty selection is left to the front door, which says why in its terms (nothing_selected)
    if jobs and (problems := unmatched(config, suite, adapters)):
        raise UsageError("every value of a selector must match something: " + "; ".join(problems))
    issues = issues_for(config, adapters)
    settings = verdict_settings(config)
    if config.shard is None:
        return Plan(suite, adapters, jobs, issues, settings=settings)
    # Job.index stays the position in the whole run, so a shard's results keep the run's order.
    return Plan(suite, adapters, config.shard.select(jobs), issues, unsharded=len(jobs), settings=settings)


def _jobs(config: RunConfig, adapters: Sequence[registry.LoadedAdapter], items: Sequence[Item]) -> list[Job]:
    """Every (item, target) job the selection holds, in the run's order."""
    matches = keywords.compile_keyword(config.keyword) if config.keyword else None
    jobs: list[Job] = []
    for station in stations(config, adapters):
        for item in items:
            if item.op not in station.ops:
                continue
            if matches is not None and not matches(keywords.words(item.case, item.op, station.target.id)):
                continue
            job = station.job(len(jobs), item.case, item.op, config.repeat)
            if config.keys is None or job.key in config.keys:
                jobs.append(job)
    return jobs


def _served_without_keyword(config: RunConfig, plan_: Plan) -> bool:
    """Whether the selection has jobs once ``-k`` is left out (then ``-k`` is what emptied it)."""
    items = select(plan_.suite.cases, config.ops, config.tags, None, config.items)
    chosen = stations(config, plan_.loaded)
    return any(item.op in station.ops for station in chosen for item in items)


def unmatched(config: RunConfig, suite: Suite, adapters: Sequence[registry.LoadedAdapter]) -> list[str]:
    """A problem for each value of ``--op``, ``--target``, ``--tag`` or ``--item`` that matches
    nothing, with the closest choices: repeated selectors select the union of their values, so a
    typo among good values would otherwise just narrow the run."""
    problems = unmatched_ops(config.ops) + unmatched_targets(config.targets, adapters)
    problems += unmatched_tags(config.tags, suite.cases)
    return problems + (missing_items(config.items, suite.cases) if config.items else [])


def unmatched_targets(globs: Sequence[str], adapters: Sequence[registry.LoadedAdapter]) -> list[str]:
    """A problem for each ``--target`` glob that matches no target of the loaded adapters."""
    available = [target.id for adapter in adapters for target in adapter.targets()]
    problems = []
    for glob in globs:
        if not any(fnmatch.fnmatchcase(target, glob) for target in available):
            hint = close_to(glob, available)
            listed = f"--target {glob!r} matches none of the targets: {', '.join(available)}"
            problems.append(f"{listed}; {hint}" if hint else listed)
    return problems


def nothing_selected(config: RunConfig, plan_: Plan) -> str:
    """Why a selection holds no job, naming the option at fault and the choices it had."""
    problems = unmatched(config, plan_.suite, plan_.loaded)
    if not problems and config.keyword and _served_without_keyword(config, plan_):
        problems.append(
            f"-k {config.keyword!r} matches none of the items the other options select "
            "(what it matches: docs/running.md, 'Selecting items')"
        )
    if not problems:
        chosen = stations(config, plan_.loaded)
        targets = ", ".join(station.target.id for station in chosen) or "none"
        served = ", ".join(sorted({op for station in chosen for op in station.ops})) or "none"
        problems.append(
            f"the items selected have no op the targets selected run (targets: {targets}; ops: {served})"
        )
    return "the selection matches no (case, op, target): " + "; ".join(problems)


def check_label(label: str, adapters: Sequence[str]) -> None:
    """A label names one adapter's results, and becomes the first part of target ids (a/route/device)."""
    if len(adapters) != 1:
        raise UsageError(f"--label {label!r} relabels one adapter's results: name exactly one --adapter")
    if not label or "/" in label or label != label.strip():
        raise UsageError(f"--label {label!r}: must be non-empty, without '/' or surrounding spaces")


def parse_options(pairs: Sequence[str], adapters: Sequence[str] | None = None) -> dict[str, dict[str, str]]:
    """``ADAPTER.KEY=VALUE`` strings as {adapter: {key: value}}. With ``adapters`` (the run's
    ``--adapter`` values), each ADAPTER must be an installed adapter or one of them: an option
    for a misspelt adapter would otherwise be dropped, and the run go green without it. Only
    the pytest plugin's first reading passes None; its planning reads them again with them."""
    options: dict[str, dict[str, str]] = {}
    first: dict[str, str] = {}  # each adapter's first pair, as given: what a refusal names
    for pair in pairs:
        left, equals, value = pair.partition("=")
        name, dot, key = left.rpartition(".")  # the adapter may be module.path:Class; keys hold no dot
        if not (dot and equals and name and key):
            raise UsageError(f"--option {pair!r}: expected ADAPTER.KEY=VALUE, e.g. openvino.device=CPU")
        first.setdefault(name, pair)
        options.setdefault(name, {})[key] = value
    installed = registry.installed() if adapters is not None and options else {}
    known = sorted({*installed, *(adapters or ())})
    problems = [
        f"--option {pair!r}: no adapter named {name!r} is installed or given by --adapter; "
        + (close_to(name, known) or "installed: " + (", ".join(sorted(installed)) or "none"))
        for name, pair in first.items()
        if adapters is not None and name not in known
    ]
    if problems:
        raise UsageError("; ".join(problems))
    return options
