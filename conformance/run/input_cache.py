"""A worker's inputs, kept for its next jobs: its last multi-GiB input, and its last small ones.

The ``large`` cases share one input (a [2^31 + 8] uint8 counter) across ops and targets. It is
mapped from one block of 2 MiB (:mod:`conformance.corpus.repeated`: 22 ms, where writing 2 GiB
out took 4.7 s on a virtual machine's fresh memory), so making it again would cost little; the
runner still sends the large items one after another to one worker (see
:class:`conformance.run.pool.Pool`), which hands the same array to each of them, as it would a
written-out input where the mapping is not available.

The input of a large item is handed over itself, read-only (a backend that tried to write into
its input would raise rather than change the next item's data), and kept only while consecutive
jobs ask for an equal data spec: any other job frees it first, so an idle worker never sits on
gigabytes that another worker's large item needs.

A small input (up to :data:`SMALL_BYTES`) is made once for the jobs in a row that ask for it and
kept read-only; each job gets a fresh copy, so a backend that writes into its input changes
nothing the next job sees. A target's jobs run a case under each of its ops in a row (two jobs in
three follow one of the same case in a full run). Warm, in one process, making the data of every
job of a full run (a fill: a counter, seeded random values, the case's own values) took 13.2 us a
job, and 10.4 us with the kept inputs; a run's workers spent 46-150 us an item on the data phase.
An input between that size and a large one is made afresh for each job, as before.
"""

from __future__ import annotations

import numpy as np

from conformance.corpus.case import DataSpec
from conformance.corpus.fill import make_data

#: Inputs up to this size (an object array's pointers, for strings) are kept for the jobs that
#: follow; every input of the corpus but its large ones is far smaller
SMALL_BYTES = 1 << 20
#: How many small inputs are kept, the oldest let go first (a case with ``runs:`` has one a run)
SMALL_KEPT = 8


class InputCache:
    """At most one large input, and the spec it was made from; the last small ones, by spec."""

    def __init__(self) -> None:
        self._spec: DataSpec | None = None
        self._array: np.ndarray | None = None
        #: small inputs by their spec object's identity (a worker's cases are its own objects, one
        #: per case, see conformance.run.case_wire); each entry keeps its spec alive, so an id is
        #: never reused while it names an entry (a spec of given values holds lists: no hash)
        self._small: dict[int, tuple[DataSpec, np.ndarray]] = {}

    def keep_only(self, spec: DataSpec | None) -> None:
        """Free the kept input unless the next job's data is ``spec`` (None: free it anyway)."""
        if spec is None or spec != self._spec:
            self._spec, self._array = None, None

    @property
    def size(self) -> int:
        """The bytes kept (0 when nothing is)."""
        return self._array.nbytes if self._array is not None else 0

    def held_bytes(self, spec: DataSpec) -> int:
        """The bytes of ``spec``'s input already in memory (and so not to be found again)."""
        return self.size if spec == self._spec else 0

    def data(self, spec: DataSpec, *, keep: bool) -> np.ndarray:
        """The input of ``spec``: the kept large one when it matches, else made and kept if
        ``keep`` (the input of a large item), else the job's own (see :meth:`fresh`)."""
        if self._array is not None and spec == self._spec:
            return self._array
        if not keep:
            return self.fresh(spec)
        array = make_data(spec)
        array.flags.writeable = False
        self._spec, self._array = spec, array
        return array

    def fresh(self, spec: DataSpec) -> np.ndarray:
        """A writeable input of ``spec`` of the caller's own: a copy of the one kept for it, made
        and kept first if none is (one over :data:`SMALL_BYTES` is made and handed over)."""
        kept = self._small.get(id(spec))
        if kept is None or kept[0] is not spec:
            array = make_data(spec)
            if array.nbytes > SMALL_BYTES:
                return array
            array.flags.writeable = False
            if len(self._small) >= SMALL_KEPT:
                del self._small[next(iter(self._small))]
            self._small[id(spec)] = kept = (spec, array)
        return kept[1].copy()
