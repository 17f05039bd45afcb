"""The command line's verbs and options, declared in groups that verbs share (the corpus
filters, what ``run`` and ``explore`` share, ``run``'s own), one function per group of verbs.

Only declarations: :mod:`conformance.cli` gives each verb its handler and does the work, and
``run --resume`` parses a journaled ``run`` command with :func:`run_arguments` again.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TypeAlias

from conformance import __version__
from conformance.explore import session, space
from conformance.results import versions


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
#: a budget of seconds, where 0 means "spend none"
BUDGET_SECONDS = _number(float, 0)
REPEATS = _number(int, 0)
MEBIBYTES = _number(int, 1)


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
        help=(
            "keep items matching an expression (words, and/or/not, parentheses), as pytest's -k keeps "
            "the same items: a word matches part of the item's name <case>::<op>[<target>], its case "
            "file's path, a tag, its form or its dtype, ignoring case"
        ),
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


def crash_budget_argument(parser: argparse.ArgumentParser) -> None:
    """``--crash-budget``: what the crash review (conformance.run.crash_review) may spend."""
    parser.add_argument(
        "--crash-budget",
        type=BUDGET_SECONDS,
        default=300.0,
        metavar="S",
        help="seconds the crash review may spend running each crashed or timed-out item again alone "
        "in a fresh worker and looking for the item that broke its worker (default 300; 0: none, every "
        "crash stays unconfirmed)",
    )


def run_arguments(run: argparse.ArgumentParser) -> None:
    _execution_arguments(run, timeout=120.0, out="reports")
    _filter_arguments(run)
    run.add_argument("--item", action="append", metavar="CASE::OP", help="exactly this item (repeatable)")
    run.add_argument(
        "--repeat", type=REPEATS, default=3, metavar="N", help="steady-state runs after the first (default 3)"
    )
    run.add_argument(
        "--resume",
        nargs="?",
        const="",
        metavar="DIR|JOURNAL",
        help="finish the interrupted run in --out (or in DIR, or of a journal a new run set aside) from "
        "its journal, with its options (any option given as well replaces that one, e.g. -j)",
    )
    run.add_argument("--no-junit", action="store_true", help="do not write junit.xml")
    crash_budget_argument(run)
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


#: the verbs of the command line, as argparse holds them
Verbs: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def _corpus_verbs(verbs: Verbs) -> None:
    """The verbs over the corpus alone: validate, list."""
    validate = verbs.add_parser(
        "validate", help="check case files: format, ids, and expectations vs the reference"
    )
    _paths_argument(validate)

    listing = verbs.add_parser(
        "list", help="list the applicable (case, op) pairs, with totals per op and tag"
    )
    _paths_argument(listing)
    _op_argument(listing)
    _filter_arguments(listing)
    listing.add_argument("--totals", action="store_true", help="print only the totals")


def _running_verbs(verbs: Verbs) -> None:
    """The verbs that run adapters: run, explore, adapters."""
    run = verbs.add_parser(
        "run",
        help="run the cases through the adapters and judge every result",
        description="Exit status: 0 when every result is pass, xfail or unsupported, 1 otherwise, "
        "2 for bad input, 130 when interrupted (what finished is written; it prints how to finish).",
    )
    run_arguments(run)

    exploring = verbs.add_parser(
        "explore",
        help="draw requests from each op's parameter space, judge them, shrink and write the findings",
        description="Exit status: 0 when every disagreement found is a known issue, 1 when one is not, "
        "2 for bad input, 130 when interrupted (what was found is written).",
    )
    _execution_arguments(exploring, timeout=30.0, out="reports/explore")
    _explore_arguments(exploring)

    verbs.add_parser("adapters", help="list installed adapters: versions, routes, devices, options")


def _explore_arguments(exploring: argparse.ArgumentParser) -> None:
    """The search's own options, beside those it shares with ``run``."""
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


def _results_verbs(verbs: Verbs) -> None:
    """The verbs over results files: report, diff, merge, versions."""
    reporting = verbs.add_parser(
        "report", help="write the HTML report of one or more results files (merged into one view)"
    )
    reporting.add_argument("results", nargs="+", metavar="RESULTS", help="results.json files of one corpus")
    reporting.add_argument(
        "-o",
        "--output",
        default="reports/index.html",
        metavar="FILE",
        help="default: reports/index.html (replaces only a page the suite wrote)",
    )

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
    _merge_verb(verbs)
    _versions_verb(verbs)


def _merge_verb(verbs: Verbs) -> None:
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


def _versions_verb(verbs: Verbs) -> None:
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


def _certify_verb(verbs: Verbs) -> None:
    certifying = verbs.add_parser(
        "certify",
        help="run a profile's required cases on one adapter and write its certificate",
        description="Exit status: 0 certified (or verified), 1 not, 2 for bad input, 130 when "
        "interrupted (the results so far are written, no certificate; it prints how to finish).",
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
    crash_budget_argument(certifying)
    certifying.add_argument(
        "--out", metavar="DIR", help="results and certificate (default: reports/certify/ADAPTER-PROFILE)"
    )
    certifying.add_argument(
        "--resume",
        action="store_true",
        help="finish the interrupted certification in --out from its journal (give the same options)",
    )
    certifying.add_argument(
        "--verify", metavar="CERTIFICATE", help="check a certificate.json against its results instead"
    )
    certifying.add_argument(
        "--results", metavar="RESULTS", help="with --verify: the results.json (default: the one it names)"
    )


def parser() -> tuple[argparse.ArgumentParser, Verbs]:
    """The command line without handlers, and its verbs (``conformance.cli`` gives each its
    handler)."""
    parser = argparse.ArgumentParser(
        prog="conformance", description="Conformance suite for the Split family."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    _corpus_verbs(verbs)
    _running_verbs(verbs)
    _results_verbs(verbs)
    _certify_verb(verbs)
    return parser, verbs
