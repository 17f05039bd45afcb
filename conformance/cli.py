"""The ``conformance`` command line: a thin front door over the engine.

Exit statuses are one table for every verb (:class:`conformance.errors.Exit`, shown in each verb's
``--help``); any ConformanceError exits 2, and a run that did not judge its whole selection never
exits 0. Input is refused before any work starts. Each verb imports what it uses when it starts,
so the verbs that only read results files do not wait for the run's planning and Hypothesis.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conformance import arguments, options
from conformance.engine import interruption, streams
from conformance.errors import ConformanceError, Exit, UsageError
from conformance.results import document as results_file  # out_folder imports it anyway
from conformance.storage import out_folder, out_lock

if TYPE_CHECKING:
    from conformance.corpus.loader import Suite
    from conformance.corpus.selection import Item
    from conformance.loading.registry import LoadedAdapter
    from conformance.run import planning, runner


def _load(cases: Sequence[str] | None) -> Suite:
    """The case files of ``--cases`` (repeatable, as every verb takes them), or the corpus."""
    from conformance.corpus import builtin
    from conformance.corpus.loader import load_paths

    return load_paths(cases or [str(builtin.default_cases())])


def _select(args: argparse.Namespace, suite: Suite) -> list[Item]:
    """The items ``list`` shows; a value of ``--op`` or ``--tag`` that matches nothing is refused
    (among good ones, it would only narrow the listing)."""
    from conformance.corpus.selection import select, unmatched_ops, unmatched_tags

    problems = unmatched_ops(args.op or ()) + unmatched_tags(args.tag or (), suite.cases)
    if problems:
        raise UsageError("; ".join(problems))
    return select(suite.cases, args.op or (), args.tag or (), args.keyword)


def cmd_validate(args: argparse.Namespace) -> int:
    from conformance.corpus.selection import select
    from conformance.oracle.corpus_check import check_corpus

    suite = _load(args.cases)
    defects = check_corpus(suite.cases)
    for defect in defects:
        print(defect, file=sys.stderr)
    items = select(suite.cases)
    summary = (
        f"{len(suite.files)} files, {len(suite.cases)} cases, {len(items)} (case, op) pairs "
        f"over {len({item.op for item in items})} ops; digest {suite.digest}"
    )
    if defects:
        print(f"{len(defects)} defect(s) in {summary}", file=sys.stderr)
        return 1
    print(f"ok: {summary}")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from conformance.corpus import catalogue

    suite = _load(args.cases)
    items = _select(args, suite)
    if not args.totals:
        width = max((len(item.id) for item in items), default=0)
        for item in items:
            tags = ",".join(item.case.tags)
            print(f"{item.id:<{width}}  {tags:<24}  {item.case.location}")
        print()
    _print_totals("op", Counter(item.op for item in items), order=list(catalogue.OPS))
    _print_totals("tag", Counter(tag for item in items for tag in item.case.tags or ("(untagged)",)))
    _print_totals("family", Counter(item.case.family for item in items))
    _print_totals("form", Counter(item.case.kind for item in items))
    print(f"total: {len(items)} (case, op) pairs from {len({item.case.id for item in items})} cases")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from conformance.run import planning, resumption, runner

    if args.resume is not None:
        args = _resuming(args)
    out_folder.check(Path(args.out))
    config = _run_config(args, resume=args.resume is not None, junit=not args.no_junit)
    plan = planning.plan(config)
    if not plan.jobs and not plan.unsharded:
        raise UsageError(planning.nothing_selected(config, plan))
    if config.resume:
        runner.check_resumable(plan, config)
    _announce(plan, config)
    with interruption.boundary(lambda: resumption.advice(config.command, config.out)) as verb:
        outcome = runner.execute(plan, config)
        verb.ended(outcome.interrupted)
        verb.status = _run_summary(outcome, len(plan.jobs))
    return verb.status


def _announce(plan: planning.Plan, config: planning.RunConfig) -> None:
    """What a run says before it starts: what it resumes or replaces (refused first when that is
    the complete run of another selection), and how many jobs."""
    from conformance.run import runner
    from conformance.storage.journal import FILE_NAME as JOURNAL
    from conformance.storage.journal import Journal

    runner.check_replacing(plan, config)
    if config.resume:
        journaled = Journal.command(config.out / JOURNAL)
        print(f"resuming: {shlex.join(journaled or config.command)}", file=sys.stderr)
    elif (config.out / results_file.FILE_NAME).exists():
        print(
            f"note: this run replaces the results and report in {config.out}/; they move to "
            f"{config.out / out_folder.PREVIOUS}/ as it starts (give --out DIR to leave them in place)",
            file=sys.stderr,
        )
    targets = sorted({job.target.id for job in plan.jobs})
    shard = config.shard
    print(
        f"{len(plan.jobs)} jobs: {len(plan.suite.cases)} cases on {len(targets)} targets "
        f"({', '.join(targets)}), -j {config.jobs}"
        + (f"; shard {shard} of {plan.unsharded} jobs" if shard else ""),
        file=sys.stderr,
    )


def _run_summary(outcome: runner.ExecutionOutcome, selected: int) -> int:
    """A run's report and terminal summary (an interrupted one's too); its exit status."""
    from conformance import publishing
    from conformance.results import findings
    from conformance.verdict.exit_status import exit_status, nothing_judged, summary_table, verdict

    page = publishing.run_report(outcome.written[0])
    print(summary_table(outcome.results))
    for issue in outcome.stale:
        print(
            f"warning: known issue {issue.id} ({issue.source}) matched no result; remove it if fixed",
            file=sys.stderr,
        )
    pages = [page, *(page.with_name(name) for name in out_folder.COMPAT_NAMES)] if page else []
    print(
        f"{len(outcome.results)} results in {outcome.wall_s:.1f} s; wrote "
        f"{', '.join(str(path) for path in [*outcome.written, *pages] if path.exists())}"
    )
    why = nothing_judged(outcome.results)
    if why:
        print(f"conformance run: {why}", file=sys.stderr)
    print(verdict(outcome.results, selected, outcome.interrupted))
    print(findings.terminal(outcome.findings))
    return exit_status(outcome.results)


def _run_config(args: argparse.Namespace, **overrides: Any) -> planning.RunConfig:
    """The run the verb's options ask for (conformance.options.run_config); ``overrides`` set the rest."""
    return options.run_config(lambda dest: getattr(args, dest, None), args.command, **overrides)


