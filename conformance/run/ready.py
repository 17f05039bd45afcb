"""Which of the workers' pipes and process sentinels have something to read: the pool asks on every
pass, and after each result it reads.

``multiprocessing.connection.wait`` (and ``Connection.poll``, which calls it) builds a selector
object in Python and registers each handle on every call; a run of 19,600 fast items at -j 1
makes 24,000 waits and 19,600 checks for a further result. A ``select.poll`` object made in C
for the call answers the same: the run's process took 4.5 s of CPU for that run with it, twice,
against 4.6 and 4.8 s before.
Same answers: a handle is ready when it has data or its other end is gone (any event but
writability counts, as the selector counted it). Where there is no ``poll`` (Windows), the
standard library's wait answers.
"""

from __future__ import annotations

import math
import select
from collections.abc import Sequence
from multiprocessing.connection import Connection, wait

#: Whether the platform has poll(2)
_POLL = hasattr(select, "poll")

#: What a handle is: a worker's (or the zygote's) connection, or a process sentinel's descriptor.
Handle = Connection | int


def ready(handles: Sequence[Handle], timeout: float) -> list[Handle]:
    """The ``handles`` that have something to read, waiting up to ``timeout`` seconds for one (an
    interrupted wait is resumed, and Ctrl-C raises, as in any system call)."""
    if not _POLL:
        found = wait(handles, timeout)
        return [handle for handle in handles if handle in found]
    poller = select.poll()
    by_descriptor: dict[int, Handle] = {}
    for handle in handles:
        descriptor = handle if isinstance(handle, int) else handle.fileno()
        by_descriptor[descriptor] = handle
        poller.register(descriptor, select.POLLIN)
    # whole milliseconds, rounded up: a wait shorter than one would return at once, again and again
    events = poller.poll(math.ceil(max(0.0, timeout) * 1000))
    return [by_descriptor[descriptor] for descriptor, _ in events]


def has_data(connection: Connection) -> bool:
    """Whether ``connection`` holds something unread, or its other end is gone (False once it is
    closed here)."""
    try:
        descriptor = connection.fileno()
        if not _POLL:
            return connection.poll()
    except (OSError, EOFError):
        return False
    poller = select.poll()
    poller.register(descriptor, select.POLLIN)
    return bool(poller.poll(0))
