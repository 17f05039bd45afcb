"""One run at a time per output folder: two runs writing one ``--out`` would rename, append to and
delete each other's journal and results. A run holds an exclusive ``flock`` on ``<out>/.lock``,
which the operating system releases however the holder exits, so a killed run leaves no stale lock.
"""

from __future__ import annotations

import contextlib
import os
import shlex
from collections.abc import Iterator, Sequence
from pathlib import Path

from conformance.errors import UsageError
from conformance.results.document import utf8
from conformance.storage import out_folder

try:
    import fcntl
except ImportError:  # Windows: no flock; runs are not guarded there
    fcntl = None  # type: ignore[assignment]

FILE_NAME = ".lock"


@contextlib.contextmanager
def locked(out: Path, command: Sequence[str], option: str = "--out") -> Iterator[None]:
    """Hold ``out``'s lock for the duration; UsageError naming the holder if another run has it,
    or when ``out`` is no folder the suite may write (``option``: the front door's name for it)."""
    out_folder.claim(out, option)
    if fcntl is None:
        yield
        return
    descriptor = os.open(out / FILE_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(descriptor, 4096, 0).decode("utf-8", "replace").strip() or "unknown"
            raise UsageError(
                f"{out} is being written by another run ({holder}); wait for it to end or give "
                f"this one another {option}"
            ) from None
        os.ftruncate(descriptor, 0)
        os.pwrite(descriptor, utf8(f"process {os.getpid()}: {shlex.join(command)}\n"), 0)
        yield
    finally:
        os.close(descriptor)  # releases the lock
