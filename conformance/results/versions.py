"""Backend releases side by side: which release introduced or fixed each disagreement.

A compatibility matrix runs one corpus against several versions of a backend, each run relabelled
(``--label openvino@2024.6.0``) so that their targets do not collide. Per series (backend, route,
device), neighbouring versions that ran an item compare in release order (:func:`steps`; the
verdicts are in docs/running.md).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from conformance import ids
from conformance.corpus.catalogue import op_order
from conformance.results.combined import CombinedResults, CombinedTarget, combine
from conformance.results.document import read_documents
from conformance.results.records import ResultRecord
from conformance.statuses import DEVIATING, PASSING, STATUSES

#: Rows printed per series by :func:`terminal` (the HTML lists them all).
TERMINAL_ROWS = 25
Kind = Literal["introduced", "fixed", "changed"]


@dataclass(frozen=True)
class Step:
    """One change of an item's status between two neighbouring versions that ran it."""

    kind: Kind
    version: str  # the version the new status first appears in
    before: str
    after: str

    def __str__(self) -> str:
        return f"{self.kind} in {self.version}"


@dataclass(frozen=True)
class Row:
    """One item (case::op) whose status is not the same under every version."""

    item: str
    op: str
    statuses: tuple[str | None, ...]  # per version of the series, None where it did not run
    messages: tuple[str, ...]
    steps: tuple[Step, ...]

    @property
    def kind(self) -> Kind:
        """introduced / fixed when every step is one, else changed."""
        kinds = {step.kind for step in self.steps}
        return kinds.pop() if len(kinds) == 1 else "changed"

    @property
    def verdict(self) -> str:
        return ", ".join(str(step) for step in self.steps)


@dataclass(frozen=True)
class Series:
    """One backend's route on one device across its versions, oldest first."""

    backend: str
    route: str
    device: str
    versions: tuple[str, ...]
    labels: tuple[str, ...]  # the adapter name each version's results carry
    totals: tuple[Counter[str], ...]  # status counts per version
    rows: tuple[Row, ...] = field(default=())

    @property
    def name(self) -> str:
        """``backend/route/device``: a target id with the backend in the adapter's place."""
        return f"{self.backend}/{self.route}/{self.device}"

    def steps_per_version(self) -> dict[str, Counter[str]]:
        """For each version: how many items it introduced, fixed or changed."""
        counts: dict[str, Counter[str]] = {version: Counter() for version in self.versions}
        for row in self.rows:
            for step in row.steps:
                counts[step.version][step.kind] += 1
        return counts


def version_key(version: str) -> tuple[tuple[int, int | str], ...]:
    """Release order: numeric parts compare as numbers (2024.10 after 2024.6), others as text."""
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"[.+\-_]", version))


def steps(versions: Sequence[str], statuses: Sequence[str | None]) -> tuple[Step, ...]:
    """The changes of status along ``versions`` (oldest first); versions without a status are skipped."""
    found: list[Step] = []
    previous: str | None = None
    for version, status in zip(versions, statuses, strict=True):
        if status is None:
            continue
        if previous is not None and status != previous:
            kind: Kind = "changed"
            if previous in PASSING and status in DEVIATING:
                kind = "introduced"
            elif previous in DEVIATING and status in PASSING:
                kind = "fixed"
            found.append(Step(kind, version, previous, status))
        previous = status
    return tuple(found)