def cmd_explore(args: argparse.Namespace) -> int:
    from conformance import publishing
    from conformance.explore import printout, session, writing
    from conformance.explore.limits import Limits
    from conformance.run import resumption

    out_folder.check(Path(args.out))
    if args.write:
        writing.check(Path(args.write), args.seed)
    config = session.ExploreConfig(
        run=_run_config(args, junit=False),
        seed=args.seed,
        budget_s=args.budget,
        max_examples=args.max_examples,
        limits=Limits(data_bytes=int(args.max_data * 1024 * 1024), pieces=args.max_pieces),
    )
    with interruption.boundary(lambda: resumption.advice(args.command, config.run.out)) as verb:
        outcome = session.explore(config)
        verb.ended(outcome.interrupted)
        page = publishing.run_report(config.run.out / results_file.FILE_NAME)
        cases: list[Path] = []
        if args.write and outcome.findings:
            cases, refused = writing.write(outcome.findings, outcome.in_corpus, Path(args.write), args.seed)
            for problem in refused:
                print(f"warning: {problem}", file=sys.stderr)
        print(printout.terminal(outcome, cases))
        files = [*outcome.written, *cases, *([page] if page else [])]
        print(f"wrote {', '.join(str(path) for path in files)}")
        verb.status = 1 if printout.new_failures(outcome) else 0
    return verb.status


def cmd_merge(args: argparse.Namespace) -> int:
    from conformance import publishing
    from conformance.results import merge
    from conformance.verdict.exit_status import summary_table

    paths = [Path(path) for path in args.results]
    out_folder.check(Path(args.output), "-o")
    with out_lock.holding(Path(args.output), args.command):  # refused while a run writes there
        merged, written = merge.write(paths, Path(args.output), args.prefer_last, args.command)
        out_folder.mark(Path(args.output), "-o")
    page = publishing.run_report(written[0])
    written += [page] if page else []
    print(summary_table(merge.results(merged)))
    for problem in merged.incomplete:
        print(f"warning: {problem}", file=sys.stderr)
    print(
        f"{len(merged.document['results'])} results from {len(paths)} files "
        f"({merged.duplicates} found twice); wrote {', '.join(str(path) for path in written)}"
    )
    return 1 if merged.incomplete else 0


