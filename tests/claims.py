"""What each adapter's known-issues test does: a run of real workers with raw statuses
(:func:`raw_run`), then the check it ends with: the shipped entries claim every failure and none of
them is stale (every failure explained, no fixed bug still listed)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from conformance.results.result import Result
from conformance.run.planning import RunConfig, plan
from conformance.run.runner import execute
from conformance.statuses import GREEN
from conformance.verdict import known_issues
from conformance.verdict.known_issues import KnownIssue


def assert_every_failure_claimed(results: Sequence[Result], issues: Sequence[KnownIssue]) -> None:
    judged = [known_issues.apply(result, issues) for result in results]
    unexplained = [f"{r.key}: {r.status}: {r.message}" for r in judged if r.status not in GREEN]
    assert not unexplained, "\n".join(unexplained[:20])
    assert not [issue.id for issue in known_issues.stale(issues, judged)]


CASES = Path(__file__).resolve().parent.parent / "cases"


def assert_claimed_by(result: Result, issues: Sequence[KnownIssue], issue: str) -> None:
    """``result``, judged with ``issues``, is an expected failure claimed by entry ``issue``."""
    claimed = known_issues.apply(result, issues)
    assert claimed.status == "xfail" and (claimed.known_issue or {}).get("id") == issue, claimed.message


def raw_run(
    out: Path,
    adapter: str,
    *,
    ops: Sequence[str] = (),
    targets: Sequence[str] = (),
    keyword: str | None = None,
    jobs: int = 2,
) -> list[Result]:
    """The corpus's items for ``adapter`` (narrowed by op and target globs and ``-k``) through real
    workers, once each, with raw statuses: no known issue applied, no JUnit file."""
    config = RunConfig(
        case_paths=(str(CASES),),
        adapters=(adapter,),
        ops=tuple(ops),
        targets=tuple(targets),
        keyword=keyword,
        repeat=0,
        jobs=jobs,
        out=out,
        junit=False,
        known_issues=False,
    )
    return list(execute(plan(config), config).results)
