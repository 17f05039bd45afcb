"""The ``conformance`` command line: a thin front door over the engine.

Exit status: 0 when all is well, 1 when the suite has defects (or, for ``run``, a result
outside pass / xfail / unsupported: conformance.statuses.GREEN), 2 when the input cannot be
used (a broken case file, a bad option: any conformance.errors.ConformanceError). Every message
about a case names its file and line.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from conformance import __version__, publishing, report
from conformance.certify import certification
from conformance.certify.certificate import HTML_NAME as CERTIFICATE_PAGE
from conformance.corpus import builtin, catalogue
from conformance.corpus.loader import Suite, load_paths
from conformance.corpus.selection import Item, select
from conformance.errors import ConformanceError, UsageError
from conformance.explore import session, space, writing
from conformance.explore import summary as explore_summary
from conformance.oracle.corpus_check import check_corpus
from conformance.report import certificate_page, diff_page, versions_page
from conformance.results import diff as run_diff
from conformance.results import document as results_file
from conformance.results import findings, merge, versions
from conformance.run import planning, registry, runner
from conformance.run.journal import FILE_NAME as JOURNAL
from conformance.run.journal import Journal
from conformance.run.progress import exit_status, summary_table
from conformance.run.shard import Shard


def _load(paths: Sequence[str]) -> Suite:
    return load_paths(paths or [str(builtin.default_cases())])


def _select(args: argparse.Namespace, suite: Suite) -> list[Item]:
    return select(suite.cases, args.op or (), args.tag or (), args.keyword)


def cmd_validate(args: argparse.Namespace) -> int:
    suite = _load(args.paths)
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
    suite = _load(args.paths)
    items = _select(args, suite)
    if not args.totals:
        width = max((len(item.id) for item in items), default=0)
        for item in items:
            tags = ",".join(item.case.tags)
            print(f"{item.id:<{width}}  {tags:<24}  {item.case.location}")
        print()
    _print_totals("op", Counter(item.op for item in items), order=list(catalogue.OPS))
    _print_totals("tag", Counter(tag for item in items for tag in item.case.tags or ("(untagged)",)))
    _print_totals("form", Counter(item.case.form.kind for item in items))
    print(f"total: {len(items)} (case, op) pairs from {len({item.case.id for item in items})} cases")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    if args.resume:
        args = _restored(args)
    shard = None if args.shard is None else Shard.parse(args.shard)
    config = _run_config(
        args,
        tags=tuple(args.tag or ()),
        keyword=args.keyword,
        items=tuple(args.item or ()),
        repeat=args.repeat,
        resume=args.resume,
        label=args.label,
        junit=not args.no_junit,
        shard=shard,
        memory_budget_mib=args.memory_budget,
    )
    plan = planning.plan(config)
    if not plan.jobs and not plan.unsharded:
        raise UsageError(planning.nothing_selected(config, plan))
    targets = sorted({job.target.id for job in plan.jobs})
    previous = config.out / results_file.FILE_NAME
    if previous.exists() and not config.resume:
        print(
            f"note: this run replaces the results and report in {config.out}/ "
            "(give --out DIR to keep them beside it)",
            file=sys.stderr,
        )
    print(
        f"{len(plan.jobs)} jobs: {len(plan.suite.cases)} cases on {len(targets)} targets "
        f"({', '.join(targets)}), -j {config.jobs}"
        + (f"; shard {shard} of {plan.unsharded} jobs" if shard else ""),
        file=sys.stderr,
    )
    try:
        outcome = runner.execute(plan, config)
    except KeyboardInterrupt:
        publishing.run_report(
            config.out / results_file.FILE_NAME
        )  # of what finished; the journal keeps it too
        return 130
    page = publishing.run_report(outcome.written[0])
    print(summary_table(outcome.results))
    print(findings.terminal(outcome.findings))
    for issue in outcome.stale:
        print(
            f"warning: known issue {issue.id} ({issue.source}) matched no result; remove it if fixed",
            file=sys.stderr,
        )
    print(
        f"{len(outcome.results)} results in {outcome.wall_s:.1f} s; wrote "
        f"{', '.join(str(path) for path in [*outcome.written, *([page] if page else [])])}"
    )
    return exit_status(outcome.results)


def _run_config(args: argparse.Namespace, **overrides: Any) -> planning.RunConfig:
    """The options ``run`` and ``explore`` share, as a RunConfig; ``overrides`` set the others."""
    config = planning.RunConfig(
        case_paths=tuple(args.cases or [str(builtin.default_cases())]),
        adapters=tuple(args.adapter or ()),
        options=planning.parse_options(args.option or []),
        ops=tuple(args.op or ()),
        targets=tuple(args.target or ()),
        jobs=args.jobs,
        timeout=args.timeout,
        out=Path(args.out),
        known_issue_files=tuple(Path(path) for path in args.known_issues or ()),
        known_issues=not args.no_known_issues,
        command=args.command,
    )
    return replace(config, **overrides)


def cmd_explore(args: argparse.Namespace) -> int:
    if args.budget is None and args.max_examples is None:
        args.max_examples = session.DEFAULT_EXAMPLES
    config = session.ExploreConfig(
        run=_run_config(args, junit=False),
        seed=args.seed,
        budget_s=args.budget,
        max_examples=args.max_examples,
        limits=space.Limits(data_bytes=int(args.memory_budget * 1024 * 1024), pieces=args.max_pieces),
    )
    outcome = session.explore(config)
    page = publishing.run_report(config.run.out / results_file.FILE_NAME)
    cases: list[Path] = []
    if args.write and outcome.findings:
        cases, refused = writing.write(outcome.findings, outcome.in_corpus, Path(args.write), args.seed)
        for problem in refused:
            print(f"warning: {problem}", file=sys.stderr)
    print(explore_summary.terminal(outcome, cases))
    files = [*outcome.written, *cases, *([page] if page else [])]
    print(f"wrote {', '.join(str(path) for path in files)}")
    if outcome.interrupted:
        return 130
    return 1 if explore_summary.new_failures(outcome) else 0


def cmd_merge(args: argparse.Namespace) -> int:
    paths = [Path(path) for path in args.results]
    merged, written = merge.write(paths, Path(args.output), args.prefer_last, args.command)
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
    found = registry.installed()
    if not found:
        print("no adapters installed (entry-point group conformance.adapters)")
        return 0
    status = 0
    for name in sorted(found):
        try:
            loaded = registry.load(name)
        except ConformanceError as error:
            print(f"{name}: BROKEN: {error}")
            status = 1
            continue
        info = loaded.info
        print(f"{name}  {info.backend} {info.version}  ({found[name]})")
        print(f"  devices: {', '.join(info.devices)}")
        for key, value in sorted(info.options.items()):
            print(f"  option {key} = {value}")
        for route in info.routes:
            optional = (
                "" if route.default else f"  [not in the default run: --target '{name}/{route.name}/*']"
            )
            print(f"  route {route.name}: {', '.join(catalogue.match(route.ops))}{optional}")
            if route.description:
                print(f"    {route.description}")
    return status


def cmd_report(args: argparse.Namespace) -> int:
    paths = [Path(path) for path in args.results]
    out = report.write(paths, Path(args.output))
    size = out.stat().st_size
    print(f"wrote {out} ({size / 1024 / 1024:.1f} MiB) from {len(paths)} results file(s)")
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    if args.ratio <= 1 or args.floor_ms < 0 or args.min_runs < 1:
        raise UsageError("--ratio must be above 1, --floor-ms at least 0 and --min-runs at least 1")
    rule = run_diff.NoiseRule(ratio=args.ratio, floor_ms=args.floor_ms, min_runs=args.min_runs)
    found = run_diff.read(Path(args.old), Path(args.new), rule)
    print(run_diff.terminal(found))
    if args.html:
        print(f"wrote {diff_page.write(found, Path(args.html))}")
    return 1 if found.gate_fails else 0


def cmd_versions(args: argparse.Namespace) -> int:
    found = versions.read([Path(path) for path in args.results])
    print(versions.terminal(found, args.rows))
    if args.output:
        print(f"wrote {versions_page.write(found, Path(args.output))}")
    return 0


def cmd_certify(args: argparse.Namespace) -> int:
    if args.verify:  # without a corpus, the certificate is checked but its scope is not re-derived
        results = Path(args.results) if args.results else None
        found = builtin.find()
        corpus = tuple(args.cases or ([str(found)] if found else []))
        return certification.verify_verb(Path(args.verify), results, corpus)
    cases = tuple(args.cases or [str(builtin.default_cases())])
    if not (args.adapter and args.profile):
        raise UsageError("--adapter and --profile are required (or --verify CERTIFICATE)")
    request = certification.CertifyRequest(
        adapter=args.adapter,
        profile=args.profile,
        route=args.route,
        device=args.device,
        options=certification.options_for(args.adapter, args.option or []),
        case_paths=cases,
        out=Path(args.out) if args.out else None,
        jobs=args.jobs,
        timeout=args.timeout,
        command=args.command,
    )
    try:
        done = certification.certify(request)
    except KeyboardInterrupt:
        return 130
    pages = [certificate_page.write(done.certificate, done.out / CERTIFICATE_PAGE)]
    pages += [page] if (page := publishing.run_report(done.out / results_file.FILE_NAME)) else []
    return certification.print_verdict(replace(done, written=[*done.written, *pages]))


def _number(kind: type[int] | type[float], minimum: float, strict: bool = False) -> Callable[[str], float]:
    """An argparse type: a number of ``kind`` at least (or, ``strict``, above) ``minimum``."""

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a {kind.__name__}") from None
        if value < minimum or (strict and value == minimum):
            bound = f"above {minimum:g}" if strict else f"at least {minimum:g}"
            raise argparse.ArgumentTypeError(f"{text} must be {bound}")
        return value

    return parse


JOBS = _number(int, 1)
SECONDS = _number(float, 0, strict=True)
REPEATS = _number(int, 0)
MEBIBYTES = _number(int, 1)


def _print_totals(title: str, counts: Counter[str], order: Sequence[str] | None = None) -> None:
    keys = [key for key in order if key in counts] if order else sorted(counts, key=lambda k: (-counts[k], k))
    width = max((len(key) for key in keys), default=0)
    print(f"per {title}:")
    for key in keys:
        print(f"  {key:<{width}}  {counts[key]:>5}")


def _paths_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", help="case files or directories (default: cases/)"
    )


def _op_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--op", action="append", metavar="OP", help="op id or glob, e.g. 'onnx.*' (repeatable)"
    )


def _filter_arguments(parser: argparse.ArgumentParser) -> None:
    """The corpus filters beside --op: tags and a keyword expression."""
    parser.add_argument(
        "--tag", action="append", metavar="TAG", help="keep cases with this tag (repeatable: any)"
    )
    parser.add_argument(
        "-k",
        dest="keyword",
        metavar="EXPR",
        help="keep items matching a pytest-style expression over ids, tags, form and dtype",
    )


def _execution_arguments(parser: argparse.ArgumentParser, *, timeout: float, out: str) -> None:
    """What ``run`` and ``explore`` share: the corpus, the adapters and targets, the pool, the output."""
    parser.add_argument(
        "--cases", action="append", metavar="PATH", help="case file or directory (default: cases/)"
    )
    parser.add_argument(
        "--adapter",
        action="append",
        metavar="NAME",
        help="adapter entry-point name or module:Class (repeatable; default: every installed one)",
    )
    parser.add_argument(
        "--option",
        action="append",
        metavar="ADAPTER.KEY=VALUE",
        help="adapter option, e.g. openvino.device=CPU (repeatable)",
    )
    _op_argument(parser)
    parser.add_argument(
        "--target",
        action="append",
        metavar="GLOB",
        help="only targets matching, e.g. 'openvino/onnx/*' (adapter/route/device; repeatable)",
    )
    parser.add_argument(
        "-j", "--jobs", type=JOBS, default=1, metavar="N", help="parallel worker processes (default 1)"
    )
    parser.add_argument(
        "--timeout",
        type=SECONDS,
        default=timeout,
        metavar="S",
        help=f"per-item time limit in seconds (default {timeout:g})",
    )
    parser.add_argument("--out", default=out, metavar="DIR", help=f"where results go (default: {out}/)")
    parser.add_argument(
        "--known-issues",
        action="append",
        metavar="FILE",
        help="extra expected-failures file (repeatable), on top of the adapters' own",
    )
    parser.add_argument(
        "--no-known-issues",
        action="store_true",
        help="raw statuses: do not apply the adapters' shipped known issues (--known-issues files still are)",
    )


def _run_arguments(run: argparse.ArgumentParser) -> None:
    _execution_arguments(run, timeout=120.0, out="reports")
    _filter_arguments(run)
    run.add_argument("--item", action="append", metavar="CASE::OP", help="exactly this item (repeatable)")
    run.add_argument(
        "--repeat", type=REPEATS, default=3, metavar="N", help="steady-state runs after the first (default 3)"
    )
    run.add_argument(
        "--resume",
        action="store_true",
        help="finish the interrupted run in --out from its journal, with its options "
        "(any option given as well replaces that one, e.g. -j)",
    )
    run.add_argument("--no-junit", action="store_true", help="do not write junit.xml")
    run.add_argument(
        "--memory-budget",
        type=MEBIBYTES,
        metavar="MIB",
        help="memory one item may use (its data, 4 copies); items needing more are not attempted, and "
        "each worker's address space is capped at this plus 4 GiB (default: what the machine has available)",
    )
    run.add_argument(
        "--shard",
        metavar="I/N",
        help="run only shard I of N (1-based; items split by a stable hash); join with `conformance merge`",
    )
    run.add_argument(
        "--label",
        metavar="NAME",
        help="adapter name written in the results, e.g. openvino@2024.6.0 (one --adapter; for `versions`)",
    )


#: the value of an option not given on the command line (see :func:`_restored`)
_UNSET = object()


def _restored(args: argparse.Namespace) -> argparse.Namespace:
    """``run --resume``: the interrupted run's options, from the command its journal kept, with
    the options given now on top (``--resume -j 4`` finishes with more workers). A journal that
    kept no command (or one from another front door) resumes with the options given."""
    journaled = Journal.command(Path(args.out) / JOURNAL)
    if journaled is None or journaled[:2] != ["conformance", "run"]:
        return args
    parser = argparse.ArgumentParser(prog="conformance run", add_help=False)
    _run_arguments(parser)
    try:
        saved = parser.parse_args(journaled[2:])
    except SystemExit:
        raise UsageError(
            f"{Path(args.out) / JOURNAL}: its command cannot be read: {shlex.join(journaled)}"
        ) from None
    # given now: what differs from a stand-in default (None for the repeatable options, as
    # argparse appends to a default list, and for those whose default is None)
    stand_ins = {
        key: None if value is None or isinstance(value, list) else _UNSET
        for key, value in vars(saved).items()
    }
    parser.set_defaults(**stand_ins)
    now = vars(parser.parse_args(args.command[2:]))
    given = {key: value for key, value in now.items() if value is not _UNSET and value is not None}
    print(f"resuming: {shlex.join(journaled)}", file=sys.stderr)
    return argparse.Namespace(**{**vars(args), **vars(saved), **given})


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="conformance", description="Conformance suite for the Split family."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")

    validate = verbs.add_parser(
        "validate", help="check case files: format, ids, and expectations vs the reference"
    )
    _paths_argument(validate)
    validate.set_defaults(handler=cmd_validate)

    listing = verbs.add_parser(
        "list", help="list the applicable (case, op) pairs, with totals per op and tag"
    )
    _paths_argument(listing)
    _op_argument(listing)
    _filter_arguments(listing)
    listing.add_argument("--totals", action="store_true", help="print only the totals")
    listing.set_defaults(handler=cmd_list)

    run = verbs.add_parser("run", help="run the cases through the adapters and judge every result")
    _run_arguments(run)
    run.set_defaults(handler=cmd_run)

    exploring = verbs.add_parser(
        "explore",
        help="draw requests from each op's parameter space, judge them, shrink and write the findings",
        description="Exit status: 0 when every disagreement found is a known issue, 1 when one is not, "
        "2 for bad input, 130 when interrupted (what was found is written).",
    )
    _execution_arguments(exploring, timeout=30.0, out="reports/explore")
    exploring.add_argument(
        "--seed", type=REPEATS, default=0, metavar="N", help="the same seed draws the same requests"
    )
    exploring.add_argument(
        "--budget", type=SECONDS, metavar="SECONDS", help="time for the whole search, shared by the ops"
    )
    exploring.add_argument(
        "--max-examples",
        type=JOBS,
        metavar="N",
        help=f"requests drawn per op (default {session.DEFAULT_EXAMPLES}; without a bound under --budget)",
    )
    exploring.add_argument(
        "--write", metavar="DIR", help="write each finding's smallest request as a YAML case under DIR"
    )
    exploring.add_argument(
        "--memory-budget",
        type=SECONDS,
        default=space.Limits().data_bytes / 1024 / 1024,
        metavar="MIB",
        help="largest input data of one request, in MiB (default %(default)g)",
    )
    exploring.add_argument(
        "--max-pieces",
        type=JOBS,
        default=space.Limits().pieces,
        metavar="N",
        help="most output pieces one request may imply (default %(default)d)",
    )
    exploring.set_defaults(handler=cmd_explore)

    adapters = verbs.add_parser(
        "adapters", help="list installed adapters: versions, routes, devices, options"
    )
    adapters.set_defaults(handler=cmd_adapters)

    reporting = verbs.add_parser(
        "report", help="write the HTML report of one or more results files (merged into one view)"
    )
    reporting.add_argument("results", nargs="+", metavar="RESULTS", help="results.json files of one corpus")
    reporting.add_argument(
        "-o", "--output", default="reports/index.html", metavar="FILE", help="default: reports/index.html"
    )
    reporting.set_defaults(handler=cmd_report)

    diffing = verbs.add_parser(
        "diff", help="compare two runs: new failures, fixes, status changes, timing regressions"
    )
    diffing.add_argument("old", metavar="OLD", help="results.json of the earlier run")
    diffing.add_argument("new", metavar="NEW", help="results.json of the later run")
    diffing.add_argument("--html", metavar="FILE", help="also write the diff as an HTML page")
    diffing.add_argument(
        "--ratio", type=float, default=1.5, help="timing: new/old steady median above this (default 1.5)"
    )
    diffing.add_argument(
        "--floor-ms", type=float, default=0.1, help="timing: and slower by more than this (default 0.1 ms)"
    )
    diffing.add_argument(
        "--min-runs", type=int, default=3, help="timing: steady runs each result needs (default 3)"
    )
    diffing.set_defaults(handler=cmd_diff)

    merging = verbs.add_parser(
        "merge",
        help="join results files (shards, machines, devices) of one corpus into one results file and report",
        description="Exit status: 0 merged, 1 merged but incomplete (a shard missing, a run interrupted), "
        "2 refused (different suite digests, conflicting results or targets).",
    )
    merging.add_argument("results", nargs="+", metavar="RESULTS", help="results.json files of one corpus")
    merging.add_argument(
        "-o", "--output", required=True, metavar="OUT_DIR", help="writes results.json, junit.xml, index.html"
    )
    merging.add_argument(
        "--prefer-last",
        action="store_true",
        help="a result found in several files with different verdicts: take the last file's (a rerun)",
    )
    merging.set_defaults(handler=cmd_merge)

    versions_verb = verbs.add_parser(
        "versions",
        aliases=["compat"],  # its first name, kept for scripts; "compatibility" is the report's view
        help="compare runs of several versions of a backend: what each release introduced or fixed",
    )
    versions_verb.add_argument(
        "results", nargs="+", metavar="RESULTS", help="results.json files of one corpus (runs with --label)"
    )
    versions_verb.add_argument(
        "-o", "--output", metavar="FILE", help="also write the comparison as an HTML page"
    )
    versions_verb.add_argument(
        "--rows", type=int, default=versions.TERMINAL_ROWS, metavar="N", help="items printed per route"
    )
    versions_verb.set_defaults(handler=cmd_versions)

    certifying = verbs.add_parser(
        "certify", help="run a profile's required cases on one adapter and write its certificate"
    )
    certifying.add_argument("--adapter", metavar="NAME", help="adapter entry-point name or module:Class")
    certifying.add_argument(
        "--profile", metavar="ID|FILE", help="profile id (in cases/profiles/) or a profile file"
    )
    certifying.add_argument("--route", metavar="R", help="certify this route only (default: every route)")
    certifying.add_argument("--device", metavar="D", help="certify this device only (default: every one)")
    certifying.add_argument(
        "--option", action="append", metavar="ADAPTER.KEY=VALUE", help="adapter option (repeatable)"
    )
    certifying.add_argument(
        "--cases", action="append", metavar="PATH", help="case file or directory (default: cases/)"
    )
    certifying.add_argument("-j", "--jobs", type=JOBS, default=1, metavar="N", help="worker processes")
    certifying.add_argument(
        "--timeout", type=SECONDS, default=120.0, metavar="S", help="per-item time limit in seconds"
    )
    certifying.add_argument(
        "--out", metavar="DIR", help="results and certificate (default: reports/certify/ADAPTER-PROFILE)"
    )
    certifying.add_argument(
        "--verify", metavar="CERTIFICATE", help="check a certificate.json against its results instead"
    )
    certifying.add_argument(
        "--results", metavar="RESULTS", help="with --verify: the results.json (default: the one it names)"
    )
    certifying.set_defaults(handler=cmd_certify)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(given)
    #: the command as typed (recorded in results; ``run --resume`` restores a run's options from it)
    args.command = ("conformance", *given)
    try:
        return int(args.handler(args))
    except ConformanceError as error:  # the one place user-input errors become exit status 2
        print(f"conformance {args.verb}: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `conformance list | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
