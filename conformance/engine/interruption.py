"""Ctrl-C, SIGTERM and SIGHUP, one way for every verb (``run``, ``explore``, ``certify``, the
pytest plugin), and the machine's own failures.

Stopping a long run must cost nothing that finished and must say how to go on. The engines
stop their work at the first Ctrl-C (:func:`stopping`) and still write their results file,
marked interrupted, and return normally with ``interrupted`` set; the front door then writes
the report as it would for a finished run, inside :func:`boundary`, which ends the verb: it
prints what to type to finish and sets the exit status to 130 (128 + SIGINT, what a shell
reports for a program Ctrl-C ended, so a script sees the interruption). A CI system's cancel or
time-out (SIGTERM) and a closed terminal (SIGHUP) take the same path (:func:`signals`) and end
with 128 + their number. A second signal while what finished is being written does not cut
that short: the workers are ended at once anyway (the engine kills them when interrupted). A
Ctrl-C that lands
outside an engine's work (while adapters load, while the report is written) ends the verb at
the boundary the same way, without a traceback; whatever finished is in the journal by then.

A Ctrl-C whose KeyboardInterrupt is raised inside a garbage-collector callback or a ``__del__``
(Hypothesis, which explore draws with, has such a callback) is swallowed by Python, "ignored",
and the verb would run on to its end. Within either context manager
a swallowed Ctrl-C is delivered again (:func:`_not_swallowed`), so one Ctrl-C always stops.

The boundary also ends a verb the machine stopped (a full disk, memory exhausted, an output
folder that cannot be written: :func:`environment_failure`) with one line naming the cause and
the command that finishes, and :attr:`conformance.errors.Exit.ENVIRONMENT`, never a traceback.
"""

from __future__ import annotations

import _thread
import contextlib
import errno
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import FrameType

from conformance.engine import settings
from conformance.errors import EnvironmentFailure, Exit

#: the exit status of a verb Ctrl-C interrupted (128 + SIGINT)
EXIT_STATUS = 130
#: the signals that stop a verb as Ctrl-C does: a terminal's Ctrl-C, a CI system's cancel or
#: time-out, a closed terminal
STOPPING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
#: the errors (by errno) that are the machine's, not the input's: what a verb's boundary turns
#: into one line and Exit.ENVIRONMENT
_MACHINE = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ENOMEM: "out of memory",
    errno.EMFILE: "too many open files",
    errno.EIO: "an input/output error",
}


@dataclass
class _Received:
    """The first stopping signal a verb received (None: none yet, or only a plain
    KeyboardInterrupt, which counts as SIGINT)."""

    signal: int | None = None
    #: the verb has ended: a signal now (the process exiting) changes nothing
    ended: bool = False


_received = _Received()


def _stop(signum: int, frame: FrameType | None) -> None:
    """A stopping signal: the first raises KeyboardInterrupt where the verb is (the Ctrl-C path);
    a later one, while what finished is written, is noted and changes nothing, since raising there
    would lose the results being written."""
    if _received.ended:
        return
    if _received.signal is None:
        _received.signal = signum
        raise KeyboardInterrupt
    print(
        f"{signal.Signals(signum).name} again: still writing what finished (SIGKILL stops at once; "
        "--resume then finishes from the journal)",
        file=sys.stderr,
    )


