"""Whether an item's tensors fit in this machine's memory, asked before anything is allocated.

A case may ask for a tensor of 2 GiB or more on purpose (dims at and past 2^31, tagged ``large``):
that is how int32 overflow in a backend's indexing shows. Allocating such data on a machine
without the room would end in the kernel's OOM killer taking the worker, or the whole run, so each
item's need is estimated from its shapes first, and an item that cannot fit is reported, with the
figures, instead of attempted.
"""

from __future__ import annotations

import math
from pathlib import Path

from conformance import dtypes
from conformance.corpus.case import Case

#: Copies of each run's data alive at once, at worst: the input, the reference's pieces, the
#: backend's outputs, and one more a backend makes on the way in or out (a feed, a tensor).
COPIES = 4
#: Items below this need are never checked: the check reads /proc for nothing.
SMALL_BYTES = 64 * 1024 * 1024
#: Bytes per element for types without a fixed width (strings: the object pointer and a short str).
_STRING_BYTES = 64


def needed_bytes(case: Case) -> int:
    """Peak bytes an item of ``case`` may hold: every run's data, :data:`COPIES` times over."""
    kind = case.data.dtype
    width = _STRING_BYTES if kind in dtypes.STRING else dtypes.numpy_dtype(kind).itemsize
    return COPIES * width * sum(math.prod(run.data.shape) for run in case.all_runs)


def available_bytes() -> int | None:
    """Memory the kernel says can be had without swapping (MemAvailable), or None where unknown."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def shortfall(case: Case) -> str | None:
    """Why an item of ``case`` must not be attempted here, or None when it fits."""
    needed = needed_bytes(case)
    if needed < SMALL_BYTES:
        return None
    available = available_bytes()
    if available is None or needed <= available:
        return None
    return (
        f"needs about {needed / 2**30:.1f} GiB ({COPIES} copies of its data) and this machine has "
        f"{available / 2**30:.1f} GiB available; run it where there is more memory, or leave it out "
        f"with -k 'not large'"
    )