def cmd_adapters(args: argparse.Namespace) -> int:
    """Each installed adapter's routes, devices and options, and whether each route of the default
    run can load its backend: its declared modules (Route.imports), imported in child processes,
    so that a route that cannot stops the main job here rather than as an adapter defect per item."""
    from conformance.engine import loadable
    from conformance.loading import registry
    from conformance.run.planning import RunConfig

    found = registry.installed()
    if not found:
        print("no adapters installed (entry-point group conformance.adapters)")
        return 0
    loaded: dict[str, LoadedAdapter] = {}
    status = 0
    for name in sorted(found):
        try:
            loaded[name] = registry.load(name)
        except ConformanceError as error:
            print(f"{name}: BROKEN: {error}")
            status = 1
    default = [route.imports for adapter in loaded.values() for route in adapter.info.routes if route.default]
    if any(default):
        print("importing the default run's backends in child processes ...", file=sys.stderr, flush=True)
    verdicts = loadable.check(default, RunConfig.timeout)  # the limit a default run gives a start
    unloadable = []
    for name, adapter in loaded.items():
        print(_adapter_listing(name, found[name], adapter, verdicts))
        for route in adapter.info.routes:
            why = verdicts.get(route.imports) if route.default else None
            if why:
                hint = _install_hint(adapter.import_path)
                unloadable.append(f"{name}/{route.name} cannot load its backend: {why} ({hint})")
    for said in unloadable:
        print(said, file=sys.stderr)
    return 1 if unloadable else status


def _adapter_listing(
    name: str, reference: str, adapter: LoadedAdapter, verdicts: dict[tuple[str, ...], str | None]
) -> str:
    """What ``conformance adapters`` says of one adapter: version, devices, options and routes,
    and for each route of the default run whether it loads its backend."""
    from conformance.corpus import catalogue

    info = adapter.info
    lines = [f"{name}  {info.backend} {info.version}  ({reference})"]
    others = ""
    if info.other_devices:
        others = f"  (also: {', '.join(info.other_devices)}, with --option {name}.device=...)"
    lines.append(f"  devices: {', '.join(info.devices)}{others}")
    lines += [f"  option {key} = {value}" for key, value in sorted(info.options.items())]
    for route in info.routes:
        optional = "" if route.default else f"  [not in the default run: --target '{name}/{route.name}/*']"
        lines.append(f"  route {route.name}: {', '.join(catalogue.match(route.ops))}{optional}")
        if route.description:
            lines.append(f"    {route.description}")
        if route.default:
            modules = ", ".join(route.imports)
            why = verdicts.get(route.imports)
            said = "declares no modules (Route.imports): not checked" if not modules else f"loads ({modules})"
            lines.append(f"    backend: {said if why is None else f'CANNOT LOAD: {why}'}")
    return "\n".join(lines)


def _install_hint(import_path: str) -> str:
    """What to install when a route's declared module is missing: the module, or the adapter's
    distribution, whose requirements (or an extra of it) should bring it."""
    from conformance.plugin import installed_distribution

    found = installed_distribution(import_path.partition(":")[0].partition(".")[0])
    said = "a module the route declares (Route.imports): install what provides it"
    return said if found is None else f"{said}; {found[0]} or one of its extras should require it"


def cmd_report(args: argparse.Namespace) -> int:
    from conformance import report

    paths = [Path(path) for path in args.results]
    out_folder.check_page(Path(args.output), "-o")
    with out_lock.holding(Path(args.output).parent, args.command):
        out = report.write(paths, Path(args.output))
    print(f"wrote {out} ({out.stat().st_size / 1024 / 1024:.1f} MiB) from {len(paths)} results file(s)")
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    from conformance.report import diff_page
    from conformance.results import diff as run_diff

    rule = run_diff.NoiseRule(ratio=args.ratio, floor_ms=args.floor_ms, min_runs=args.min_runs)
    if args.html:
        out_folder.check_page(Path(args.html), "--html")
    found = run_diff.read(Path(args.old), Path(args.new), rule, args.allow_new_items)
    print(run_diff.terminal(found))
    if args.html:
        with out_lock.holding(Path(args.html).parent, args.command, "--html"):
            print(f"wrote {diff_page.write(found, Path(args.html))}")
    return found.exit_status


