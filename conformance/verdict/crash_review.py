"""The crash review: no item is judged a crash (or a timeout) on the word of one dead worker.

A worker can die on a fine item because an earlier item corrupted the backend's heap (OpenVINO
does on some invalid requests it accepts); reporting that victim made runs red at random. So
after the run, within a budget of seconds:

1. every item a worker died on or overran runs again alone in a fresh worker: if it dies again
   the crash is its own (``confirmed``), else it takes the rerun's verdict (``not reproduced``);
2. for each of those, the items its worker ran before it are replayed, then it, in a fresh
   worker: the last 1, 2, 4, ... until a replay kills it, then a bisection for the shortest
   deadly run (so the cost grows with how far back the culprit is). That run's first item, the
   culprit, becomes a crash ("leaves the process broken") with a reproducer of the two;
3. what the budget cuts short is said: an item not run again stays a crash, ``unconfirmed``
   (never silently green); a search cut short leaves the victim's rerun verdict and says so.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TextIO

from conformance.engine import settings
from conformance.engine.deaths import Death
from conformance.engine.pool import Pool
from conformance.engine.worker import Job
from conformance.results.records import CrashRecord, CrashReviewRecord
from conformance.results.result import Result

DEATHS = ("crash", "timeout")


@dataclass
class Budget:
    """Seconds the review may spend in a run; each step is estimated before it is taken."""

    seconds: float
    started: float = field(default_factory=time.monotonic)

    @property
    def spent(self) -> float:
        return time.monotonic() - self.started

    def allows(self, estimate_s: float) -> bool:
        return self.spent + estimate_s <= self.seconds


@dataclass
class Replayer:
    """Runs sequences of jobs, each in a fresh worker, and returns the last job's result."""

    pool: Pool
    #: seconds an item took in the run (its estimate for the budget)
    cost: Callable[[Job], float]
    collected: dict[str, Result] = field(default_factory=dict)
    replays: int = 0
    items: int = 0

    def estimate(self, jobs: Sequence[Job]) -> float:
        return settings.ENGINE.review_start_s + sum(self.cost(job) for job in jobs)

    def last_of(self, jobs: Sequence[Job]) -> Result:
        for slot in self.pool.slots:  # a fresh worker for every sequence
            slot.retire()
        self.collected.clear()
        self.pool.serve(jobs)
        self.replays += 1
        self.items += len(jobs)
        return self.collected[jobs[-1].key]


@dataclass
class Review:
    """The results the review changed, by result key, and what it did."""

    changed: dict[str, Result]
    record: CrashReviewRecord


#: Makes the review's pools: (on_result, replay) -> Pool. For reruns (replay False), as many
#: workers as the run had, each replaced after one job; for replays, one worker, in order.
PoolMaker = Callable[[Callable[[Result], None], bool], Pool]


def review(
    deaths: Sequence[Death],
    raw: Callable[[str], Result | None],
    known: Callable[[Result], str | None],
    make_pool: PoolMaker,
    cost: Callable[[Job], float],
    budget_s: float,
    stream: TextIO,
) -> Review:
    """Rerun each death alone, then look for the culprits of those that did not reproduce.
    ``raw``: a run's result by key before known issues; ``known``: the known issue that claims a
    result, if any (such a death is not run again: the entry already says the item crashes)."""
    budget = Budget(budget_s)
    changed = {died.job.key: _known(died, issue) for died in deaths if (issue := known(died.result))}
    unclaimed = [died for died in deaths if died.job.key not in changed]
    print(
        f"crash review: {len(deaths)} item(s) died in the run, {len(changed)} of them as a known issue "
        f"says; the other {len(unclaimed)} run again, each alone in a fresh worker",
        file=stream,
    )
    changed.update(_rerun_all(unclaimed, make_pool, cost, budget, stream))
    replayer = Replayer(
        make_pool(lambda result: replayer.collected.__setitem__(result.key, result), True), cost
    )
    try:
        for died in unclaimed:
            victim = changed[died.job.key]
            if victim.crash is None or victim.crash["outcome"] != "not reproduced":
                continue
            found = _search(died, replayer, budget, stream)
            changed[died.job.key] = _with_search(victim, found)
            culprit = raw(found.culprit.key) if found.culprit is not None else None
            if culprit is not None:
                changed[culprit.key] = _culprit_result(culprit, died, found)
    finally:
        replayer.pool.close()
    outcomes = [result.crash["outcome"] for result in changed.values() if result.crash is not None]
    reruns = sum(1 for died in unclaimed if "rerun" in (changed[died.job.key].crash or {}))
    record: CrashReviewRecord = {
        "budget_s": budget_s,
        "spent_s": round(budget.spent, 3),
        "reruns": reruns,
        "replays": replayer.replays,
        "replayed_items": replayer.items + reruns,
        "confirmed": outcomes.count("confirmed"),
        "not_reproduced": outcomes.count("not reproduced"),
        "unconfirmed": outcomes.count("unconfirmed"),
        "culprits": outcomes.count("culprit"),
        "known": outcomes.count("known"),
    }
    print(_summary(record), file=stream)
    return Review(changed, record)


