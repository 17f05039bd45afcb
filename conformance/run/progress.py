"""What a person watching a run sees: a progress line while it runs, a table when it ends.

On a terminal the progress line redraws in place; in CI logs (no terminal) it prints a line at
every tenth of the run or every 30 seconds, whichever comes first, so logs stay short but a
stalled run is visible.
"""

from __future__ import annotations

import sys
import time
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterable, Mapping
from typing import TextIO

from conformance.results.result import Result
from conformance.run.rates import Rates, Strata
from conformance.run.worker import Job
from conformance.statuses import DEFECT_EXIT, FAILING, GREEN, NOT_JUDGED, STATUSES

#: How far back the ETA looks for the wall time a second of item time takes.
WINDOW_S = 30.0


def rate_class(job: Job) -> str:
    """What an item's time per item is measured with: its target's other items, except for a
    large item (gigabytes of data), which takes seconds where its target's others take
    milliseconds and so is measured with its target's other large items."""
    return f"{job.target.id} (large)" if job.large else job.target.id


class ProgressLine:
    """The progress line. Its ETA weighs each target's remaining items by that target's own
    measured time per item: targets run at rates two orders of magnitude apart (NumPy thousands
    of items a second, a conversion route tens) one target after another, so a run-wide rate would
    promise the end long before it comes."""

    def __init__(
        self,
        total: int,
        stream: TextIO | None = None,
        done: int = 0,
        remaining: Counter[str] | None = None,
        classes: Mapping[str, str] | None = None,
        clock: Callable[[], float] = time.monotonic,
        workers: int = 1,
    ) -> None:
        self.total = total
        #: how many workers run items side by side (what a death's wall time is multiplied by)
        self.workers = max(1, workers)
        self.stream = stream or sys.stderr
        self.interactive = self.stream.isatty()
        self.closed = False
        self.done = done
        self.counts: Counter[str] = Counter()
        self.clock = clock
        self.started = clock()
        self._last_line = 0.0
        self._last_tenth = -1
        #: items still to come per rate class (a target, or a target's large items: see
        #: :func:`rate_class`), and what the finished ones took (seconds of worker time)
        self.remaining: Counter[str] = remaining if remaining is not None else Counter()
        self.classes: Mapping[str, str] = classes or {}
        #: each rate class's items in all (what was left at the start), for the per-target part
        self._sizes: Counter[str] = Counter(self.remaining)
        self._large_kinds = set(self.classes.values())
        self.rates = Rates()
        #: the items left of each target priced by the sample items that stand for them, once
        #: the run has chosen a sample (see :class:`conformance.run.rates.Strata`)
        self.strata: Strata | None = None
        #: every item's worker time (imports included), and the (worker, rate class) pairs seen
        self._wall_work = 0.0
        self._loaded: set[tuple[int, str]] = set()
        #: (when, item time so far) at each result, over the last :data:`WINDOW_S` seconds
        self._marks: deque[tuple[float, float]] = deque()
        #: when the last result came (a death's time is the wall time since), and when each
        #: worker's last result came
        self._previous = self.started
        self._arrived: dict[int, float] = {}
        #: the rate class and seconds of workers' first items: (adapter, True) for a worker's first
        #: of the adapter, (class, False) for its first of a class whose adapter it had, and the
        #: workers that sent results lately, most recent last (see :meth:`_first_items_left`)
        self._firsts: dict[tuple[str, bool], list[tuple[str, float]]] = defaultdict(list)
        self._recent: deque[int] = deque()

    def update(self, result: Result) -> None:
        self.done += 1
        self.counts[result.status] += 1
        kind = self.classes.get(result.key, result.target_id)
        if self.remaining[kind] > 0:
            self.remaining[kind] -= 1
        now = self.clock()
        if result.worker is not None:
            pid = result.worker["pid"]
            seconds = self._worker_seconds(pid, result.worker["elapsed_ms"] / 1000, now)
            first = (pid, kind) not in self._loaded
            fresh = (pid, _adapter(kind)) not in self._loaded
            self._loaded.add((pid, kind))
            if kind not in self._large_kinds:  # a large item may be refused before any import
                self._loaded.add((pid, _adapter(kind)))
            self._note_worker(pid, kind, seconds if first else None, fresh)
            # A worker's first item of a target carries the backend's import (a large item
            # before it may have been refused before any import), seconds the target's other
            # items will not pay again; a large item's own seconds dwarf it.
            self._charge(kind, seconds, not first or kind in self._large_kinds, now, key=result.key)
        else:
            # A crash or a timeout has no worker figures; what it cost (the item until the worker
            # died, the replacement's start) is the wall time since the last result, on each of
            # the workers. Charged to its target's rate: left out, a cluster of deaths made the
            # wall time per item-second leap and the ETA with it (from 318 s to 879 s in one run).
            self._charge(kind, (now - self._previous) * self.workers, True, now, death=True, key=result.key)
        self._previous = now
        tenth = self.done * 10 // max(self.total, 1)
        if self.interactive:
            if now - self._last_line >= 0.1 or self.done == self.total:
                self.stream.write("\r" + self.line() + "\x1b[K")
                self.stream.flush()
                self._last_line = now
        elif tenth != self._last_tenth or now - self._last_line >= 30:
            self.stream.write(self.line() + "\n")
            self.stream.flush()
            self._last_line, self._last_tenth = now, tenth

    def restart(self) -> None:
        """Count the run's wall time from now, before any result: the first workers of a long run
        wait for the zygote's imports (seconds in which no item runs), which the items to come
        will not wait for again."""
        self.started = self._previous = self.clock()

    def _worker_seconds(self, pid: int, elapsed_s: float, now: float) -> float:
        """What an item cost its worker: the time since that worker's previous result, or the
        item's own time for a worker's first. Between two items a worker also reports the first,
        reads the next and waits on the parent: 0.15-1 ms an item, as much as a NumPy item
        itself. Measured with the items, it is in each target's rate: counted apart, as a ratio
        of wall time to item time, the ratio measured on slow targets' items promised the fast
        ones' long stretch at the end in half the time it took."""
        since = self._arrived.get(pid)
        self._arrived[pid] = now
        return elapsed_s if since is None else now - since

    def _note_worker(self, pid: int, kind: str, first_s: float | None, fresh: bool) -> None:
        """Keep the worker among the recent ones and, for its first item of ``kind``, what it took
        (``fresh``: its first of the adapter too)."""
        if pid in self._recent:
            self._recent.remove(pid)
        self._recent.append(pid)
        while len(self._recent) > self.workers:
            self._recent.popleft()
        if first_s is not None and kind not in self._large_kinds:  # a large item's seconds are its own
            self._firsts[(_adapter(kind), True) if fresh else (kind, False)].append((kind, first_s))

    def _first_items_left(self, rates: Mapping[str, float]) -> float:
        """Seconds the current workers will spend beyond the usual rate on their first item of each
        target they have not served yet. The backend's set-up (seconds for TensorFlow or
        torch.export) is paid on a worker's first item of its adapter; a further route of an
        adapter it has costs what that route's first items cost in workers that had the adapter:
        nothing for TensorFlow's eager route after its function route (counted per target, the ETA
        promised 1.9 s for it to the end of a -j 1 run, 55 % too long from 40 % on), Keras's
        import again for each of its backends. A worker that replaces a crashed one pays them all
        again, so a run's last targets, after the crashes of the ones before, cost more than their
        rates say: left out, the ETA promised the last tenth of a -j 2 run in half the time it took."""
        extra = 0.0
        for pid in self._recent:
            adapters: set[str] = set()  # those this worker is expected to set up, once each
            for kind, count in self.remaining.items():
                if not count or kind in self._large_kinds or (pid, kind) in self._loaded:
                    continue
                adapter = _adapter(kind)
                fresh = (pid, adapter) not in self._loaded and adapter not in adapters
                adapters.add(adapter)
                firsts = self._firsts.get((adapter, True) if fresh else (kind, False), [])
                beyond = [max(0.0, seconds - rates.get(each, 0.0)) for each, seconds in firsts]
                extra += sum(beyond) / len(beyond) if beyond else 0.0
        return extra

    def _charge(
        self, kind: str, seconds: float, counted: bool, now: float, death: bool = False, key: str = ""
    ) -> None:
        """Add an item's seconds of worker time to the run's work (``now``: when it came) and, when
        ``counted``, to its rate class's time per item (and the item, ``key``, to its stratum)."""
        self._wall_work += seconds
        self._marks.append((now, self._wall_work))
        while len(self._marks) > 2 and now - self._marks[1][0] >= WINDOW_S:
            self._marks.popleft()
        if counted:
            self.rates.add(kind, seconds, death)
        if self.strata is not None:
            self.strata.add(key, seconds, self.rates.rate(kind), counted=counted, death=death)

    def eta(self) -> float:
        """Seconds left: each target's remaining items at its own time per item so far (a target
        not measured yet at the mean of those that are), scaled by how much wall time the work
        done so far took per second of item time (worker starts, imports and the parent's share
        included). A worker's first item of a target is left out of the target's rate: it carries
        the backend's set-up, which that worker's other items will not pay again; what it costs
        beyond the rate is added once for each current worker that has not served the target yet
        (:meth:`_first_items_left`)."""
        work = self.work_left()
        if not work:
            return 0.0
        total = sum(work.values()) + self._first_items_left(self.rates.per_item())
        total += max(0, self.total - self.done - sum(self.remaining.values())) * self._mean(False)
        return total * self._wall_per_work()

    def work_left(self) -> dict[str, float]:
        """Seconds of item time each rate class has left, at its measured time per item (an
        unmeasured one at the mean of the measured ones); empty before anything is measured."""
        measured = self.rates.per_item()
        if not measured or self._wall_work <= 0:
            return {}
        fallback = {large: self._mean(large) for large in (False, True)}
        return {
            kind: self._priced(kind, left, measured.get(kind, fallback[kind in self._large_kinds]))
            for kind, left in self.remaining.items()
            if left
        }

    def _priced(self, kind: str, left: int, rate: float) -> float:
        """The item time of ``left`` items of ``kind`` at ``rate``, or as the sample items that
        stand for them say once the class is measured (:class:`conformance.run.rates.Strata`)."""
        if self.strata is None or not self.rates.finished[kind]:
            return left * rate
        stratified = self.strata.work_left(kind, rate)
        return left * rate if stratified is None else stratified

    def _longest(self) -> str:
        """The target with the most work left, with how far it has come: when targets run at
        rates a hundred times apart, the items count says little, and this says what holds the
        run up (e.g. ``openvino/pytorch/CPU 220/1017``)."""
        work = self.work_left()
        if len(work) < 2:
            return ""
        kind = max(work, key=lambda name: work[name])
        size = self._sizes[kind]
        return f"  longest: {kind} {size - self.remaining[kind]}/{size}"

    def _wall_per_work(self) -> float:
        """Wall seconds per second of item time, over the last :data:`WINDOW_S` seconds once the run
        is that long: worker starts, backend imports and crash replacements crowd a run's early
        targets, and a ratio kept from the start over-promised its end by a third."""
        now = self.clock()
        since, work = self._marks[0] if self._marks else (self.started, 0.0)
        if now - since >= WINDOW_S / 2 and self._wall_work > work:
            return (now - since) / (self._wall_work - work)
        return (now - self.started) / self._wall_work

    def _mean(self, large: bool) -> float:
        """Time per item over the measured classes of one kind (all classes if none is)."""
        measured = list(self.rates.finished)
        return self.rates.mean([k for k in measured if (k in self._large_kinds) == large] or measured)

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


def green(results: Iterable[Result]) -> bool:
    return all(result.status in GREEN for result in results)


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
    return 0 if green(kept) and nothing_judged(kept) is None else 1


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


def _adapter(kind: str) -> str:
    """The adapter of a rate class (``adapter/route/device``, or that and `` (large)``)."""
    return kind.split("/", 1)[0]


def eta_text(seconds: float) -> str:
    """The ETA as the progress line shows it, five characters wide: whole seconds, tenths below 10
    s. In whole seconds "eta 3 s" stood for anything from 2.5 to 3.5 s: at a run's end, rounding
    alone put the ETA up to a fifth off the time left (the benchmark, which holds the ETA to 25 %
    from 10 % of the run on, read "3 s" where 2.2 s were left)."""
    return f"{seconds:5.1f}" if seconds < 9.95 else f"{seconds:5.0f}"
