"""Each target's time per item, as the progress line's ETA needs it.

Why a target's largest item is left out of its rate: until a target's turn comes, its rate is
its sample's (:func:`conformance.run.sampling.sample_of_each`: 5 % of its items, at least 40),
and one pause among them (a collection, a library paged in, a process starting beside the
worker) weighs on all of the target's thousands of items to come. In a full run at -j 1, one
0.56 s item among 40 of an ONNX Runtime route put it at 11 ms an item against 0.8 ms after;
replaying a -j 2 run's results, the ETA's worst error from 10 % of the run on went from 36 %
to 25 % without each target's largest item. Over a target's own thousands of items, leaving one
out changes nothing.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence


class Rates:
    """Seconds of worker time per item for each rate class (a target, or its large items)."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = defaultdict(float)
        self.finished: Counter[str] = Counter()
        self._largest: dict[str, float] = defaultdict(float)

    def add(self, kind: str, seconds: float, death: bool = False) -> None:
        """Count an item's seconds; a ``death``'s (the item a worker died on, and its replacement's
        start) are never the largest item left out: the target's crashes recur."""
        self.spent[kind] += seconds
        self.finished[kind] += 1
        if not death:
            self._largest[kind] = max(self._largest[kind], seconds)

    def per_item(self) -> dict[str, float]:
        """Each measured class's seconds per item, its largest item (not a death) left out once it
        has three."""
        return {kind: self._rate(kind) for kind, n in self.finished.items() if n}

    def rate(self, kind: str) -> float:
        """The class's seconds per item (0 before any is measured)."""
        return self._rate(kind) if self.finished[kind] else 0.0

    def mean(self, kinds: Iterable[str]) -> float:
        """Time per item over ``kinds`` together (what an unmeasured class is guessed at)."""
        chosen = [kind for kind in kinds if self.finished[kind]]
        items = sum(self.finished[kind] for kind in chosen)
        return sum(self._rate(kind) * self.finished[kind] for kind in chosen) / items if items else 0.0

    def _rate(self, kind: str) -> float:
        items, seconds = self.finished[kind], self.spent[kind]
        return (seconds - self._largest[kind]) / (items - 1) if items >= 3 else seconds / items


#: A stratum's sample item (or a bulk item checked against it) counts at most this many times its
#: target's time per item: one pause (a process starting beside it, a library paged in) would
#: otherwise weigh on the 20 items its stratum stands for.
STRATUM_CAP = 2.0
#: Bulk items of a target checked against their strata before its own calibration is trusted
#: (until then, the square root of the calibration of the targets that have that many is used).
CALIBRATED_AFTER = 30

#: (target's rate class, stratum number): a sample item and the bulk items it stands for
Stratum = tuple[str, int]


