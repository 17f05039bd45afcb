"""Which backends the workers and the zygote hold, so that a run imports each backend once.

A worker that meets an adapter it has not loaded imports the adapter's backend (TensorFlow takes
seconds). At -j 2 the run's sample meets every adapter in both workers at once: each imported
TensorFlow, and the zygote a third time, to fork replacements with it. Here a worker leaves the
jobs of an adapter it lacks for other work, while there is any, as long as the zygote is
importing that adapter's modules or, for an adapter whose imports nobody has said yet, another
worker is loading such an adapter (two adapters may share a backend: Keras and TensorFlow's own);
once the zygote holds them the pool replaces it with a fork that has them (:meth:`Holdings.refork`).
Only the zygote every route shares takes part: a route with workers of its own has its own.
"""

from __future__ import annotations

from collections.abc import Iterable

from conformance.engine.slot import Slot
from conformance.engine.worker import AdapterKey, Job, Preload
from conformance.engine.zygote import Zygote


class Holdings:
    """What each adapter's loading imported, as its first worker said."""

    def __init__(self) -> None:
        #: the modules new to the first worker that loaded the adapter, and whether none of them
        #: started a thread there (those the zygote imports at once: see worker.learned)
        self.modules: dict[AdapterKey, tuple[frozenset[str], bool]] = {}

    def loaded(self, preload: Iterable[Preload], said: tuple[tuple[str, ...], bool]) -> None:
        """A worker has loaded the adapters of ``preload`` and imported ``said`` doing so. Kept for
        one adapter alone: the modules of two loaded together are not told apart."""
        keys = {(entry.adapter, entry.options) for entry in preload}
        if len(keys) == 1:
            self.modules.setdefault(keys.pop(), (frozenset(said[0]), said[1]))

    def has(self, slot: Slot, key: AdapterKey) -> bool:
        """Whether the slot's worker loads ``key`` without importing its backend: it has loaded it
        or been sent its jobs, or was forked from a zygote that held its modules."""
        if key in slot.readiness.adapters:
            return True
        known = self.modules.get(key)
        if known is not None and known[0] <= slot.readiness.inherited:
            slot.readiness.adapters.add(key)
            return True
        return False

    def held_back(self, slot: Slot, job: Job, slots: list[Slot], zygote: Zygote | None) -> bool:
        """Whether ``job`` should wait while other work is queued: its worker lacks its adapter,
        which another worker is loading now or the zygote is importing."""
        key = job.adapter_key
        if job.group is not None or zygote is None or zygote.usable is not True or self.has(slot, key):
            return False
        known = self.modules.get(key)
        if known is None:  # what it imports is unknown: it may be what another worker is importing
            return any(self._loading_unknown(other) for other in slots if other is not slot)
        modules, thread_free = known
        coming = modules - zygote.holds  # what the zygote has not imported yet, nor refused
        return thread_free and bool(coming) and not coming & zygote.refused

    def _loading_unknown(self, slot: Slot) -> bool:
        """Whether the slot's worker has in flight a job of an adapter it has not said it loaded,
        whose imports nobody has said: two adapters share a backend (Keras and TensorFlow's own)."""
        loaded = {(entry.adapter, entry.options) for entry in slot.readiness.loaded}
        return any(
            job.adapter_key not in loaded and job.adapter_key not in self.modules for job in slot.inflight
        )

    def refork(self, slot: Slot, job: Job, zygote: Zygote | None) -> bool:
        """Whether the slot's worker should be replaced with a fork before ``job``: it lacks the
        job's adapter, whose modules the zygote holds (a fork has them in milliseconds)."""
        key = job.adapter_key
        if job.group is not None or zygote is None or zygote.usable is not True or self.has(slot, key):
            return False
        known = self.modules.get(key)
        return known is not None and known[1] and known[0] <= zygote.holds
