"""What a person watching a run sees while it runs: the progress line.

On a terminal the progress line redraws in place; in CI logs (no terminal) it prints a line at
every tenth of the run or every 30 seconds, whichever comes first, so logs stay short but a
stalled run is visible.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from typing import TextIO

from conformance.engine import settings
from conformance.engine.worker import Job
from conformance.results.result import Result
from conformance.statuses import STATUSES

#: what a large item's rate class adds to its target's (see :func:`rate_class`)
LARGE = " (large)"


def rate_class(job: Job) -> str:
    """What an item's time is measured with: its target's other items, or its target's other large
    items for a large one (seconds where the others take milliseconds)."""
    return f"{job.target.id}{LARGE}" if job.large else job.target.id


def size_bucket(job: Job) -> int:
    """An item's size as a power of 4 of its data's elements (over all its runs)."""
    return (sum(math.prod(run.data.shape) for run in job.case.all_runs).bit_length() + 1) // 2


class ProgressLine:
    """The progress line. Its ETA prices each rate class's items left at the mean wall time its
    items of the same :func:`size_bucket` took so far (else the class's mean, else the mean of the
    measured classes), shared among the workers: targets run at rates two orders of magnitude
    apart, and a few large items can cost most of a target's time. An item's wall time runs from
    its worker's previous result to its own; a worker's first item of a class is left out, as it
    carries the adapter's loading and a first compile (see docs/architecture.md)."""

    def __init__(
        self,
        total: int,
        stream: TextIO | None = None,
        done: int = 0,
        jobs: Iterable[Job] = (),
        clock: Callable[[], float] = time.monotonic,
        workers: int = 1,
    ) -> None:
        self.total = total
        self.stream = stream or sys.stderr
        self.interactive = self.stream.isatty()
        self.closed = False
        self.done = done
        self.counts: Counter[str] = Counter()
        self.clock = clock
        self.started = clock()
        self.workers = workers
        #: when the last line was written, and the tenth of the run it said
        self._shown = (0.0, -1)
        #: each item's rate class and size bucket, the items left of each, each class's items
        self._items = {job.key: (rate_class(job), size_bucket(job)) for job in jobs}
        self._left: Counter[tuple[str, int]] = Counter(self._items.values())
        self._totals: Counter[str] = Counter(kind for kind, _ in self._items.values())
        #: (seconds of wall time, items) measured per rate class and size bucket
        self._measured: dict[tuple[str, int], tuple[float, int]] = {}
        #: each worker's last result: when it came, and its rate class
        self._last: dict[int, tuple[float, str]] = {}

    def update(self, result: Result, contended: bool = False) -> None:
        """Count ``result``; ``contended``: it ran while a zygote imported the modules routes declare,
        and counts at its worker's share of a core then (see docs/architecture.md)."""
        self.done += 1
        self.counts[result.status] += 1
        kind, bucket = self._items.get(result.key, (result.target_id, 0))
        if self._left[kind, bucket] > 0:
            self._left[kind, bucket] -= 1
        now = self.clock()
        if result.worker is not None:  # a death has none: its replacement's first item is a first
            previous = self._last.get(result.worker["pid"])
            self._last[result.worker["pid"]] = (now, kind)
            # a large item's seconds are its own, whatever its worker ran before it
            if previous is not None and (previous[1] == kind or kind.endswith(LARGE)):
                spent, count = self._measured.get((kind, bucket), (0.0, 0))
                share = min(1.0, (os.cpu_count() or 1) / (self.workers + 1)) if contended else 1.0
                self._measured[kind, bucket] = (spent + (now - previous[0]) * share, count + 1)
        tenth = self.done * 10 // max(self.total, 1)
        if self.interactive:
            if now - self._shown[0] >= settings.ENGINE.redraw_s or self.done == self.total:
                self.stream.write("\r" + self.line() + "\x1b[K")
                self.stream.flush()
                self._shown = (now, tenth)
        elif tenth != self._shown[1] or now - self._shown[0] >= 30:
            self.stream.write(self.line() + "\n")
            self.stream.flush()
            self._shown = (now, tenth)

    def restart(self) -> None:
        """Count the run's wall time from now (the first workers of a long run wait for the zygote)."""
        self.started = self.clock()

    def work_left(self) -> dict[str, float]:
        """Seconds of wall time each rate class has left (large items run alone, the rest shared)."""
        means = {key: spent / count for key, (spent, count) in self._measured.items()}
        sums: dict[str, tuple[float, int]] = {}
        for (kind, _), (spent, count) in self._measured.items():
            spent_before, count_before = sums.get(kind, (0.0, 0))
            sums[kind] = (spent_before + spent, count_before + count)
        of_class = {kind: spent / count for kind, (spent, count) in sums.items()}
        if not of_class:
            return {}
        fallback = {}
        for is_large in (False, True):
            alike = [mean for kind, mean in of_class.items() if kind.endswith(LARGE) == is_large]
            alike = alike or list(of_class.values())
            fallback[is_large] = sum(alike) / len(alike)
        left: dict[str, float] = defaultdict(float)
        for (kind, bucket), items in self._left.items():
            large = kind.endswith(LARGE)
            mean = means.get((kind, bucket), of_class.get(kind, fallback[large]))
            left[kind] += items * mean / (1 if large else self.workers)
        return {kind: seconds for kind, seconds in left.items() if seconds > 0}

    def eta(self) -> float:
        """Seconds left: the wall time every rate class has left (:meth:`work_left`)."""
        return sum(self.work_left().values())

    def _longest(self) -> str:
        """The target with the most work left and how far it has come (``openvino/pytorch/CPU
        220/1017``): what holds the run up, where the items count says little."""
        work = self.work_left()
        if len(work) < 2:
            return ""
        kind = max(work, key=lambda name: work[name])
        total = self._totals[kind]
        left = sum(items for (other, _), items in self._left.items() if other == kind)
        return f"  longest: {kind} {total - left}/{total}"

    def line(self) -> str:
        elapsed = self.clock() - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        counts = " ".join(f"{status} {self.counts[status]}" for status in STATUSES if self.counts[status])
        percent = 100 * self.done // max(self.total, 1)
        eta = eta_text(self.eta())
        head = f"[{self.done}/{self.total}] {percent:3d}% {rate:6.1f} items/s  eta {eta} s"
        return f"{head}  {counts}{self._longest()}".rstrip()

    def close(self) -> None:
        """End the line (once: the crash review ends it before the run's end does)."""
        if self.interactive and not self.closed:
            self.stream.write("\n")
            self.stream.flush()
        self.closed = True


def eta_text(seconds: float) -> str:
    """The ETA, five characters wide: whole seconds, tenths below 10 s (whole seconds alone put it
    up to a fifth off near a run's end)."""
    return f"{seconds:5.1f}" if seconds < 9.95 else f"{seconds:5.0f}"
