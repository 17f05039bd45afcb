"""Which backends the workers and the zygote hold, so that a run imports each backend once.

A worker that meets an adapter it has not loaded imports the adapter's backend (TensorFlow takes
seconds). At -j 2 the run's sample meets every adapter in both workers at once: each imported
TensorFlow, and the zygote a third time, to fork replacements with it. Here a worker leaves the
jobs of an adapter it has not loaded for other work, while there is any, as long as the zygote is
importing or another worker is loading an adapter no worker has loaded before (two adapters may
share a backend: Keras and TensorFlow's own); and before it loads one, if the zygote holds
modules the worker lacks, the pool replaces it with a fork that has them
(:meth:`Holdings.refork`). Only the zygote every route shares takes part: a route with workers of
its own has its own.
"""

from __future__ import annotations

from collections.abc import Iterable

from conformance.engine.slot import Slot
from conformance.engine.worker import AdapterKey, Job, Preload
from conformance.engine.zygote import Zygote


class Holdings:
    """The adapters some worker has said it loaded."""

    def __init__(self) -> None:
        self.loaded_once: set[AdapterKey] = set()

    def loaded(self, preload: Iterable[Preload]) -> None:
        """A worker has loaded the adapters of ``preload``."""
        self.loaded_once.update((entry.adapter, entry.options) for entry in preload)

    def _applies(self, slot: Slot, job: Job, zygote: Zygote | None) -> bool:
        """Whether the slot's worker would load ``job``'s adapter, with a zygote to fork from."""
        return (
            job.group is None
            and zygote is not None
            and zygote.usable is True
            and job.adapter_key not in slot.readiness.adapters
        )

    def held_back(self, slot: Slot, job: Job, slots: list[Slot], zygote: Zygote | None) -> bool:
        """Whether ``job`` should wait while other work is queued: its worker would load its
        adapter while the zygote imports, or while another worker loads a new adapter."""
        if not self._applies(slot, job, zygote):
            return False
        assert zygote is not None
        return bool(zygote.importing) or any(self._loading_new(other) for other in slots if other is not slot)

    def may_preload(self, job: Job, zygote: Zygote | None) -> bool:
        """Whether a new worker may load ``job``'s adapter before its first job: not one that no
        worker has loaded yet, nor while the zygote imports (another worker may be loading it,
        or the zygote importing its backend)."""
        if job.group is not None or zygote is None or zygote.usable is not True:
            return True
        return job.adapter_key in self.loaded_once and not zygote.importing

    def _loading_new(self, slot: Slot) -> bool:
        """Whether the slot's worker has in flight a job of an adapter no worker has said it loaded."""
        return any(job.adapter_key not in self.loaded_once for job in slot.inflight)

    def refork(self, slot: Slot, job: Job, zygote: Zygote | None) -> bool:
        """Whether the slot's worker should be replaced with a fork before ``job``: it would load
        the job's adapter, and the zygote holds modules the worker lacks (maybe that adapter's
        backend). A fork has them in milliseconds; the worker's backends that start a thread
        (never in the zygote) are imported again where met."""
        if not self._applies(slot, job, zygote):
            return False
        assert zygote is not None
        zygote.poll()  # what it has imported since
        return bool(zygote.holds - slot.readiness.modules)
