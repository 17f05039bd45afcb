"""The engine's processes end with the run, however it ends: SIGKILL, SIGTERM, a crash.

A worker hung in a backend sits in its own process group, so a run killed with SIGKILL left it
(and ``multiprocessing``'s resource tracker) running under init. So every process the engine
starts is tied to its parent with the kernel's parent-death signal (``prctl(PR_SET_PDEATHSIG)``),
set first thing in the child; then the parent is checked again, as one that ended before the call
sends no signal. The signal comes when the *thread* that started the child ends, so only main
threads' children are tied. Outside Linux a thread of the child checks its parent every
``watch_s`` instead.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time

from conformance.engine import settings

#: prctl's request to set the parent-death signal (linux/prctl.h)
_PR_SET_PDEATHSIG = 1


def _parent_death_signal() -> bool:
    """Ask the kernel for SIGKILL when this process's parent ends; False where it cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _end() -> None:
    """End this process as the parent-death signal would: nothing of it is worth keeping."""
    os.kill(os.getpid(), signal.SIGKILL)


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(settings.ENGINE.watch_s)
    _end()


def tie(parent: int) -> None:
    """End this process when ``parent``, which started it, ends: at once if it already has."""
    if not _parent_death_signal():
        threading.Thread(target=_watch, args=(parent,), name="conformance-lifeline", daemon=True).start()
    if os.getppid() != parent:
        _end()


def tie_to_spawner() -> None:
    """:func:`tie` this process, started afresh by ``multiprocessing``, to the process that did."""
    parent = multiprocessing.parent_process()
    if parent is not None and parent.pid is not None:
        tie(parent.pid)


def tie_forks() -> None:
    """From now on, tie each child this process's main thread forks (a backend's helper) to it.
    Another thread's child would be killed when that thread ends; one started by ``subprocess`` or
    native code runs no Python to tie itself, and ends with the worker's process group."""
    if not sys.platform.startswith("linux"):
        return
    worker, main = os.getpid(), threading.get_ident()

    def forking() -> None:
        _forker[0] = os.getpid()  # in the parent: a helper's own children are its business

    def tied() -> None:
        if _forker[0] == worker and threading.get_ident() == main:  # the child keeps its thread's id
            with contextlib.suppress(Exception):
                tie(worker)

    os.register_at_fork(before=forking, after_in_child=tied)


#: the process that forks, as the child sees it (see tie_forks)
_forker = [0]
