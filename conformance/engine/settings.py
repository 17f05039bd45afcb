"""The engine's settings, in one place: how the pool feeds, times, stops and replaces its workers,
which items run first, what an item is reckoned to need in memory, and the crash review's and
the progress line's pacing. What a user chooses is in the option table (:mod:`conformance.options`);
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
    #: How long a worker asked to stop (or killed) may take to exit before the pool kills it (or
    #: gives up waiting): a worker between jobs exits at once, one in a backend's teardown soon.
    stop_s: float = 5.0
    #: Outside Linux (no parent-death signal), how often a child looks whether its parent has
    #: changed: the longest a worker outlives a run killed there.
    watch_s: float = 0.5
    #: The memory an item needs: its runs' data ``data_copies`` times over at worst (the input, the
    #: reference's pieces, the backend's outputs, and one more a backend makes on the way in or
    #: out). An item needing ``large_bytes`` or more runs alone on the machine, on the pool's first
    #: worker, without steady-state repeats; one below ``checked_bytes`` is not checked against
    #: the memory available (the check reads /proc for nothing).
    data_copies: int = 4
    large_bytes: int = 1 << 30
    checked_bytes: int = 64 << 20
    #: Address space a worker needs besides its items' data (the interpreter, the backends'
    #: libraries, their thread stacks): with --memory-budget a worker is capped at the budget plus
    #: this. Workers of every built-in backend peaked at 1.7 GB.
    address_space_base: int = 4 << 30
    #: Workers in a row that may die before their first job (none in a healthy run: a backend's
    #: crash comes in a job) before the run stops.
    unstarted_limit: int = 3
    #: How many of the items a worker ran before it died a crash result names (all are replayed).
    named_before: int = 10
    #: What starting a fresh worker and loading a backend costs, for the crash review's estimates
    #: of what its budget allows.
    review_start_s: float = 3.0
    #: The progress line is redrawn at most this often on a terminal: a redraw per result would
    #: cost the parent more than the line is worth.
    redraw_s: float = 0.1
    #: How long after a swallowed Ctrl-C (raised where Python could only report it) it is
    #: delivered again: long enough for the code that swallowed it to have returned.
    again_s: float = 0.05


ENGINE = EngineSettings()
