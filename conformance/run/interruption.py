"""Ctrl-C, one way for every verb (``run``, ``explore``, ``certify``, the pytest plugin).

Stopping a long run must cost nothing that finished and must say how to go on. The engines
stop their work at the first Ctrl-C (:func:`stopping`) and still write their results file,
marked interrupted, and return normally with ``interrupted`` set; the front door then writes
the report as it would for a finished run, inside :func:`boundary`, which ends the verb: it
prints what to type to finish and sets the exit status to 130 (128 + SIGINT, what a shell
reports for a program Ctrl-C ended, so a script sees the interruption). A Ctrl-C that lands
outside an engine's work (while adapters load, while the report is written) ends the verb at
the boundary the same way, without a traceback; whatever finished is in the journal by then.

A Ctrl-C whose KeyboardInterrupt is raised inside a garbage-collector callback or a ``__del__``
(Hypothesis, which explore draws with, has such a callback) is swallowed by Python, "ignored":
an exploration once ran on for its whole 300 s budget after one. Within either context manager
a swallowed Ctrl-C is delivered again (:func:`_not_swallowed`), so one Ctrl-C always stops.
"""

from __future__ import annotations

import _thread
import contextlib
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

#: the exit status of an interrupted verb
EXIT_STATUS = 130
#: how long after a swallowed Ctrl-C it is delivered again, seconds
_AGAIN_S = 0.05


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
    :meth:`ended` with its engine's ``interrupted``; after the boundary, ``status`` is 130 and
    ``advice`` says what to do when it was interrupted."""

    status: int = 0
    interrupted: bool = False
    advice: str = ""

    def ended(self, interrupted: bool) -> None:
        self.interrupted = self.interrupted or interrupted


@contextlib.contextmanager
def boundary(advice: Callable[[], str], say: Callable[[str], None] | None = None) -> Iterator[Verb]:
    """The front door's side, around everything a verb does once its input is accepted.

    ``advice`` is asked only when interrupted, for the command that finishes the work (it may
    look at what is on disk by then); ``say`` prints it (default: to stderr).
    """
    verb = Verb()
    try:
        with _not_swallowed():
            yield verb
    except KeyboardInterrupt:
        verb.interrupted = True
    if verb.interrupted:
        verb.status = EXIT_STATUS
        verb.advice = advice()
        (say or _to_stderr)(verb.advice)


@contextlib.contextmanager
def _not_swallowed() -> Iterator[None]:
    """Deliver again a KeyboardInterrupt that Python could only report as unraisable (raised in
    a gc callback or a destructor): as a new Ctrl-C a moment later, from a thread, once the code
    that swallowed it has returned (delivered at once, it would land in this hook and be lost
    again; one that lands inside such code again is delivered again)."""
    previous = sys.unraisablehook

    def hook(unraisable: sys.UnraisableHookArgs) -> None:
        if unraisable.exc_type is not None and issubclass(unraisable.exc_type, KeyboardInterrupt):
            again = threading.Timer(_AGAIN_S, _thread.interrupt_main)
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
