"""Run-to-run diff: new failures, fixes, other status changes, and timing regressions beyond noise.

CI gates on it (``conformance diff OLD NEW`` exits 1 on a new failure, 4 when the runs do not
compare at all: :mod:`conformance.results.comparable`), so its categories are defined here once, in
:func:`_classify` (docs/results.md lists them). A crash in NEW that did not reproduce alone is listed
apart whatever its status, so a pass after a death is never read as a plain pass; timing is noisy,
so a regression must clear the three bars of :class:`NoiseRule`.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path

from conformance.errors import Exit, UsageError
from conformance.results import comparable
from conformance.results import document as results_file
from conformance.results.records import RunInfoRecord, SuiteRecord
from conformance.results.result import Result, Timing
from conformance.statuses import DEVIATING, FAILING, PASSING


@dataclass(frozen=True)
class NoiseRule:
    """When a slower steady-state time is a regression rather than noise (:meth:`describe`): a
    ratio against relative noise, a floor against sub-millisecond jitter, and no overlap of the
    runs' times, so that one outlier cannot decide."""

    ratio: float = 1.5
    floor_ms: float = 0.1
    min_runs: int = 3

    def __post_init__(self) -> None:
        if self.ratio <= 1 or self.floor_ms < 0 or self.min_runs < 1:
            raise UsageError("--ratio must be above 1, --floor-ms at least 0 and --min-runs at least 1")

    def describe(self) -> str:
        return (
            f"a timing regression is counted when both runs have >= {self.min_runs} steady-state runs, "
            f"the new median is more than {self.ratio:g} x the old one AND more than {self.floor_ms:g} ms "
            "slower, AND the new run's fastest repeat is slower than the old run's slowest "
            "(improvements: the same rule the other way round)"
        )

    def slower(self, old: Timing, new: Timing) -> bool:
        """True when ``new`` is slower than ``old`` beyond noise."""
        if len(old.steady_ms) < self.min_runs or len(new.steady_ms) < self.min_runs:
            return False
        before, after = statistics.median(old.steady_ms), statistics.median(new.steady_ms)
        return (
            after > self.ratio * before
            and after - before > self.floor_ms
            and min(new.steady_ms) > max(old.steady_ms)
        )


@dataclass(frozen=True)
class Change:
    """One result that differs between the runs (``old`` or ``new`` is None when it is in one only)."""

    key: str
    old: Result | None
    new: Result | None

    @property
    def old_status(self) -> str:
        return self.old.status if self.old else "absent"

    @property
    def new_status(self) -> str:
        return self.new.status if self.new else "absent"


@dataclass(frozen=True)
class TimingChange:
    key: str
    old: Timing
    new: Timing

    @property
    def old_ms(self) -> float:
        return float(statistics.median(self.old.steady_ms))

    @property
    def new_ms(self) -> float:
        return float(statistics.median(self.new.steady_ms))

    @property
    def ratio(self) -> float:
        return self.new_ms / self.old_ms if self.old_ms else float("inf")


@dataclass(frozen=True)
class Compared:
    """One of the two runs a diff compares, as it is named: its label and the suite it ran."""

    label: str
    suite: SuiteRecord | None


@dataclass
class Diff:
    """Everything that differs between two runs (filled in by :func:`compare`)."""

    old: Compared
    new: Compared
    rule: NoiseRule
    new_failures: list[Change] = field(default_factory=list)
    fixes: list[Change] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    added: list[Result] = field(default_factory=list)
    removed: list[Result] = field(default_factory=list)
    regressions: list[TimingChange] = field(default_factory=list)
    improvements: list[TimingChange] = field(default_factory=list)
    #: results of NEW whose worker died once on them, but not when they ran alone
    died_once: list[Result] = field(default_factory=list)
    compared: int = 0
    #: why the runs do not compare (conformance.results.comparable); empty when they do
    problems: list[str] = field(default_factory=list)
    #: differences that do not stop the comparison (new items allowed, selections recorded apart)
    notes: list[str] = field(default_factory=list)

    @property
    def same_suite(self) -> bool:
        old, new = self.old.suite, self.new.suite
        return old is None or new is None or old["digest"] == new["digest"]

    @property
    def gate_fails(self) -> bool:
        """True when NEW brings a failure: what CI gates on."""
        return bool(self.new_failures)

    @property
    def exit_status(self) -> int:
        """``conformance diff``'s status: NOT_COMPARABLE when the runs do not compare, 1 on a new failure."""
        if self.problems:
            return Exit.NOT_COMPARABLE
        return 1 if self.gate_fails else 0

    def verdict(self) -> str:
        """The last line of the terminal output, and the page's verdict."""
        if self.problems:
            return f"NOT VALID: the runs do not compare ({len(self.problems)} reason(s)); no verdict"
        if self.gate_fails:
            return f"FAILED: {len(self.new_failures)} new failure(s)"
        return "OK: no new failures"


