"""Each target's time per item, as the progress line's ETA needs it.

Why a target's largest item is left out of its rate: until a target's turn comes, its rate is
its sample's (:func:`conformance.run.runner.sample_of_each`: 5 % of its items, at least 40),
and one pause among them (a collection, a library paged in, a process starting beside the
worker) weighs on all of the target's thousands of items to come. In a full run at -j 1, one
0.56 s item among 40 of an ONNX Runtime route put it at 11 ms an item against 0.8 ms after;
replaying a -j 2 run's results, the ETA's worst error from 10 % of the run on went from 36 %
to 25 % without each target's largest item. Over a target's own thousands of items, leaving one
out changes nothing.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable


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

    def mean(self, kinds: Iterable[str]) -> float:
        """Time per item over ``kinds`` together (what an unmeasured class is guessed at)."""
        chosen = [kind for kind in kinds if self.finished[kind]]
        items = sum(self.finished[kind] for kind in chosen)
        return sum(self._rate(kind) * self.finished[kind] for kind in chosen) / items if items else 0.0

    def _rate(self, kind: str) -> float:
        items, seconds = self.finished[kind], self.spent[kind]
        return (seconds - self._largest[kind]) / (items - 1) if items >= 3 else seconds / items