class Strata:
    """Each target's items left, costed by the sample items that stand for them.

    Why: a target's sample is spread evenly over its items (see
    :func:`conformance.run.sampling.sample_of_each`), and its items run in plan order after it,
    where their cost is not uniform (OpenVINO's PyTorch route takes 27 ms an item on its first
    800 cases and 6 ms on its hsplit ones after). A mean over the items done so far then
    predicts the rest from the wrong cases; each sample item instead stands for its stratum,
    the items up to the next sample item. The sample also runs in the run's first seconds,
    beside the imports (ONNX Runtime's items took 2.5 ms then against 1.4 ms after): each
    target's bulk items, as they come, say by how much its sample over-stated them. A full run
    checks every target's sample right after it (:func:`conformance.run.sampling.checks_of_each`),
    so each is corrected by its own bulk from early on; a target with too few checks is
    corrected by what the started ones show for a sample of its speed (its square root: see
    :meth:`_calibration`). Replaying seven full runs' results
    (one at -j 1), the ETA's worst error from 10 % on was 15-33 % (22 % on average) against
    11-76 % (36 %) with each target's mean."""

    def __init__(self, stratum_of: dict[str, Stratum], sample: set[str]) -> None:
        self._of = stratum_of
        self._sample = sample
        #: per class, its strata's items left (a stratum leaves once it has none)
        self._left: dict[str, Counter[int]] = defaultdict(Counter)
        for kind, number in stratum_of.values():
            self._left[kind][number] += 1
        self._cost: dict[Stratum, float] = {}
        #: per class, what its sample items priced in all and how many did (its sample's speed)
        self._priced: dict[str, float] = defaultdict(float)
        self._prices: Counter[str] = Counter()
        #: per class: its bulk items' seconds, and what their strata's sample items said
        self._spent: dict[str, float] = defaultdict(float)
        self._said: dict[str, float] = defaultdict(float)
        self._checked: Counter[str] = Counter()

    def add(self, key: str, seconds: float, rate: float, *, counted: bool, death: bool) -> None:
        """Count a finished item (``rate``: its class's time per item with it): a sample item
        prices its stratum, unless it carried a worker's set-up or died; a bulk item is checked
        against its stratum's price."""
        stratum = self._of.get(key)
        if stratum is None:
            return
        kind, number = stratum
        strata = self._left[kind]
        strata[number] -= 1
        if strata[number] <= 0:
            del strata[number]
        if not counted:
            return
        if key in self._sample:
            if not death:
                self._cost[stratum] = seconds
                self._priced[kind] += seconds
                self._prices[kind] += 1
        elif stratum in self._cost:
            self._spent[kind] += min(seconds, STRATUM_CAP * rate)
            self._said[kind] += min(self._cost[stratum], STRATUM_CAP * rate)
            self._checked[kind] += 1

    def work_left(self, kind: str, rate: float) -> float | None:
        """Seconds of item time ``kind`` has left (a stratum not priced yet at ``rate``), or None
        when none of its items left has a stratum."""
        left = self._left.get(kind)
        if not left:
            return None
        scale, cap = self._calibration(kind), STRATUM_CAP * rate
        cost = self._cost
        return sum(
            count * (min(cost[kind, number], cap) * scale if (kind, number) in cost else rate)
            for number, count in left.items()
        )

    def _calibration(self, kind: str) -> float:
        """What the class's bulk items took per second its sample said: its own once it has
        :data:`CALIBRATED_AFTER` of them. A class not started yet (most often) takes the ratio the
        started classes show for a sample as fast as its own, square-rooted (see :func:`fitted`),
        or the square root of their pooled ratio while their samples are of one speed (1 without
        any). Why by speed: the samples run beside the imports, and the fast targets' items
        (under a millisecond) took twice their later time there, the slow ones' (10-20 ms) 0.85-1.05
        of it; priced by the slow ones, which start first, the fast ones that end a -j 1 run were
        promised at twice what they took. Why the root: the targets that start first are the slow
        ones, whose samples over-state the rest's least at -j 1 and most at -j 2 (0.4). Replaying
        four runs (two at each -j), the ETA's worst error was 33, 29, 14 and 25 % this way, 48,
        49, 14 and 25 % with the pooled ratio's root; over seven earlier replays, 22 % on average
        with the pooled root, 28 % with the whole ratio, 29 % with none."""
        if self._checked[kind] >= CALIBRATED_AFTER and self._said[kind] > 0:
            return self._spent[kind] / self._said[kind]
        trusted = [name for name, count in self._checked.items() if count >= CALIBRATED_AFTER]
        if self._prices[kind]:
            points = [
                (math.log(self._speed(name)), self._spent[name] / self._said[name], self._checked[name])
                for name in trusted
                if self._prices[name] and self._said[name] > 0
            ]
            ratio = fitted(points, math.log(self._speed(kind)))
            if ratio is not None:
                return math.sqrt(ratio)
        said = sum(self._said[name] for name in trusted)
        return math.sqrt(sum(self._spent[name] for name in trusted) / said) if said else 1.0

    def _speed(self, kind: str) -> float:
        """The class's sample's seconds per item (what its sample items priced, on average)."""
        return max(self._priced[kind] / self._prices[kind], 1e-9)


#: Samples whose speeds' logarithms vary less than this (a factor of about 1.6 either way) are of
#: one speed: no slope is read from them.
SPREAD = 0.25


def fitted(points: Sequence[tuple[float, float, float]], at: float) -> float | None:
    """The ratio at the log-speed ``at`` on the straight line fitted, by least squares weighted by
    items checked, through ``points`` (log of a class's sample speed, its ratio, items checked),
    held within the ratios they show; None from fewer than two points or points of one speed."""
    weight = sum(w for _, _, w in points)
    if len(points) < 2 or weight <= 0:
        return None
    mean_x = sum(x * w for x, _, w in points) / weight
    mean_y = sum(y * w for _, y, w in points) / weight
    spread = sum(w * (x - mean_x) ** 2 for x, _, w in points) / weight
    if spread < SPREAD:
        return None
    slope = sum(w * (x - mean_x) * (y - mean_y) for x, y, w in points) / weight / spread
    ratios = [y for _, y, _ in points]
    return min(max(mean_y + slope * (at - mean_x), min(ratios)), max(ratios))
