"""The engine's processes end with the run, however it ends: SIGKILL, SIGTERM, a crash.

A worker hung in a backend (one that ignores SIGTERM too) sits in its own process group, so
nothing of the run's end reached it: a run killed with SIGKILL left it, and the resource tracker
of ``multiprocessing`` that waits for it, running under init for good. So every process the
engine starts is tied to the process that started it: the zygote and the workers spawned afresh
to the run, the workers forked by the zygote to the zygote, and what a worker forks (a backend's
helper) to the worker. The kernel's parent-death signal (``prctl(PR_SET_PDEATHSIG)``, Linux)
kills the child the moment its parent ends; it is set first thing in the child, then the
parent is looked at again: one that ended before the call has already handed the child to
another parent, and no signal is coming. The resource tracker ends by itself once every process
holding its pipe has.

The signal comes when the *thread* that started the child ends, not its process: the run starts
its processes from its main thread (which drives the pool), the zygote has no other thread, and a
worker ties only what its main thread forks (a thread of a backend's pool may end while the
worker goes on).

Where there is no ``prctl`` (not Linux: workers are spawned there, never forked), a thread of
the child looks every ``watch_s`` seconds (EngineSettings) whether its parent has changed.
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
    """From now on, tie each child this process's main thread forks (a backend's helper) to this
    process: it ends with the worker rather than living on under init. A child another thread
    forks is left alone (it would be killed when that thread ends), and so is one started by
    ``subprocess`` or native code, which runs no Python in the child: the pool ends those with
    the worker's process group (see :func:`conformance.engine.slot.stop_worker`)."""
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