def compare(
    old: list[Result],
    new: list[Result],
    rule: NoiseRule | None = None,
    old_label: str = "old",
    new_label: str = "new",
    old_suite: SuiteRecord | None = None,
    new_suite: SuiteRecord | None = None,
    old_run: RunInfoRecord | None = None,
    new_run: RunInfoRecord | None = None,
    allow_new_items: bool = False,
) -> Diff:
    """Every difference between two runs' results, matched by key, and whether they compare at all."""
    diff = Diff(Compared(old_label, old_suite), Compared(new_label, new_suite), rule or NoiseRule())
    before = {result.key: result for result in old}
    after = {result.key: result for result in new}
    diff.problems, diff.notes = comparable.problems(
        comparable.Side(f"OLD ({old_label})", old_run, before),
        comparable.Side(f"NEW ({new_label})", new_run, after),
        allow_new_items,
    )
    for key, result in after.items():
        previous = before.get(key)
        if previous is None:
            diff.added.append(result)
            if result.status in FAILING:
                diff.new_failures.append(Change(key, None, result))
            continue
        _classify(diff, key, previous, result)
    diff.removed.extend(result for key, result in before.items() if key not in after)
    diff.died_once.extend(r for r in new if r.crash is not None and r.crash["outcome"] == "not reproduced")
    return diff


def _classify(diff: Diff, key: str, old: Result, new: Result) -> None:
    diff.compared += 1
    if old.status != new.status:
        change = Change(key, old, new)
        if new.status in FAILING and old.status not in FAILING:
            diff.new_failures.append(change)
        elif old.status in DEVIATING and new.status in PASSING:  # a departure, known or not, now fixed
            diff.fixes.append(change)
        else:
            diff.changes.append(change)
    if diff.rule.slower(old.timing, new.timing):
        diff.regressions.append(TimingChange(key, old.timing, new.timing))
    elif diff.rule.slower(new.timing, old.timing):
        diff.improvements.append(TimingChange(key, old.timing, new.timing))


def read(
    old_path: Path, new_path: Path, rule: NoiseRule | None = None, allow_new_items: bool = False
) -> Diff:
    """Compare two results files; UsageError when they share no result (CI must not read it as green)."""
    old_body, old_results = results_file.read(old_path)
    new_body, new_results = results_file.read(new_path)
    found = compare(
        old_results,
        new_results,
        rule,
        str(old_path),
        str(new_path),
        old_body["suite"],
        new_body["suite"],
        old_body["run"],
        new_body["run"],
        allow_new_items,
    )
    if not found.compared:
        raise UsageError(
            f"{old_path} and {new_path} share no result (no item on the same target in both): "
            "nothing to compare; diff two runs of the same targets"
        )
    return found


def digest(suite: SuiteRecord | None) -> str:
    return suite["digest"] if suite else "?"


def _line(change: Change) -> str:
    shown = change.new or change.old
    message = (shown.message if shown else "").replace("\n", " ")
    if len(message) > 160:
        message = message[:157] + "..."
    return f"  {change.old_status:>11} -> {change.new_status:<11} {change.key}\n{'':17}{message}"


def _timed(change: TimingChange) -> str:
    return f"  {change.old_ms:10.4g} ms -> {change.new_ms:10.4g} ms  x{change.ratio:<6.2f} {change.key}"


def terminal(diff: Diff, limit: int = 50) -> str:
    """The diff as text for a terminal or a CI log; every list capped at ``limit`` lines."""
    lines = [
        f"conformance diff: {diff.old.label} -> {diff.new.label}: {diff.compared} results in both, "
        f"{len(diff.added)} only in new, {len(diff.removed)} only in old"
    ]
    if not diff.same_suite:
        lines.append(
            f"note: the case corpora differ ({digest(diff.old.suite)} -> "
            f"{digest(diff.new.suite)}); results of changed cases may not compare"
        )
    lines.extend(f"note: {note}" for note in diff.notes)

    def block(title: str, entries: list[str]) -> None:
        lines.append(f"{title}: {len(entries)}")
        lines.extend(entries[:limit])
        if len(entries) > limit:
            lines.append(f"  ... and {len(entries) - limit} more (write them all with --html FILE)")

    block("new failures", [_line(change) for change in diff.new_failures])
    block("fixes", [_line(change) for change in diff.fixes])
    block("other status changes", [_line(change) for change in diff.changes])
    block(
        "crashes in new that did not reproduce alone (the rerun's verdict counts)",
        [
            f"  {r.status:>11} {r.key}: died once ({r.crash['exit'] if r.crash else '?'})"
            for r in diff.died_once
        ],
    )
    lines.append(f"timing rule: {diff.rule.describe()}")
    block("timing regressions", [_timed(change) for change in diff.regressions])
    block("timing improvements", [_timed(change) for change in diff.improvements])
    if diff.problems:
        lines.append(f"the comparison is not valid: {len(diff.problems)} reason(s)")
        lines.extend(f"  - {problem}" for problem in diff.problems)
    lines.append(diff.verdict())
    return "\n".join(lines)
