"""A periodic tensor of gigabytes held in one block of memory, mapped again and again.

The ``large`` cases split a [2^31 + 8] uint8 counter whose bytes repeat every 256. Writing 2 GiB
costs more than most backends take to split it, so one 2 MiB block is written into an in-memory
file (``memfd_create``) and mapped at every block of one reserved address range.

The mappings are ``PROT_READ``: a backend that wrote into its input crashes (a finding the worker
isolation reports) rather than changing every block at once. Linux only; elsewhere, or when the
kernel refuses a mapping, :func:`repeated` returns None and the caller writes the tensor out.
"""

from __future__ import annotations

import ctypes
import mmap
import os
from typing import Any, Final

import numpy as np
import numpy.typing as npt

#: The block mapped again and again: a multiple of the page size and of every period it serves.
BLOCK_BYTES: Final = 2 << 20
#: Mappings one tensor may take (the kernel's default limit per process is 65,530): 64 GiB.
MAX_BLOCKS: Final = 32_768

_MAP_FIXED: Final = 0x10


def _libc_mmap() -> Any:
    """libc's mmap, which Python's mmap module does not expose with MAP_FIXED."""
    libc = ctypes.CDLL(None, use_errno=True)
    function = libc.mmap
    function.restype = ctypes.c_void_p
    c_int = ctypes.c_int
    function.argtypes = (ctypes.c_void_p, ctypes.c_size_t, c_int, c_int, c_int, ctypes.c_long)
    return function


def repeated(pattern: npt.NDArray[Any], count: int) -> npt.NDArray[Any] | None:
    """``count`` elements repeating ``pattern``, read-only, or None where this cannot be done:
    the caller then writes the elements out itself."""
    period = pattern.nbytes
    total = count * pattern.itemsize
    blocks = -(-total // BLOCK_BYTES)
    if not hasattr(os, "memfd_create") or not period or BLOCK_BYTES % period or not 0 < blocks <= MAX_BLOCKS:
        return None
    block = np.tile(pattern, BLOCK_BYTES // period)
    try:
        region = _mapped(block.tobytes(), blocks)
    except OSError:
        return None
    array = np.frombuffer(region, dtype=pattern.dtype, count=count)
    array.flags.writeable = False
    return array


def _mapped(block: bytes, blocks: int) -> mmap.mmap:
    """``blocks`` x :data:`BLOCK_BYTES` of address range, each block a read-only private mapping
    of one in-memory file holding ``block``; the returned mmap owns (and unmaps) the whole range."""
    descriptor = os.memfd_create("conformance-repeated", os.MFD_CLOEXEC)
    try:
        os.ftruncate(descriptor, BLOCK_BYTES)
        os.pwrite(descriptor, block, 0)
        region = mmap.mmap(-1, blocks * BLOCK_BYTES, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        anchor = ctypes.c_char.from_buffer(region)  # the range's address; never touched
        start = ctypes.addressof(anchor)
        del anchor  # the export would keep the region from closing
        libc_mmap = _libc_mmap()
        for number in range(blocks):
            wanted = start + number * BLOCK_BYTES
            got = libc_mmap(wanted, BLOCK_BYTES, mmap.PROT_READ, mmap.MAP_PRIVATE | _MAP_FIXED, descriptor, 0)
            if got != wanted:
                region.close()
                raise OSError(ctypes.get_errno(), f"mmap of block {number} refused")
        return region
    finally:
        os.close(descriptor)
