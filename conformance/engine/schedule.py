"""Which job goes to which worker next: the pool's scheduling policy, apart from its processes (as
pytest-xdist's scheduler protocol is apart from its nodes). Jobs run in the order given, but the
large ones (gigabytes, see :mod:`.memory`) go to the first worker alone: they run one at a time
on the machine anyway. A replay (the crash review's) runs exactly in the order given, the large
ones too. Jobs are handed out a level at a time: each worker its first, then each its second...
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from conformance.engine.worker import Job


class Worker(Protocol):
    """What the schedule sees of a worker: the jobs it holds and whether it may take another."""

    @property
    def inflight(self) -> deque[Job]: ...
    def has_room(self, depth: int | None = None) -> bool: ...


class Schedule:
    """The jobs not yet sent to a worker. ``in_order``: no job overtakes another (a replay)."""

    def __init__(self, in_order: bool = False) -> None:
        self.in_order = in_order
        self._queue: deque[Job] = deque()
        #: the large jobs, for the first worker alone
        self._large: deque[Job] = deque()

    def __len__(self) -> int:
        return len(self._queue) + len(self._large)

    @property
    def empty(self) -> bool:
        return not self._queue and not self._large

    def _line(self, job: Job) -> deque[Job]:
        return self._large if job.large and not self.in_order else self._queue

    def add(self, jobs: Iterable[Job]) -> None:
        """Queue ``jobs`` behind those queued, in the order given."""
        for job in jobs:
            self._line(job).append(job)

    def head(self) -> Job | None:
        """The job the next worker to ask will likely get (whose group a new worker serves)."""
        return self._large[0] if self._large else self._queue[0] if self._queue else None

    def upcoming(self, count: int) -> list[Job]:
        """The next jobs, the first large one first: what a new worker will likely serve."""
        return [*itertools.islice(self._large, 1), *itertools.islice(self._queue, count)]

    def queued(self) -> list[Job]:
        """Every job queued, the large ones first."""
        return [*self._large, *self._queue]

    def next_for(self, index: int) -> Job | None:
        """The next job for worker ``index``: the large ones go to the first alone."""
        if index == 0 and self._large:
            return self._large.popleft()
        return self._queue.popleft() if self._queue else None

    def give_back(self, job: Job) -> None:
        """A job taken but not sent (or sent and never started) goes back to the front."""
        self._line(job).appendleft(job)

    def drop_queued(self) -> list[Job]:
        """Take back every job not yet sent."""
        dropped = self.queued()
        self._queue, self._large = deque(), deque()
        return dropped

    def fill(self, workers: Sequence[Worker], depth: int, send: Callable[[int, Job], bool]) -> None:
        """Hand the workers their next jobs a level at a time (each its first, then each its second
        ...), so that a short queue (the pytest plugin's) is shared out. ``send(index, job)`` is
        False when worker ``index`` did not take ``job`` (given back) and takes no more now."""
        full: set[int] = set()
        for level in range(1, depth + 1):
            for index, worker in enumerate(workers):
                if index in full or len(worker.inflight) >= level or not worker.has_room(depth):
                    continue
                job = self.next_for(index)
                if job is None or not send(index, job):
                    full.add(index)