def compare(combined: CombinedResults) -> list[Series]:
    """Every (backend, route, device) that ran under two or more versions, with its changed items."""
    entries: dict[str, CombinedTarget] = {target["id"]: target for target in combined.targets}
    # (backend, route, device) -> version -> item -> result
    grouped: dict[tuple[str, str, str], dict[str, dict[str, ResultRecord]]] = defaultdict(
        lambda: defaultdict(dict)
    )
    labels: dict[tuple[str, str, str], dict[str, str]] = defaultdict(dict)
    for result in combined.results:
        entry = entries.get(ids.record_target(result))
        backend = entry.get("backend", result["adapter"]) if entry else result["adapter"]
        version = entry.get("version", "?") if entry else "?"
        key = (backend, str(result["route"]), str(result["device"]))
        grouped[key][version][ids.record_item(result)] = result
        labels[key][version] = str(result["adapter"])
    found = []
    for key in sorted(grouped):
        by_version = grouped[key]
        if len(by_version) < 2:
            continue
        versions = tuple(sorted(by_version, key=version_key))
        items = sorted(
            {item for results in by_version.values() for item in results},
            key=lambda item: (op_order(ids.split_item_id(item)[1]), item),
        )
        rows = []
        for item in items:
            picked = [by_version[version].get(item) for version in versions]
            statuses = tuple(None if r is None else str(r["status"]) for r in picked)
            if len({status for status in statuses if status is not None}) < 2:
                continue
            messages = tuple("" if r is None else str(r.get("message") or "") for r in picked)
            rows.append(Row(item, ids.split_item_id(item)[1], statuses, messages, steps(versions, statuses)))
        totals = tuple(Counter(str(r["status"]) for r in by_version[v].values()) for v in versions)
        found.append(Series(*key, versions, tuple(labels[key][v] for v in versions), totals, tuple(rows)))
    return found


def _summary_lines(series: Series) -> list[str]:
    """Changes grouped by (op, verdict): the short answer to "what did each release change"."""
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for row in series.rows:
        groups[(row.op, row.verdict)].append(ids.split_item_id(row.item)[0])
    lines = []
    for (op, verdict), cases in sorted(groups.items(), key=lambda kv: (op_order(kv[0][0]), kv[0][1])):
        shown = ", ".join(cases[:3]) + (f", … (+{len(cases) - 3})" if len(cases) > 3 else "")
        lines.append(f"    {op:<26} {verdict:<40} {len(cases):>4}  {shown}")
    return lines


def terminal(found: Sequence[Series], rows: int | None = None) -> str:
    """A plain-text summary: per series the totals per version, then ``rows`` changes by op."""
    rows = TERMINAL_ROWS if rows is None else rows
    if not found:
        return "no backend ran under two or more versions (run each version with --label ADAPTER@VERSION)"
    out: list[str] = []
    for series in found:
        out.append(f"{series.name}: {len(series.versions)} versions, {len(series.rows)} items change")
        shown = [s for s in STATUSES if any(t[s] for t in series.totals)]
        out.append("  " + f"{'version':<14}" + "".join(f"{s:>12}" for s in shown) + "  changes")
        per_version = series.steps_per_version()
        for version, totals in zip(series.versions, series.totals, strict=True):
            changes = ", ".join(f"{kind} {n}" for kind, n in sorted(per_version[version].items())) or "-"
            out.append("  " + f"{version:<14}" + "".join(f"{totals[s]:>12}" for s in shown) + f"  {changes}")
        if series.rows:
            out.append("  changes by op (op, verdict, items, first cases):")
            out.extend(_summary_lines(series))
        if series.rows and rows > 0:
            out.append(f"  first {min(rows, len(series.rows))} of {len(series.rows)} items:")
            for row in series.rows[:rows]:
                statuses = " ".join(f"{status or '-':<11}" for status in row.statuses)
                out.append(f"    {row.item:<60} {statuses} {row.verdict}")
        out.append("")
    return "\n".join(out).rstrip()


def has_versions(combined: CombinedResults) -> bool:
    """True when some backend's results come from two or more versions (the tab is worth showing)."""
    seen: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for target in combined.targets:
        key = (str(target.get("backend")), str(target.get("route")), str(target.get("device")))
        seen[key].add(str(target.get("version")))
    return any(len(versions) > 1 for versions in seen.values())


def read(paths: Sequence[Path]) -> list[Series]:
    """The series of several results files (one suite digest); ResultsFileError names a bad file."""
    return compare(combine(read_documents(paths), [str(path) for path in paths]))