def _known(died: Death, issue: str) -> Result:
    """A death a known issue claims: not run again, and said so."""
    crashed = died.result
    assert crashed.crash is not None
    message = f"{crashed.message}\nnot run again alone: known issue {issue} says this item crashes"
    return replace(crashed, message=message, crash={**crashed.crash, "outcome": "known"})


def _rerun_all(
    deaths: Sequence[Death],
    make_pool: PoolMaker,
    cost: Callable[[Job], float],
    budget: Budget,
    stream: TextIO,
) -> dict[str, Result]:
    """Every death run again alone in a fresh worker, as far as the budget goes; the result each
    is judged by, by key."""
    collected: dict[str, Result] = {}
    pool = make_pool(lambda result: collected.__setitem__(result.key, result), False)
    workers = pool.size
    chosen: list[Death] = []
    estimate = 0.0
    for died in deaths:
        overrun = pool.limits.timeout if died.status == "timeout" else 0.0
        estimate += (settings.ENGINE.review_start_s + cost(died.job) + overrun) / workers
        if budget.allows(estimate):
            chosen.append(died)
    for died in chosen:
        print(
            f"  {died.job.key}: {died.status} after {len(died.before)} items; running it alone", file=stream
        )
    try:
        pool.process([died.job for died in chosen])
    finally:
        pool.close()
    unrun = f"not run again alone, the crash review's {budget.seconds:g} s were spent"
    slow = f"not run again alone: its fresh worker did not start within {pool.limits.start_limit:g} s"
    # a worker too slow to start says nothing of the item, which never ran (see Pool._overran_start)
    return {
        died.job.key: _judged_again(died, None, slow)
        if died.job.key in pool.slow_starts
        else _judged_again(died, collected.get(died.job.key), unrun)
        for died in deaths
    }


def _summary(record: CrashReviewRecord) -> str:
    outcomes = ("confirmed", "not_reproduced", "unconfirmed", "culprits", "known")
    said = ", ".join(f"{record[name]} {name.replace('_', ' ')}" for name in outcomes)  # type: ignore[literal-required]
    return (
        f"crash review: {said}; {record['reruns']} rerun(s) and {record['replays']} replay(s), "
        f"{record['replayed_items']} items run in all, {record['spent_s']:.0f} s of the "
        f"{record['budget_s']:g} s budget"
    )


