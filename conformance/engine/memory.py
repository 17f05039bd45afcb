"""Whether an item's tensors fit in this machine's memory, asked before anything is allocated.
Cases tagged ``large`` ask for 2 GiB or more on purpose (int32 overflow in a backend's indexing).
Allocated without the room, the OOM killer would take the worker or the whole run, so each item's
need is estimated from its shapes, and one that cannot fit is reported instead of attempted.
"""

from __future__ import annotations

import contextlib
import fcntl
import math
import os
import resource
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from conformance import dtypes
from conformance.corpus.case import Case, DataSpec
from conformance.engine import settings
from conformance.storage import scratch

#: Bytes per element for types without a fixed width (strings: the object pointer and a short str).
_STRING_BYTES = 64
#: The memory an item may use in this process (``--memory-budget``), or None for what the machine has.
_budget: int | None = None


def confine(budget: int | None) -> None:
    """Set this worker's limits: with a budget, items needing more are refused and the address space
    is capped, so a backend that allocates without bound fails in its own worker; and the worker is
    the OOM killer's first choice, so a machine out of memory loses one result, not the run."""
    global _budget
    _budget = budget
    with contextlib.suppress(OSError):
        Path("/proc/self/oom_score_adj").write_text("1000")
    if budget is not None:
        limit = budget + settings.ENGINE.address_space_base
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def data_bytes(spec: DataSpec) -> int:
    """The bytes of the input ``spec`` describes."""
    width = _STRING_BYTES if spec.dtype in dtypes.STRING else dtypes.numpy_dtype(spec.dtype).itemsize
    return width * math.prod(spec.shape)


def needed_bytes(case: Case) -> int:
    """Peak bytes an item of ``case`` may hold: every run's data, ``data_copies`` times over."""
    return settings.ENGINE.data_copies * sum(data_bytes(run.data) for run in case.all_runs)


def is_large(case: Case) -> bool:
    """Whether an item of ``case`` needs ``large_bytes`` or more: it runs alone on the machine."""
    return needed_bytes(case) >= settings.ENGINE.large_bytes


def available_bytes() -> int | None:
    """Memory the kernel says can be had without swapping (MemAvailable), or None where unknown."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


@contextmanager
def reserved(case: Case, held: int = 0) -> Iterator[str | None]:
    """Hold the machine's memory for an item of ``case``: yields why it must not be attempted, or
    None. A large item holds a lock shared by every run of this user until it is done, so two large
    items never count the same free memory and then both allocate it."""
    if not is_large(case):
        yield shortfall(case, held)
        return
    lock_path = scratch.SYSTEM / f"conformance-large-items-{os.getuid()}.lock"
    with lock_path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield shortfall(case, held)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def shortfall(case: Case, held: int = 0) -> str | None:
    """Why an item of ``case`` must not be attempted here, or None when it fits (``held``: bytes of
    its input this process already holds, which MemAvailable no longer counts)."""
    needed = needed_bytes(case)
    copies = settings.ENGINE.data_copies
    if _budget is not None and needed > _budget:
        return (
            f"needs about {needed / 2**30:.1f} GiB ({copies} copies of its data), over the memory budget "
            f"of {_budget / 2**30:.1f} GiB; raise it with --memory-budget MIB, or leave it out with "
            "-k 'not large'"
        )
    if needed < settings.ENGINE.checked_bytes:
        return None
    free = available_bytes()
    if free is None:
        return None
    available = free + held
    if needed <= available:
        return None
    return (
        f"needs about {needed / 2**30:.1f} GiB ({copies} copies of its data) and this machine has "
        f"{available / 2**30:.1f} GiB available; run it where there is more memory, or leave it out "
        f"with -k 'not large'"
    )
