"""The command line's verbs, declared: their options come from the option table
(:mod:`conformance.options`), the results verbs' few own options are here. :mod:`conformance.cli`
gives each verb its handler.
"""

from __future__ import annotations

import argparse
from typing import Any, TypeAlias

from conformance import __version__, options
from conformance.errors import exit_epilog
from conformance.explore.limits import Limits

#: the verbs of the command line, as argparse holds them
Verbs: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def _verb(verbs: Verbs, name: str, **declared: Any) -> argparse.ArgumentParser:
    """A verb, whose ``--help`` ends on the table of its exit statuses."""
    return verbs.add_parser(
        name, epilog=exit_epilog(name), formatter_class=argparse.RawDescriptionHelpFormatter, **declared
    )


def _corpus_verbs(verbs: Verbs) -> None:
    """The verbs over the corpus alone: validate, list."""
    validate = _verb(
        verbs, "validate", help="check case files: format, ids, and expectations vs the reference"
    )
    options.add(validate, options.VALIDATE)

    listing = _verb(verbs, "list", help="list the applicable (case, op) pairs, with totals per op and tag")
    options.add(listing, options.LIST)
    listing.add_argument("--totals", action="store_true", help="print only the totals")


def _running_verbs(verbs: Verbs) -> None:
    """The verbs that run adapters: run, explore, adapters."""
    run = _verb(verbs, "run", help="run the cases through the adapters and judge every result")
    options.add(run, options.RUN)  # run --resume reads a journaled command with them again

    exploring = _verb(
        verbs,
        "explore",
        help="draw requests from each op's parameter space, judge them, shrink and write the findings",
    )
    limits = Limits()
    options.add(
        exploring,
        options.EXPLORE,
        timeout=30.0,
        out="reports/explore",
        max_data=limits.data_bytes / 1024 / 1024,
        max_pieces=limits.pieces,
    )

    _verb(verbs, "adapters", help="list installed adapters: versions, routes, devices, options")


def _results_verbs(verbs: Verbs) -> None:
    """The verbs over results files: report, diff, merge, versions, compat."""
    reporting = _verb(
        verbs, "report", help="write the HTML report of one or more results files (merged into one view)"
    )
    reporting.add_argument("results", nargs="+", metavar="RESULTS", help="results.json files of one corpus")
    reporting.add_argument(
        "-o",
        "--output",
        default="reports/index.html",
        metavar="FILE",
        help="default: reports/index.html (replaces only a page the suite wrote)",
    )

    diffing = _verb(
        verbs,
        "diff",
        help="compare two runs: new failures, fixes, status changes, timing regressions",
        description="Compares NEW with the baseline OLD, result by result (item on target). A new "
        "failure is a result that is fail, error, crash or timeout in NEW and none of those in OLD "
        "(or absent from OLD, with --allow-new-items). The comparison is not valid (exit 5) when a "
        "run was interrupted, when a result is in one file only (--allow-new-items accepts results "
        "only in NEW), or when one run applied known issues the other did not. The CI gate on new "
        "regressions: docs/results.md, section 'Gating CI on new regressions'.",
    )
    diffing.add_argument("old", metavar="OLD", help="results.json of the earlier run (the baseline)")
    diffing.add_argument("new", metavar="NEW", help="results.json of the later run")
    diffing.add_argument(
        "--allow-new-items",
        action="store_true",
        help="results only in NEW (cases added to the corpus) do not make the comparison invalid: "
        "they are judged as new results, and a failing one is a new failure; results only in OLD "
        "still do",
    )
    diffing.add_argument("--html", metavar="FILE", help="also write the diff as an HTML page")
    diffing.add_argument(
        "--ratio",
        type=options.RATIO,
        default=1.5,
        help="timing: new/old steady median above this (default 1.5)",
    )
    diffing.add_argument(
        "--floor-ms",
        type=options.MILLISECONDS,
        default=0.1,
        help="timing: and slower by more than this (default 0.1 ms)",
    )
    diffing.add_argument(
        "--min-runs",
        type=options.POSITIVE,
        default=3,
        help="timing: steady runs each result needs (default 3)",
    )
    _merge_verb(verbs)
    _versions_verb(verbs)
    _compat_verb(verbs)


def _merge_verb(verbs: Verbs) -> None:
    merging = _verb(
        verbs,
        "merge",
        help="join results files (shards, machines, devices) of one corpus into one results file and report",
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
    versions_verb = _verb(
        verbs,
        "versions",
        help="compare runs of several versions of a backend: what each release introduced or fixed",
    )
    versions_verb.add_argument(
        "results", nargs="+", metavar="RESULTS", help="results.json files of one corpus (runs with --label)"
    )
    versions_verb.add_argument(
        "-o", "--output", metavar="FILE", help="also write the comparison as an HTML page"
    )
    versions_verb.add_argument(
        "--rows",
        type=options.COUNT,
        metavar="N",
        help="items printed per route (default: what the summary chooses)",
    )


def _compat_verb(verbs: Verbs) -> None:
    about = (
        "write the compatibility page: Split's behaviours by framework, what each spec says and "
        "which backends depart"
    )
    compat = _verb(
        verbs, "compat", help=about, description=f"{about[0].upper()}{about[1:]} (docs/compat.md)."
    )
    compat.add_argument("results", nargs="+", metavar="RESULTS", help="results.json files of one corpus")
    compat.add_argument(
        "-o",
        "--output",
        action="append",
        required=True,
        metavar="FILE",
        help="page.html (self-contained) or page.md (GitHub Markdown); give -o twice for both",
    )
    compat.add_argument(
        "--report",
        metavar="LINK",
        help="the report each row links to, as a path or URL relative to the page (default: the "
        "index.html beside each results file, when there is one, for the results that came from it)",
    )


def _certify_verb(verbs: Verbs) -> None:
    certifying = _verb(
        verbs, "certify", help="run a profile's required cases on one adapter and write its certificate"
    )
    options.add(certifying, options.CERTIFY, shown={"out": "reports/certify/ADAPTER-PROFILE/"}, out=None)


def parser() -> tuple[argparse.ArgumentParser, Verbs]:
    """The command line without handlers, and its verbs (``conformance.cli`` gives the handlers)."""
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