@contextlib.contextmanager
def signals(restore: bool = True) -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP stop the body as Ctrl-C does (see the module's docstring).
    After it, the handlers before are restored, or (``restore`` False: the process exits next)
    kept and told to do nothing, so a cancel's late signal cannot turn a verb that has ended
    into a killed process. Outside the main thread (where Python allows no handler) the body
    runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _received.signal, _received.ended = None, False
    # one ignored when the verb started (nohup's SIGHUP, a background job's SIGINT) stays ignored
    before = {
        number: signal.signal(number, _stop)
        for number in STOPPING
        if signal.getsignal(number) is not signal.SIG_IGN
    }
    try:
        yield
    finally:
        if restore:
            for number, handler in before.items():
                signal.signal(number, handler)
            _received.signal = None
        _received.ended = not restore


def interrupted_status() -> int:
    """What an interrupted verb exits with: 128 + the signal that stopped it."""
    return 128 + (_received.signal or signal.SIGINT)


def environment_failure(error: BaseException) -> str | None:
    """What the machine did, when ``error`` is its failure rather than the suite's or the
    input's: a full disk, memory exhausted, a path that cannot be written; else None."""
    if isinstance(error, MemoryError):
        return "out of memory (MemoryError: the machine or an address-space limit refused an allocation)"
    if isinstance(error, EnvironmentFailure):
        return str(error)
    if isinstance(error, OSError) and error.errno in _MACHINE:
        where = f" writing {error.filename}" if error.filename else ""
        return f"{_MACHINE[error.errno]}{where} ({error.strerror or error})"
    return None


@dataclass
class Stop:
    """Whether the work in :func:`stopping` was cut short by Ctrl-C."""

    happened: bool = False


@contextlib.contextmanager
def stopping() -> Iterator[Stop]:
    """The engine's side: a Ctrl-C in the body ends the body, not the engine, which goes on to
    write what finished; ``happened`` says it was stopped."""
    stop = Stop()
    try:
        with _not_swallowed():
            yield stop
    except KeyboardInterrupt:
        stop.happened = True


@dataclass
class Verb:
    """A verb running inside :func:`boundary`: the body sets ``status`` (0 or 1) and calls
    :meth:`ended` with its engine's ``interrupted``; after the boundary, ``status`` is 128 + the
    signal (or Exit.ENVIRONMENT) and ``advice`` says what to do when it was interrupted."""

    status: int = 0
    interrupted: bool = False
    advice: str = ""

    def ended(self, interrupted: bool) -> None:
        self.interrupted = self.interrupted or interrupted


@contextlib.contextmanager
def boundary(advice: Callable[[], str], say: Callable[[str], None] | None = None) -> Iterator[Verb]:
    """The front door's side, around everything a verb does once its input is accepted.

    ``advice`` is asked only when interrupted (or stopped by the machine), for the command that
    finishes the work (it may look at what is on disk by then); ``say`` prints it (default: to
    stderr).
    """
    verb = Verb()
    say = say or _to_stderr
    try:
        with _not_swallowed():
            yield verb
    except KeyboardInterrupt:
        verb.interrupted = True
    except (OSError, MemoryError, EnvironmentFailure) as error:
        cause = environment_failure(error)
        if cause is None:
            raise
        verb.status, verb.advice = Exit.ENVIRONMENT, _after_failure(advice)
        say(f"stopped: {cause}; {verb.advice}")
        return
    if verb.interrupted:
        verb.status = interrupted_status()
        verb.advice = advice()
        say(verb.advice)


def _after_failure(advice: Callable[[], str]) -> str:
    """The finishing advice after the machine stopped a verb (itself perhaps unable to read the
    folder)."""
    try:
        return advice()
    except (OSError, MemoryError) as error:
        return f"what finished is in the journal ({error})"


@contextlib.contextmanager
def _not_swallowed() -> Iterator[None]:
    """Deliver again a KeyboardInterrupt that Python could only report as unraisable (raised in
    a gc callback or a destructor): as a new Ctrl-C a moment later, from a thread, once the code
    that swallowed it has returned (delivered at once, it would land in this hook and be lost
    again; one that lands inside such code again is delivered again)."""
    previous = sys.unraisablehook

    def hook(unraisable: sys.UnraisableHookArgs) -> None:
        if unraisable.exc_type is not None and issubclass(unraisable.exc_type, KeyboardInterrupt):
            number, _received.signal = _received.signal or signal.SIGINT, None  # it must raise again
            again = threading.Timer(settings.ENGINE.again_s, _thread.interrupt_main, (number,))
            again.daemon = True
            again.start()
            return
        previous(unraisable)

    sys.unraisablehook = hook
    try:
        yield
    finally:
        sys.unraisablehook = previous


def _to_stderr(text: str) -> None:
    print(text, file=sys.stderr)
