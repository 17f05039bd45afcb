"""Ctrl-C, SIGTERM and SIGHUP, one way for every verb, and the machine's own failures.

Stopping a long run must cost nothing that finished and must say how to go on. The engines stop
their work at the first signal (:func:`stopping`), still write their results marked interrupted,
and return; the front door writes its report inside :func:`boundary`, which prints what to type
to finish and exits with 128 + the signal (130 for Ctrl-C, as a shell reports it). A second
signal while what finished is written does not cut that short. A Ctrl-C that Python swallows (in
a gc callback or a ``__del__``: Hypothesis has one) is delivered again, so one always stops. The
boundary also ends a verb the machine stopped (a full disk, memory exhausted, a folder that cannot
be written) with one line naming the cause and Exit.ENVIRONMENT, never a traceback.
"""

from __future__ import annotations

import _thread
import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import FrameType

from conformance.engine import settings
from conformance.errors import EnvironmentFailure, Exit, machine_failure

#: the exit status of a verb Ctrl-C interrupted (128 + SIGINT)
EXIT_STATUS = 130
#: the signals that stop a verb as Ctrl-C does (a CI system's cancel, a closed terminal)
STOPPING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@dataclass
class _Received:
    """The first stopping signal a verb received (None: none yet, or a plain KeyboardInterrupt)."""

    signal: int | None = None
    #: the verb has ended: a signal now (the process exiting) changes nothing
    ended: bool = False


_received = _Received()


def _stop(signum: int, frame: FrameType | None) -> None:
    """A stopping signal: the first raises KeyboardInterrupt where the verb is; a later one is only
    noted, since raising while what finished is written would lose it."""
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
    """SIGINT, SIGTERM and SIGHUP stop the body as Ctrl-C does (not outside the main thread). After
    it, the handlers before are restored, or (``restore`` False: the process exits next) told to do
    nothing, so a late signal cannot kill a verb that has ended."""
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


@dataclass
class Stop:
    """Whether the work in :func:`stopping` was cut short by Ctrl-C."""

    happened: bool = False


@contextlib.contextmanager
def stopping() -> Iterator[Stop]:
    """The engine's side: a Ctrl-C ends the body, not the engine, which writes what finished."""
    stop = Stop()
    try:
        with _not_swallowed():
            yield stop
    except KeyboardInterrupt:
        stop.happened = True


@dataclass
class Verb:
    """A verb inside :func:`boundary`: the body sets ``status`` and calls :meth:`ended` with its
    engine's ``interrupted``; after it, an interrupted verb's ``status`` is 128 + the signal (or
    Exit.ENVIRONMENT) and ``advice`` says how to finish."""

    status: int = 0
    interrupted: bool = False
    advice: str = ""

    def ended(self, interrupted: bool) -> None:
        self.interrupted = self.interrupted or interrupted


@contextlib.contextmanager
def boundary(advice: Callable[[], str], say: Callable[[str], None] | None = None) -> Iterator[Verb]:
    """The front door's side, around everything a verb does once its input is accepted.
    ``advice`` is asked only when interrupted (or stopped by the machine), for the command that
    finishes the work; ``say`` prints it (default: to stderr)."""
    verb = Verb()
    say = say or (lambda text: print(text, file=sys.stderr))
    try:
        with _not_swallowed():
            yield verb
    except KeyboardInterrupt:
        verb.interrupted = True
    except (OSError, MemoryError, EnvironmentFailure) as error:
        cause = machine_failure(error)
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
    """The finishing advice after the machine stopped a verb (perhaps unable to read the folder)."""
    try:
        return advice()
    except (OSError, MemoryError) as error:
        return f"what finished is in the journal ({error})"


@contextlib.contextmanager
def _not_swallowed() -> Iterator[None]:
    """Deliver again a KeyboardInterrupt Python could only report as unraisable (raised in a gc
    callback or a destructor): from a thread a moment later, once the code that swallowed it has
    returned (delivered at once, it would be lost again)."""
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
