"""The terminal streams a verb writes to, made safe against what shells and CI systems do to them:
a reader that stops early (``| head``), a closed terminal, a descriptor closed at start (``2>&-``)
or an encoding that cannot show a character must cost a verb its terminal output only, never the
run, its files or its exit status. The first write that fails points the descriptor at /dev/null,
unencodable characters are escaped, and a descriptor missing at start is opened on /dev/null.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import os
import sys
from collections.abc import Iterator
from typing import Any, TextIO

#: what a write to a stream whose reader went away (or whose terminal closed) fails with
_GONE = frozenset({errno.EPIPE, errno.EIO, errno.EBADF, errno.ECONNRESET, errno.ENXIO})


class Tolerant:
    """A text stream that outlives its reader: a write or flush that fails because the other end
    went away redirects the descriptor to /dev/null and is dropped; everything else is delegated."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        #: whether output was lost (the reader went away)
        self.lost = False

    def write(self, text: str) -> int:
        written: int = self._guarded(self._stream.write, text, default=len(text))
        return written

    def flush(self) -> None:
        self._guarded(self._stream.flush, default=None)

    def isatty(self) -> bool:
        return not self.lost and bool(self._guarded(self._stream.isatty, default=False))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    def _guarded(self, call: Any, *args: Any, default: Any) -> Any:
        if self.lost:
            return default
        try:
            return call(*args)
        except OSError as error:
            if error.errno not in _GONE:
                raise
        except ValueError:  # the file object itself was closed
            pass
        self.lost = True
        _to_null(self._stream)
        return default


def _to_null(stream: TextIO) -> None:
    """Point the stream's descriptor at /dev/null and flush there, so the exit's flush cannot fail."""
    with contextlib.suppress(OSError, ValueError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, stream.fileno())
        os.close(null)
        stream.flush()


def _open_missing_descriptors() -> None:
    """Open /dev/null on any of descriptors 0-2 that is closed: left closed, the next file opened
    (a journal, a worker's log) would take its number and receive what is printed."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            opened = os.open(os.devnull, os.O_RDWR)
            if opened != fd:  # a lower one was free too: it is handled on its own turn
                os.dup2(opened, fd)
                os.close(opened)


def _shown(error: UnicodeError) -> tuple[str | bytes, int]:
    """What a terminal stream writes for characters its encoding lacks: the surrogate escapes a
    path or an argument arrives as in a C locale go out as their own bytes (the name as typed),
    anything else as a backslash escape (``\\u2026`` for an ellipsis)."""
    if isinstance(error, UnicodeEncodeError):
        lacking = error.object[error.start : error.end]
        if all("\udc80" <= character <= "\udcff" for character in lacking):
            return bytes(ord(character) - 0xDC00 for character in lacking), error.end
    return codecs.backslashreplace_errors(error)


#: the error handler of the streams :func:`guarded` wraps
ERRORS = "conformance.shown"
codecs.register_error(ERRORS, _shown)


def _usable(stream: TextIO | None, fd: int) -> TextIO:
    """The stream to wrap (None if closed at start), escaping what its encoding lacks."""
    if stream is None:
        stream = open(fd, "w", encoding="utf-8", errors=ERRORS, closefd=False)  # noqa: SIM115
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        with contextlib.suppress(ValueError, OSError):
            reconfigure(errors=ERRORS)
    return stream


@contextlib.contextmanager
def guarded() -> Iterator[tuple[Tolerant, Tolerant]]:
    """sys.stdout and sys.stderr as :class:`Tolerant` streams for the body, restored after."""
    _open_missing_descriptors()
    before = sys.stdout, sys.stderr
    out, err = Tolerant(_usable(sys.stdout, 1)), Tolerant(_usable(sys.stderr, 2))
    sys.stdout, sys.stderr = out, err
    try:
        yield out, err
    finally:
        out.flush()
        err.flush()
        sys.stdout, sys.stderr = before
