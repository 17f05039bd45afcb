"""A worker's last multi-GiB input, kept for its next job when that job asks for the same data.

The ``large`` cases share one input (a [2^31 + 8] uint8 counter) across ops and targets. It is
mapped from one block of 2 MiB (:mod:`conformance.corpus.repeated`: 22 ms, where writing 2 GiB
out took 4.7 s on a virtual machine's fresh memory), so making it again would cost little; the
runner still sends the large items one after another to one worker (see
:class:`conformance.run.pool.Pool`), which hands the same array to each of them, as it would a
written-out input where the mapping is not available.

Only the input of a large item is kept, read-only (a backend
that tried to write into its input would raise rather than change the next item's data), and
only while consecutive jobs ask for an equal data spec: any other job frees it first, so an idle
worker never sits on gigabytes that another worker's large item needs.
"""

from __future__ import annotations

import numpy as np

from conformance.corpus.case import DataSpec
from conformance.corpus.fill import make_data


class InputCache:
    """At most one large input, and the spec it was made from."""

    def __init__(self) -> None:
        self._spec: DataSpec | None = None
        self._array: np.ndarray | None = None

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
        """The input of ``spec``: the kept one when it matches, else made (and kept if ``keep``:
        the input of a large item)."""
        if self._array is not None and spec == self._spec:
            return self._array
        array = make_data(spec)
        if keep:
            array.flags.writeable = False
            self._spec, self._array = spec, array
        return array
