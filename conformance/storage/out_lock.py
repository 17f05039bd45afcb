"""One writer at a time per output folder: two runs writing one ``--out`` would rename, append to and
delete each other's journal and results, and a merge or a page written into a folder a run is
writing would leave complete-looking results beside its journal. A writer holds an exclusive
``flock`` on ``<out>/.lock``, which the operating system releases however the holder exits, so a
killed run leaves no stale lock. The lock file is opened without following a link
(:mod:`conformance.storage.no_links`): a planted ``.lock`` link is refused, never written through.
"""

from __future__ import annotations

import contextlib
import os
import shlex
from collections.abc import Iterator, Sequence
from pathlib import Path

from conformance.errors import UsageError
from conformance.results.document import utf8
from conformance.storage import no_links, out_folder

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
    with _held(out, command, option):
        yield


@contextlib.contextmanager
def holding(folder: Path, command: Sequence[str], option: str = "-o") -> Iterator[None]:
    """For a verb that writes results or a page into ``folder`` (merge, report, compat, diff,
    versions): hold its lock while writing when it is a folder of the suite's, as every run's
    folder is from before its lock is taken; another folder has no run to guard against, and
    gets no lock file."""
    if not out_folder.is_marked(folder):
        yield
        return
    with _held(folder, command, option):
        yield


@contextlib.contextmanager
def _held(out: Path, command: Sequence[str], option: str) -> Iterator[None]:
    """Hold the lock of the marked folder ``out``; what a writer killed in it left half-written
    (:func:`conformance.storage.out_folder.clear_temporaries`) goes once it is held."""
    if fcntl is None:
        yield
        return
    descriptor = no_links.open_file(out, out / FILE_NAME, os.O_RDWR | os.O_CREAT, 0o644, option)
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
        out_folder.clear_temporaries(out)
        yield
    finally:
        os.close(descriptor)  # releases the lock
