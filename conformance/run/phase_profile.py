"""Where a worker's time goes, phase by phase and target by target: a profile a run makes on request.

The benchmark's harness share says how much of a run is not the backends'; this says which part
of the harness it is. With ``CONFORMANCE_PHASE_PROFILE`` set to a folder, every worker of the run
adds the wall time between two of its phase marks (:func:`conformance.run.phase.mark`: reference,
data, support, the backend's build to release, judging, reporting, between items) to the phase it
was in, for the target of its current item, and the time of each garbage collection to the phase
it interrupted; it writes its totals to ``<folder>/<pid>.json`` every :data:`WRITE_EVERY` items
and when it ends. A worker killed or crashed loses what it had not written (its last items at
most). ``python benchmarks/full_run.py --phases`` runs a selection so and prints the table.

The time before a worker's first item (starting, preparing its targets, and a standby's wait to
be needed, which is no run's loss) is kept under the target :data:`NO_ITEM` yet. Off, it costs
one comparison a mark.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

#: The variable that asks for the profile: the folder the workers write to.
VARIABLE = "CONFORMANCE_PHASE_PROFILE"
#: The target a worker's time is kept under before its first item.
NO_ITEM = "(before a worker's first item)"
#: A worker writes its totals after this many items (and when it ends).
WRITE_EVERY = 100
#: What a collection's time is kept under: the phase it interrupted, with this prefix.
GC = "gc in "


class PhaseProfile:
    """One worker's seconds per (target, phase) and items per target."""

    def __init__(self, folder: Path | None, clock: Callable[[], float] = time.perf_counter) -> None:
        self.folder = folder
        self.clock = clock
        self.seconds: dict[tuple[str, str], float] = defaultdict(float)
        self.items: Counter[str] = Counter()
        self.served = 0
        self.target = NO_ITEM
        self.phase: str | None = None
        self.since = clock()
        self._collecting = 0.0

    def enter(self, phase: str) -> None:
        """The worker enters ``phase``: the one it leaves gets the time since it was entered."""
        now = self.clock()
        if self.phase is not None:
            self.seconds[self.target, self.phase] += now - self.since
        self.phase, self.since = phase, now

    def item(self, target: str) -> None:
        """The worker starts an item of ``target`` (its phases from here are that target's)."""
        self.enter(self.phase or "between items")
        self.target = target
        self.items[target] += 1
        self.served += 1
        if self.served % WRITE_EVERY == 0:
            self.write()

    def collected(self, stage: str, _info: dict[str, Any]) -> None:
        """A ``gc.callbacks`` hook: a collection's time goes to the phase it interrupted (it is
        in that phase's time as well)."""
        if stage == "start":
            self._collecting = self.clock()
        else:
            self.seconds[self.target, GC + (self.phase or "starting")] += self.clock() - self._collecting

    def record(self) -> dict[str, Any]:
        """The totals as JSON: each target's items and its seconds per phase."""
        phases: dict[str, dict[str, float]] = defaultdict(dict)
        for (target, phase), seconds in self.seconds.items():
            phases[target][phase] = seconds
        return {"pid": os.getpid(), "items": dict(self.items), "seconds": dict(phases)}

    def write(self) -> None:
        """Replace this worker's file with its totals so far (never a reason to lose the worker)."""
        if self.folder is None:
            return
        path = self.folder / f"{os.getpid()}.json"
        with contextlib.suppress(OSError):
            path.with_suffix(".tmp").write_text(json.dumps(self.record()), encoding="utf-8")
            path.with_suffix(".tmp").replace(path)


def start() -> PhaseProfile | None:
    """In a worker, before its first mark: the profile the run asked for, installed, or None."""
    from conformance.run import phase

    folder = os.environ.get(VARIABLE)
    if not folder:
        return None
    profile = PhaseProfile(Path(folder))
    phase.profile = profile
    gc.callbacks.append(profile.collected)
    return profile


def totals(folder: Path) -> tuple[Counter[str], dict[str, Counter[str]]]:
    """Every worker's file in ``folder`` summed: items per target, and seconds per phase per target."""
    items: Counter[str] = Counter()
    seconds: dict[str, Counter[str]] = defaultdict(Counter)
    for path in sorted(folder.glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        items.update(record["items"])
        for target, phases in record["seconds"].items():
            seconds[target].update(phases)
    return items, seconds


def table(items: Counter[str], seconds: dict[str, Counter[str]], phases: Iterable[str]) -> str:
    """Microseconds per item of each of ``phases`` for each target, then every target's total
    seconds in them: the harness's phases side by side, to compare with a budget per item."""
    chosen = list(phases)
    header = f"{'target':<32}{'items':>7}" + "".join(f"{name[:11]:>12}" for name in chosen)
    lines = [header]
    for target in sorted(items):
        count = items[target]
        cells = "".join(f"{seconds[target][name] / count * 1e6:>12.0f}" for name in chosen)
        lines.append(f"{target:<32}{count:>7}{cells}")
    whole = "".join(f"{sum(seconds[t][name] for t in items):>12.2f}" for name in chosen)
    lines.append(f"{'all targets (s)':<32}{sum(items.values()):>7}{whole}")
    return "\n".join(lines)