def cmd_versions(args: argparse.Namespace) -> int:
    from conformance.report import versions_page
    from conformance.results import versions

    if args.output:
        out_folder.check_page(Path(args.output), "-o")
    found = versions.read([Path(path) for path in args.results])
    print(versions.terminal(found, args.rows))
    if args.output:
        with out_lock.holding(Path(args.output).parent, args.command):
            print(f"wrote {versions_page.write(found, Path(args.output))}")
    return 0


def cmd_compat(args: argparse.Namespace) -> int:
    """The compatibility page over results files, as HTML and/or Markdown (by each -o's suffix)."""
    from conformance import publishing, report
    from conformance.results.combined import combine

    paths = [Path(path) for path in args.results]
    outputs = [Path(path) for path in args.output]
    for out in outputs:
        publishing.check_compat_output(out)
    combined = combine(results_file.read_documents(paths), [str(path) for path in paths])
    for out in outputs:
        # each row links to the report beside the results file its results came from
        beside = [publishing.report_beside(path, out) for path in paths]
        links = args.report if args.report is not None else beside
        with out_lock.holding(out.parent, args.command):
            report.write_compat(combined, out, links)
        found = [link for link in ([links] if isinstance(links, str) else links) if link]
        said = f"rows link to {', '.join(found)}" if found else "no report beside the results to link to"
        print(f"wrote {out} ({said})")
    return 0


def cmd_certify(args: argparse.Namespace) -> int:
    from conformance import publishing
    from conformance.certify import certification
    from conformance.certify.certificate import HTML_NAME as CERTIFICATE_PAGE
    from conformance.corpus import builtin
    from conformance.report import certificate_page
    from conformance.run import resumption

    if args.verify:  # without a corpus, the certificate is checked but its scope is not re-derived
        results = Path(args.results) if args.results else None
        found = builtin.find()
        corpus = tuple(args.cases or ([str(found)] if found else []))
        return certification.verify_verb(Path(args.verify), results, corpus)
    if not (args.adapter and args.profile):
        raise UsageError("--adapter and --profile are required (or --verify CERTIFICATE)")
    if len(args.adapter) > 1:
        raise UsageError(f"a certificate is for one adapter; --adapter given {len(args.adapter)} times")
    if args.resume:
        raise UsageError("certify --resume finishes the certification in --out; it takes no folder")
    adapter = args.adapter[0]
    request = certification.CertifyRequest(
        adapter=adapter,
        profile=args.profile,
        route=args.route,
        device=args.device,
        options=certification.options_for(adapter, args.option or []),
        case_paths=tuple(args.cases or [str(builtin.default_cases())]),
        out=Path(args.out) if args.out else None,
        jobs=args.jobs,
        timeout=args.timeout,
        crash_budget_s=args.crash_budget,
        command=args.command,
        resume=args.resume is not None,
    )
    out = certification.output_folder(request)
    with interruption.boundary(lambda: resumption.advice(args.command, out)) as verb:
        done = certification.certify(replace(request, out=out))
        verb.ended(done.interrupted)
        sealed = done.certificate
        pages = [] if sealed is None else [certificate_page.write(sealed, out / CERTIFICATE_PAGE)]
        pages += [page] if (page := publishing.run_report(out / results_file.FILE_NAME)) else []
        done = replace(done, written=[*done.written, *pages])
        if done.interrupted:
            print(f"wrote {', '.join(str(path) for path in done.written)}; no certificate (interrupted)")
        else:
            verb.status = certification.print_verdict(done)
    return verb.status


