"""The run's own process and the garbage collector: its long-lived objects frozen as they come.

Why: the process that runs the pool keeps every result until the run ends (tens of thousands,
each a handful of dicts and lists) beside the plan's cases, and each of Python's full collections
walks all of them. In a full run at -j 2, 12 full collections took 1.2 s in all, the longest
0.3 s, and for each of those pauses both workers ran out of jobs (the parent sends the next job
when it handles a result). Frozen every :data:`FREEZE_EVERY` results, the objects kept so far
are left out of later collections, which then walk only what came since. Nothing is lost:
every object is unfrozen when the run ends, and a cycle frozen with them is collected then.
"""

from __future__ import annotations

import gc
from types import TracebackType

#: Results handled between two freezes: the objects a collection walks stay a few thousand results' worth.
FREEZE_EVERY = 1000


class Frozen:
    """While entered, what this process holds is frozen now and every :data:`FREEZE_EVERY` calls of
    :meth:`tick`; on leaving, it is unfrozen, unless something else had frozen objects before
    (``gc.unfreeze`` would unfreeze those too)."""

    def __init__(self) -> None:
        self._ticks = 0
        self._thaw = False

    def __enter__(self) -> Frozen:
        self._thaw = gc.get_freeze_count() == 0
        self._freeze()
        return self

    def tick(self) -> None:
        """One more result kept: freeze what is held every :data:`FREEZE_EVERY` of them."""
        self._ticks += 1
        if self._ticks % FREEZE_EVERY == 0:
            self._freeze()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._thaw:
            gc.unfreeze()

    @staticmethod
    def _freeze() -> None:
        gc.collect(1)  # the young generations' cycles first (milliseconds): they are garbage, not kept
        gc.freeze()
