"""Which phase of an item a worker is in, readable by the parent after the worker has died: a crash
result says where (loading the adapter, making the data, the backend's build, compile or run,
judging, between items). A dead worker cannot say so, so it writes each phase's name at the start
of a small file beside its log, one ``pwrite`` that stays in the file whatever becomes of the
process. The build's mark also writes when it began (the monotonic clock), so a worker that dies
in the backend's phases leaves the time its backend spent.
"""

from __future__ import annotations

import os
import struct
import time
from pathlib import Path

#: The width every phase name is padded to, so a shorter name overwrites a longer one whole.
_WIDTH = 24
#: the phase file's descriptor: the name, then at an item's build the clock when it began
_descriptor: int | None = None


def path_for(log: Path) -> Path:
    """The phase file of the worker whose log is ``log``."""
    return log.with_suffix(".phase")


def open_marker(log_path: str | None) -> None:
    """In the worker, before its first job: create its phase file (or none without a log)."""
    global _descriptor
    if log_path is None:
        return
    try:
        _descriptor = os.open(path_for(Path(log_path)), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        os.pwrite(_descriptor, bytes(_WIDTH + 8), 0)  # cleared in place, never truncated to nothing
    except OSError:  # no phase then; never a reason to lose the worker
        return
    mark("starting")


def mark(phase: str) -> None:
    """Say that the worker is entering ``phase`` (a no-op outside a worker with a log)."""
    if _descriptor is None:
        return
    written = _PADDED.get(phase)
    if written is None:
        written = _PADDED[phase] = phase.encode("ascii", "replace")[:_WIDTH].ljust(_WIDTH)
    if phase == _BUILD:  # the backend's phases start: when, for a death in them
        written += struct.pack("d", time.monotonic())
    try:  # noqa: SIM105 (ten times an item: a plain try costs least)
        os.pwrite(_descriptor, written, 0)
    except OSError:  # no phase then; never a reason to lose the worker
        pass


#: each phase's name as written (ASCII, padded to :data:`_WIDTH`), made once
_PADDED: dict[str, bytes] = {}
#: the backend's phases, the build first (and "run 2" ... of a case with runs)
_BUILD = "build"
_BACKEND = frozenset({_BUILD, "compile", "run", "steady runs", "release"})


def read(log: Path | None) -> str | None:
    """In the parent: the phase the worker whose log is ``log`` said last, or None."""
    return _name(_written(log))


def left(log: Path | None, now: float) -> tuple[str | None, float]:
    """In the parent, for a worker seen dead (or overrunning) at ``now`` (``time.monotonic()``): the
    phase it said last, and how long its backend had been at the item since the build began if
    that phase is the backend's (else 0.0)."""
    written = _written(log)
    name = _name(written)
    if name is None or len(written) < _WIDTH + 8 or not (name in _BACKEND or name.startswith("run ")):
        return name, 0.0
    since: float = struct.unpack("d", written[_WIDTH : _WIDTH + 8])[0]
    # zeros: no build marked since the file was cleared
    return name, (max(0.0, now - since) if since > 0 else 0.0)


def _written(log: Path | None) -> bytes:
    """The phase file's bytes, read until two reads agree: an overrunning worker may be writing it."""
    if log is None:
        return b""
    try:
        written = path_for(log).read_bytes()
        for _ in range(3):
            again = path_for(log).read_bytes()
            if again == written:
                break
            written = again
    except OSError:
        return b""
    return written


def _name(written: bytes) -> str | None:
    """The phase name at the file's start; None for a file never marked (empty, or zeros)."""
    return written[:_WIDTH].decode("ascii", "replace").strip(" \x00") or None