def _note_jobs(jobs: int | None) -> None:
    """One line on stderr when ``-j`` asks for more workers than the cores this process may use:
    allowed (a worker waiting on its backend leaves a core idle), but workers beyond the cores
    mostly take turns, so a CPU-bound run gets slower, not faster."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    if jobs is not None and jobs > cores:
        print(
            f"note: -j {jobs} on {cores} cores: the workers beyond {cores} take turns on them, which "
            f"slows a CPU-bound run; -j {cores} is usually fastest",
            file=sys.stderr,
        )


def _print_totals(title: str, counts: Counter[str], order: Sequence[str] | None = None) -> None:
    keys = [key for key in order if key in counts] if order else sorted(counts, key=lambda k: (-counts[k], k))
    width = max((len(key) for key in keys), default=0)
    print(f"per {title}:")
    for key in keys:
        print(f"  {key:<{width}}  {counts[key]:>5}")


def _resuming(args: argparse.Namespace) -> argparse.Namespace:
    """``run --resume [PATH]``: the folder to finish, refused at once when it holds no journal
    (before anything is planned), and the interrupted run's options (:func:`_restored`)."""
    from conformance.run import resumption

    out_given = any(word == "--out" or word.startswith("--out=") for word in args.command[2:])
    folder = resumption.folder_to_resume(args.resume, Path(args.out), out_given, sys.stderr)
    out_folder.check(folder)
    resumption.require_journal(folder)
    restored = _restored(argparse.Namespace(**{**vars(args), "out": str(folder)}))
    restored.out = str(folder)  # the folder finished, whatever --out its command had
    return restored


def _restored(args: argparse.Namespace) -> argparse.Namespace:
    """``run --resume``: the options of the command the journal kept, with those given now on top
    (``--resume -j 4`` finishes with more workers); without such a command, those given."""
    from conformance.storage.journal import FILE_NAME as JOURNAL
    from conformance.storage.journal import Journal

    journaled = Journal.command(Path(args.out) / JOURNAL)
    if journaled is None or journaled[:2] != ["conformance", "run"]:
        return args
    parser = argparse.ArgumentParser(prog="conformance run", add_help=False)
    options.add(parser, options.RUN)
    try:
        saved = parser.parse_args(journaled[2:])
    except SystemExit:
        raise UsageError(
            f"{Path(args.out) / JOURNAL}: its command cannot be read: {shlex.join(journaled)}"
        ) from None
    now = options.given(options.RUN, args.command[2:])
    return argparse.Namespace(**{**vars(args), **vars(saved), **now})


#: each verb's handler, by the verb's name in :mod:`conformance.arguments`
HANDLERS: dict[str, Callable[[argparse.Namespace], int]] = {
    "validate": cmd_validate,
    "list": cmd_list,
    "run": cmd_run,
    "explore": cmd_explore,
    "adapters": cmd_adapters,
    "report": cmd_report,
    "diff": cmd_diff,
    "merge": cmd_merge,
    "versions": cmd_versions,
    "compat": cmd_compat,
    "certify": cmd_certify,
}


def build_parser() -> argparse.ArgumentParser:
    parser, verbs = arguments.parser()
    for verb in verbs.choices.values():  # an alias names the same parser as its verb
        verb.set_defaults(handler=HANDLERS[verb.prog.split()[-1]])
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one verb; its exit status (conformance.errors.Exit, or 128 + a stopping signal). Neither
    a closed pipe nor SIGTERM or SIGHUP (stopping a verb as Ctrl-C does) can lose results."""
    given = list(sys.argv[1:] if argv is None else argv)
    # as the program itself (no argv), the process ends with the verb: its handlers stay
    with streams.guarded(), interruption.signals(restore=argv is not None):
        args = build_parser().parse_args(given)
        _note_jobs(getattr(args, "jobs", None))
        #: the command as typed (recorded in results; ``run --resume`` restores a run's options from it)
        args.command = ("conformance", *given)
        again = f"to start again: {shlex.join(args.command)}"
        try:  # a verb that runs anything has its own boundary, saying how to finish; this one is for the rest
            with interruption.boundary(lambda: again) as verb:
                verb.status = int(args.handler(args))
            return verb.status
        except ConformanceError as error:  # the one place user-input errors become exit status 2
            print(f"conformance {args.verb}: {error}", file=sys.stderr)
            return Exit.USAGE


if __name__ == "__main__":
    sys.exit(main())
