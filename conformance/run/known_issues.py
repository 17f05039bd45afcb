"""Expected failures: plain data each adapter's owner keeps, next to the adapter.

Each adapter package may ship ``known_issues.yaml``; ``--known-issues FILE`` adds more. An entry
turns a matching non-green result into ``xfail`` (and a matching pass into ``xpass``), keeping
the reason and the link in the result so the report shows both. Entries that match nothing are
reported as stale, so the list does not rot when a backend fixes a bug.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import yaml

from conformance.errors import KnownIssuesError
from conformance.results.records import KnownIssueRecord
from conformance.results.result import Result
from conformance.statuses import KNOWN_ISSUE_DEFAULT, PASSING, STATUSES, Status

FILE_NAME = "known_issues.yaml"
_KEYS = {"id", "items", "targets", "statuses", "reason", "link"}


@dataclass(frozen=True)
class KnownIssue:
    id: str
    items: tuple[str, ...]
    targets: tuple[str, ...]
    statuses: tuple[Status, ...]
    reason: str
    link: str
    source: str  # file it came from

    def matches(self, result: Result) -> bool:
        return any(fnmatch.fnmatchcase(result.item_id, pattern) for pattern in self.items) and any(
            fnmatch.fnmatchcase(result.target_id, pattern) for pattern in self.targets
        )

    def to_json(self) -> KnownIssueRecord:
        return {"id": self.id, "reason": self.reason, "link": self.link, "source": self.source}


def parse(text: str, source: str, adapter: str) -> list[KnownIssue]:
    """Entries of one file; ``adapter`` scopes the default target glob to that adapter."""
    try:
        body = yaml.safe_load(text) or {}
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise KnownIssuesError(f"{where}: not valid YAML: {problem}") from None
    entries = body.get("known_issues", []) if isinstance(body, dict) else None
    if not isinstance(entries, list):
        raise KnownIssuesError(f"{source}: expected a mapping with a 'known_issues' list")
    issues = []
    for number, entry in enumerate(entries):
        where = f"{source}: entry {number} ({entry.get('id', '?') if isinstance(entry, dict) else '?'})"
        if not isinstance(entry, dict):
            raise KnownIssuesError(f"{where}: must be a mapping")
        unknown = set(entry) - _KEYS
        missing = {"id", "items", "reason", "link"} - set(entry)
        if unknown or missing:
            raise KnownIssuesError(f"{where}: unknown keys {sorted(unknown)}, missing {sorted(missing)}")
        statuses = _statuses(entry.get("statuses", list(KNOWN_ISSUE_DEFAULT)), where)
        issues.append(
            KnownIssue(
                id=str(entry["id"]),
                items=tuple(_strings(entry["items"], where)),
                targets=tuple(_strings(entry.get("targets", [f"{adapter}/*"]), where)),
                statuses=statuses,
                reason=str(entry["reason"]).strip(),
                link=str(entry["link"]).strip(),
                source=source,
            )
        )
    return issues


def _strings(value: object, where: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    raise KnownIssuesError(f"{where}: items and targets are glob strings or lists of them")


def _statuses(value: object, where: str) -> tuple[Status, ...]:
    """The statuses an entry covers: a status or a list of them, none of them a pass."""
    listed = [value] if isinstance(value, str) else value
    allowed = [status for status in STATUSES if status not in PASSING and status != "xfail"]
    if not isinstance(listed, list) or not listed or any(status not in allowed for status in listed):
        raise KnownIssuesError(
            f"{where}: statuses must be one or more of {', '.join(allowed)} (got {value!r})"
        )
    return tuple(status for status in STATUSES if status in listed)


def shipped(adapter: str, import_path: str) -> list[KnownIssue]:
    """The file an adapter package ships beside its module, if any."""
    package = import_path.partition(":")[0].split(".")[0]
    try:
        path = resources.files(package) / FILE_NAME
        if not path.is_file():
            return []
        return parse(path.read_text(encoding="utf-8"), f"{package}/{FILE_NAME}", adapter)
    except (ModuleNotFoundError, TypeError):  # not installed, or a plain module rather than a package
        return []


def from_file(path: Path, adapter: str = "*") -> list[KnownIssue]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise KnownIssuesError(
            f"{path}: cannot read a known-issues file: {error.strerror or error}"
        ) from None
    except UnicodeDecodeError as error:
        raise KnownIssuesError(f"{path}: not UTF-8 text ({error.reason})") from None
    return parse(text, str(path), adapter)


def apply(result: Result, issues: Sequence[KnownIssue]) -> Result:
    """The result with its known issue applied: xfail, xpass, or unchanged."""
    for issue in issues:
        if not issue.matches(result):
            continue
        if result.status == "pass":
            return result.with_status(
                "xpass", f"passes, but listed as known issue {issue.id}: {issue.reason}", issue.to_json()
            )
        if result.status in issue.statuses:
            return result.with_status("xfail", f"known issue {issue.id}: {result.message}", issue.to_json())
    return result


def stale(issues: Iterable[KnownIssue], results: Iterable[Result]) -> list[KnownIssue]:
    """Entries that matched no result at all."""
    results = list(results)
    return [issue for issue in issues if not any(issue.matches(result) for result in results)]
