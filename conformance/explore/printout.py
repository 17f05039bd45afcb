"""What ``conformance explore`` prints at the end: each finding, new or known, with its smallest
request and where it went."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from conformance.explore import generated
from conformance.explore.search import ShrunkDisagreement
from conformance.explore.session import ExploreOutcome
from conformance.statuses import FAILING


def standing(outcome: ExploreOutcome, index: int) -> str:
    """``new``, ``known issue <id>``, and ``in the corpus as <case>`` where it is."""
    finding = outcome.findings[index]
    known = finding.result.known_issue
    said = f"known issue {known['id']}" if known else "new"
    corpus = outcome.in_corpus.get(index)
    return f"{said}; in the corpus as {corpus}" if corpus else said


def new_failures(outcome: ExploreOutcome) -> list[ShrunkDisagreement]:
    """Findings no known issue covers: what makes the exploration exit 1."""
    return [finding for finding in outcome.findings if finding.result.status in FAILING]


def terminal(outcome: ExploreOutcome, written: Sequence[Path] = ()) -> str:
    """The findings, two lines each, after a line of totals."""
    fresh = sum(1 for i in range(len(outcome.findings)) if i not in outcome.in_corpus)
    lines = [
        f"explored {outcome.requests} requests ({len(outcome.results)} results) in {outcome.wall_s:.0f} s"
        + (" (interrupted)" if outcome.interrupted else ""),
        f"findings: {len(outcome.findings)} distinct ({len(new_failures(outcome))} not covered by a "
        f"known issue, {fresh} not in the corpus)",
    ]
    for index, finding in enumerate(outcome.findings):
        target, _family, status, kind, message, _ = finding.signature
        shrunk = f"shrunk in {finding.steps} steps" if finding.shrunk else "not fully shrunk"
        lines.append(f"  {status:<7} {target:<28} {finding.op:<24} {kind}: {message[:60]}")
        lines.append(f"          {generated.title(finding.document)}  [{standing(outcome, index)}; {shrunk}]")
    if written:
        lines.append(f"cases written for review: {', '.join(str(path) for path in written)}")
    return "\n".join(lines)
