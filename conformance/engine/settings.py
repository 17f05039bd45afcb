"""The engine's settings, in one place: how the pool feeds, times and replaces its workers, and
which items run first. What a user chooses is in the option table (:mod:`conformance.options`);
docs/architecture.md lists these with their values.

Each field says why it has its value. A test or a benchmark that needs another value replaces
:data:`ENGINE` (``dataclasses.replace``); the engine reads it where it uses it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EngineSettings:
    #: Jobs in flight per worker: the running one and the rest waiting in its pipe. With one
    #: waiting, two workers of fast items waited for the parent before 30 % of their jobs (the
    #: parent serves both, and its turn comes late on two busy cores).
    depth: int = 8
    #: How much of a worker's work (at its last item's pace) may wait in its pipe: a slow target's
    #: items wait one at a time, so no worker holds seconds of jobs at a run's end while the other
    #: has none left.
    waiting_ms: float = 5.0
    #: The largest job (pickled) that may wait behind a running one: ``depth - 1`` of them stay
    #: within the socket's buffer (208 KiB by default on Linux), past which the parent's send
    #: would block on a worker hung on its item. A larger job waits for an idle worker.
    waiting_bytes: int = 16 * 1024
    #: The longest the parent leaves results unread while every busy worker has work waiting in
    #: its pipe: a wake-up per result costs the parent's share of two busy cores.
    nap_ms: float = 2.0
    #: How often, at most, the pool looks whether a busy worker is still alive: a worker's
    #: sentinel stays quiet if a process it started outlives it.
    poll_s: float = 1.0
    #: The limit on a worker's start (its spawn or fork, loading its adapters, their prepare())
    #: and on loading an adapter for an item: ``start_s``, or ``start_timeouts`` times --timeout
    #: if longer. Neither is the item's time: timed as the item, a backend's import made the first
    #: item of each worker a timeout.
    start_s: float = 60.0
    start_timeouts: int = 10
    #: A run of this many jobs starts the zygote with its first workers: it will replace workers
    #: with near certainty. A smaller run starts it at its first replacement, and never pays for
    #: its imports if it needs none.
    eager_zygote: int = 1000
    #: How long the first workers wait for the zygote's harness before they are spawned instead.
    zygote_wait_s: float = 120.0
    #: A worker is replaced after this many jobs, or once it holds more than this much memory
    #: after a job (what a long-lived backend may accumulate). Not by count alone: each
    #: replacement imports its backends again, while a worker's memory stays near 500 MiB over
    #: thousands of jobs.
    recycle_after: int = 50_000
    recycle_above_mib: int = 2048
    #: Items of each target that run first, spread over its items, so that the ETA prices every
    #: target early: at least ``sample``, and at least ``sample_share`` of the target's items.
    sample: int = 40
    sample_share: float = 0.05


ENGINE = EngineSettings()