def _judged_again(died: Death, again: Result | None, unrun: str) -> Result:
    """The dead item's result once run again alone: confirmed, not reproduced (the rerun's
    verdict), or, when ``again`` is None (``unrun`` says why), unconfirmed."""
    crashed, evidence = died.result, died.result.crash
    assert evidence is not None
    if again is None:
        return replace(crashed, message=f"{crashed.message}\nunconfirmed: {unrun}")
    if again.status in DEATHS:
        said = again.crash["exit"] if again.crash else again.status
        message = f"{crashed.message}\nconfirmed: run again alone in a fresh worker, it died again ({said})"
        confirmed: CrashRecord = {**evidence, "outcome": "confirmed", "rerun": again.status}
        return replace(crashed, message=message, crash=confirmed)
    where = f"in phase {evidence['phase']}, " if evidence["phase"] else ""
    message = (
        f"{again.message}\n(its worker died once on it in the run: {evidence['exit']}, {where}after "
        f"{len(died.before)} items on {evidence['worker'] or 'that worker'}; run again alone in a fresh "
        "worker, it gave the verdict above)"
    )
    passed: CrashRecord = {**evidence, "outcome": "not reproduced", "rerun": again.status}
    return replace(again, message=message, crash=passed)


def _with_search(victim: Result, found: Found) -> Result:
    """The victim's result with what the search for its culprit found."""
    assert victim.crash is not None
    said = f"the item that broke the worker: {found.key} ({found.words})" if found.key else found.words
    crash: CrashRecord = {**victim.crash, "culprit": found.key, "search": found.words}
    return replace(victim, message=f"{victim.message}\n{said}", crash=crash)


@dataclass(frozen=True)
class Found:
    """What the search for a victim's culprit found, and what it did, in words."""

    culprit: Job | None
    words: str
    #: the shortest sequence found before the victim that still kills it (culprit first)
    sequence: tuple[Job, ...] = ()

    @property
    def key(self) -> str | None:
        return self.culprit.key if self.culprit is not None else None


def _search(died: Death, replayer: Replayer, budget: Budget, stream: TextIO) -> Found:
    """The item that left the worker broken for ``died`` (see the module's docstring)."""
    before, victim = died.before, died.job
    if not before:
        return Found(None, "nothing to search: it was its worker's first item")
    steps = replayer.replays

    def kills(count: int) -> bool | None:
        sequence = [*before[-count:], victim]
        if not budget.allows(replayer.estimate(sequence)):
            return None
        print(f"  {victim.key}: replaying the {count} item(s) before it, then it", file=stream)
        return replayer.last_of(sequence).status in DEATHS

    clean, deadly = 0, 0
    while not deadly:
        count = min(max(1, clean * 2), len(before))
        verdict = kills(count)
        if verdict is None:
            done = replayer.replays - steps
            return Found(None, f"cut short by the crash review's budget after {done} replays")
        if verdict:
            deadly = count
        elif count == len(before):
            return Found(
                None,
                f"not reproduced: replaying all {count} items its worker ran before it, then it, in a fresh "
                "worker did not kill the worker (a crash that depends on more than the order of items)",
            )
        else:
            clean = count
    while deadly - clean > 1:
        middle = (clean + deadly) // 2
        verdict = kills(middle)
        if verdict is None:
            break  # the shortest deadly run found so far still names a culprit, less precisely
        clean, deadly = (clean, middle) if verdict else (middle, deadly)
    sequence = tuple(before[-deadly:])
    words = (
        f"found in {replayer.replays - steps} replays: of the {len(before)} items its worker ran before "
        f"it, the last {deadly} then it kill a fresh worker, the last {clean} then it do not"
    )
    return Found(sequence[0], words, sequence)


def _culprit_result(culprit: Result, died: Death, found: Found) -> Result:
    """The culprit's result: a crash of its own, which names the item that died after it."""
    victim = died.result
    assert victim.crash is not None
    between = len(found.sequence) - 1
    after = "the next item" if between == 0 else f"an item {between + 1} items later"
    record: CrashRecord = {
        **victim.crash,
        "outcome": "culprit",
        "victim": died.job.key,
        "search": found.words,
        "own_status": culprit.status,
        "own_message": culprit.message,
    }
    message = (
        f"leaves the process broken: {after} dies ({died.job.key}: {victim.crash['exit']} in the run, "
        f"and again when replayed after this item in a fresh worker, though it passes alone); "
        f"its own verdict: {culprit.status}: {culprit.message.splitlines()[0] if culprit.message else ''}"
    )
    return replace(culprit, status="crash", message=message, crash=record, known_issue=None, reproducer=None)
