"""A memory-copy baseline, measured in the run it qualifies: Split moves data and computes nothing,
so a backend can go about as fast as a memory copy on the same machine at the same moment.
"""

from __future__ import annotations

import time

import numpy as np

from conformance.results.records import MemcpyRecord

SIZES = (1 << 20, 16 << 20, 64 << 20)


def memcpy_baseline(sizes: tuple[int, ...] = SIZES, rounds: int = 5) -> list[MemcpyRecord]:
    """Best-of-``rounds`` copy bandwidth per buffer size, in GB/s counting read and write."""
    baseline: list[MemcpyRecord] = []
    for size in sizes:
        source = np.arange(size, dtype=np.uint8)
        target = np.empty_like(source)
        np.copyto(target, source)  # first touch: page faults are not part of the baseline
        best = float("inf")
        for _ in range(rounds):
            start = time.perf_counter()
            np.copyto(target, source)
            best = min(best, time.perf_counter() - start)
        baseline.append({"bytes": size, "gbps": round(2 * size / best / 1e9, 3)})
    return baseline
