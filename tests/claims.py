"""The check each adapter's known-issues test ends with: the shipped entries, applied to a run with
raw statuses, claim every failure and none of them is stale (every failure explained, no fixed bug
still listed)."""

from __future__ import annotations

from collections.abc import Sequence

from conformance.results.result import Result
from conformance.run import known_issues
from conformance.run.known_issues import KnownIssue
from conformance.statuses import GREEN


def assert_every_failure_claimed(results: Sequence[Result], issues: Sequence[KnownIssue]) -> None:
    judged = [known_issues.apply(result, issues) for result in results]
    unexplained = [f"{r.key}: {r.status}: {r.message}" for r in judged if r.status not in GREEN]
    assert not unexplained, "\n".join(unexplained[:20])
    assert not [issue.id for issue in known_issues.stale(issues, judged)]
