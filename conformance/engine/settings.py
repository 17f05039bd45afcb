"""The engine's settings in one place: how the pool feeds, times, stops and replaces its workers,
which items run first, what an item is reckoned to need in memory, and the crash review's and the
progress line's pacing. Each field says why it has its value; a test or a benchmark that needs
another replaces :data:`ENGINE` (``dataclasses.replace``). What a user chooses is an option.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EngineSettings:
    #: Jobs in flight per worker, the running one first: with one waiting, two workers of fast
    #: items waited for the parent before 30 % of their jobs (its turn comes late on two cores).
    depth: int = 8
    #: The work (at the last item's pace) that may wait in a worker's pipe: a slow target's items
    #: wait one at a time, so no worker holds seconds of jobs at a run's end while another idles.
    waiting_ms: float = 5.0
    #: The largest job (pickled) that may wait behind a running one: ``depth - 1`` of them stay
    #: within the socket's buffer (208 KiB on Linux), past which a send to a hung worker blocks.
    waiting_bytes: int = 16 * 1024
    #: The longest the parent leaves results unread while every busy worker has work waiting: a
    #: wake-up per result costs the parent's share of two busy cores.
    nap_ms: float = 2.0
    #: Allocations between collections of the youngest objects while the pool serves (Python's
    #: default is 700): the results a run keeps made the full collections this triggers walk ever
    #: more of them, 2.0 s of the 10 s the run's process spent serving the main job at -j 2, each a
    #: pause the workers waited out.
    young_threshold: int = 10_000
    #: How often, at most, the pool looks whether a busy worker is alive: its sentinel stays quiet
    #: if a process it started outlives it.
    poll_s: float = 1.0
    #: The limit on a worker's start and on loading an adapter for an item: ``start_s``, or
    #: ``start_timeouts`` times --timeout if longer. Timed as the item, a backend's import made the
    #: first item of each worker a timeout.
    start_s: float = 60.0
    start_timeouts: int = 10
    #: A run of this many jobs starts the zygote with its first workers: it will replace workers
    #: almost surely. A smaller run starts it at its first replacement, if it needs one.
    eager_zygote: int = 1000
    #: How long the first workers wait for the zygote's harness before they are spawned instead.
    zygote_wait_s: float = 120.0
    #: A worker is replaced after this many jobs, or once it holds more than this after a job (what
    #: a long-lived backend may accumulate). Not by count alone: a replacement imports its
    #: backends again, while a worker's memory stays near 500 MiB over thousands of jobs.
    recycle_after: int = 50_000
    recycle_above_mib: int = 2048
    #: Items of each target that run first, spread over its items, so that the ETA prices every
    #: target early: at least ``sample``, and at least ``sample_share`` of the target's items.
    sample: int = 40
    sample_share: float = 0.05
    #: How long a worker asked to stop (or killed) may take to exit: between jobs it exits at once.
    stop_s: float = 5.0
    #: Outside Linux (no parent-death signal), how often a child looks whether its parent has
    #: changed: the longest a worker outlives a run killed there.
    watch_s: float = 0.5
    #: An item needs its runs' data ``data_copies`` times over at worst (the input, the
    #: reference's pieces, the backend's outputs, one more on the way in or out). From
    #: ``large_bytes`` it runs alone on the machine without steady-state repeats; below
    #: ``checked_bytes`` it is not checked against the memory available (a read of /proc).
    data_copies: int = 4
    large_bytes: int = 1 << 30
    checked_bytes: int = 64 << 20
    #: Address space a worker needs besides its items' data (the interpreter, the backends'
    #: libraries, their thread stacks), added to --memory-budget for its cap: workers of every
    #: built-in backend peaked at 1.7 GB.
    address_space_base: int = 4 << 30
    #: Workers in a row that may die before their first job (none in a healthy run) before the run stops.
    unstarted_limit: int = 3
    #: How many of the items a worker ran before it died a crash result names (all are replayed).
    named_before: int = 10
    #: What starting a fresh worker and loading a backend costs, for the crash review's budget.
    review_start_s: float = 3.0
    #: The progress line's most frequent redraw on a terminal: one per result costs more than it is worth.
    redraw_s: float = 0.1
    #: How long after a swallowed Ctrl-C it is delivered again: once the code that swallowed it returned.
    again_s: float = 0.05

    def start_limit(self, timeout: float) -> float:
        """The limit on a worker's start (and on importing a backend) under ``--timeout``."""
        return max(self.start_s, self.start_timeouts * timeout)


ENGINE = EngineSettings()
