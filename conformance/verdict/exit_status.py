"""How a run ends: the counts table, the GREEN or RED line and the exit status.

This is the verdict on a whole run, kept out of the engine, which reports results without
knowing what they mean: a run is green only when every selected item was judged and nothing
unexplained, stale or defective was found.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from conformance.results.result import Result
from conformance.statuses import DEFECT_EXIT, FAILING, GREEN, NOT_JUDGED, STATUSES


def summary_table(results: Iterable[Result]) -> str:
    """Counts per target and status, with the time spent in the backend."""
    per_target: dict[str, Counter[str]] = defaultdict(Counter)
    backend_s: dict[str, float] = defaultdict(float)
    for result in results:
        per_target[result.target_id][result.status] += 1
        backend_s[result.target_id] += result.timing.backend_ms / 1000
    columns = [status for status in STATUSES if any(counts[status] for counts in per_target.values())]
    width = max([len("target"), *map(len, per_target)])
    header = (
        f"{'target':<{width}}  " + "  ".join(f"{c:>7}" for c in columns) + f"  {'total':>6}  {'backend s':>9}"
    )
    lines = [header, "-" * len(header)]
    for target in sorted(per_target):
        counts = per_target[target]
        cells = "  ".join(f"{counts[c]:>7}" for c in columns)
        lines.append(f"{target:<{width}}  {cells}  {sum(counts.values()):>6}  {backend_s[target]:>9.1f}")
    return "\n".join(lines)


def nothing_judged(results: Iterable[Result]) -> str | None:
    """Why a run judged nothing, when every result is unsupported (a target that can express none
    of the items selected): the commonest reasons. None when anything was judged."""
    kept = list(results)
    if not kept or any(result.status not in NOT_JUDGED for result in kept):
        return None
    reasons = Counter(result.message.split("\n", 1)[0][:160] for result in kept).most_common(3)
    listed = "; ".join(f"{count} x {reason}" for reason, count in reasons)
    return f"nothing was judged: all {len(kept)} results are unsupported ({listed})"


def exit_status(results: Iterable[Result]) -> int:
    """A run's exit status: DEFECT_EXIT when the adapter or the suite failed on any item (the run
    is then no verdict on the backend), 1 when not green or when nothing was judged at all (a run
    of unsupported results proves nothing, and must not read as a pass), else 0."""
    kept = list(results)
    if any(result.defect is not None for result in kept):
        return DEFECT_EXIT
    return 0 if all(r.status in GREEN for r in kept) and nothing_judged(kept) is None else 1


def verdict(results: Iterable[Result], selected: int, interrupted: bool) -> str:
    """The one line a run ends on: GREEN only when the whole selection of ``selected`` items was
    judged and exits 0; else RED, with what made it so. The counts follow either way, so a CI
    log says at a glance what a vendor run and a green one share and where they part."""
    kept = list(results)
    counts = Counter(
        "defect" if result.defect else "stale" if result.status == "xpass" else result.status
        for result in kept
    )
    unexplained = sum(counts[status] for status in FAILING)
    missing = max(0, selected - len(kept))
    parts = [
        f"{unexplained} unexplained findings",
        f"{counts['xfail']} known issues",
        f"{counts['defect']} adapter or harness defects",
        f"{counts['unsupported'] + missing} results not judged"
        + (f" ({missing} not run)" if missing else ""),
    ]
    if counts["stale"]:
        parts.append(f"{counts['stale']} known issues that passed (xpass)")
    green_ = not interrupted and not missing and exit_status(kept) == 0
    why = "" if green_ else _why_red(kept, interrupted, missing, selected)
    return f"{'GREEN' if green_ else 'RED'}{why}: {len(kept)} results; " + ", ".join(parts)


def _why_red(results: list[Result], interrupted: bool, missing: int, selected: int) -> str:
    """The reason a run is RED when no finding says it: stopped early, or nothing judged."""
    if interrupted or missing:
        return f" (not finished: {selected - missing} of {selected} items judged)"
    return " (nothing judged)" if nothing_judged(results) else ""
