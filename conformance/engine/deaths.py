"""A worker's death on an item: the evidence its crash or timeout result carries, and what the
crash review needs to replay it; and the result of an item whose worker never got to it. A worker
may have been broken by an earlier item (a backend that corrupts its heap on one request and dies
on the next), so a crash result names the worker, its phase, how many items it had run and the
last of them, and its last output; the pool keeps the whole sequence for the review.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from conformance.engine import phase, settings
from conformance.engine.item import pending_result
from conformance.engine.worker import Job
from conformance.errors import WorkerStartError
from conformance.results.records import CrashRecord
from conformance.results.result import Result, Timing

DeathStatus = Literal["crash", "timeout"]


@dataclass(frozen=True)
class Death:
    """One item a worker died on (or overran), with every item that worker ran before it."""

    job: Job
    status: DeathStatus
    #: the jobs the worker finished before this one, oldest first (the dead worker's own list)
    before: Sequence[Job]
    result: Result


def describe_exit(code: int | None) -> str:
    """How a process ended, in words: its signal's name or its exit status."""
    if code is None:
        return "unknown exit"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited with status {code}"


@dataclass(frozen=True)
class Witness:
    """What the pool saw of the worker: enough to write the evidence without the slot itself."""

    worker: str | None
    pid: int | None
    exit: str
    phase: str | None
    last_output: str
    log: Path | None
    #: how long its backend had been at the item when it was seen dead (see phase.left)
    backend_s: float = 0.0


def death(job: Job, status: DeathStatus, message: str, witness: Witness, before: Sequence[Job]) -> Death:
    """The death of ``job`` as a result with its evidence, and the sequence for the review."""
    record: CrashRecord = {
        "outcome": "unconfirmed",
        "worker": witness.worker,
        "pid": witness.pid,
        "exit": witness.exit,
        "phase": witness.phase,
        "ran_before": len(before),
        "before": [earlier.key for earlier in before[-settings.ENGINE.named_before :]],
        "last_output": witness.last_output,
        "log": str(witness.log) if witness.log else None,
    }
    output = witness.last_output
    said = f"\nlast output of the worker ({witness.log}):\n{output}" if output else ""
    # the backend's time on the item until it died is the backend's, as a refusal's is
    timing = Timing(refused_ms=witness.backend_s * 1000) if witness.backend_s else Timing()
    result = replace(
        pending_result(job.case, job.op, job.target, judged=job.judged).with_status(status, message + said),
        crash=record,
        timing=timing,
    )
    return Death(job, status, before, result)


def overran_start(job: Job, limit_s: float, said: str | None, log: Path | None, *, started: bool) -> Result:
    """The result of ``job`` when its worker did not start (or, ``started``, load the job's adapter)
    within ``limit_s`` seconds: the adapter's defect, never a timeout, which the crash review would
    run again in a fresh worker as slow to start."""
    what = "loading the adapter" if started else "the worker's start (loading the adapter, its prepare())"
    message = (
        f"{what} took longer than {limit_s:g} s{f' (phase {said})' if said else ''}, before this item "
        f"could run: the adapter's problem, not the item's; the worker was killed and replaced"
        f"{f' (its log: {log})' if log else ''}"
    )
    return pending_result(job.case, job.op, job.target, judged=job.judged).with_defect("adapter", message)


def died_preparing(preparing: bool, log: Path | None) -> bool:
    """Whether a worker that died before its first job died in its adapters' prepare() (its phase
    file says so, or without a log, it had targets to prepare) rather than before it could start,
    which must not turn prepare() off for the run."""
    return preparing and (log is None or phase.read(log) == "prepare")


def unstarted(how: str, log: Path | None) -> WorkerStartError:
    """Why the run stops once ``unstarted_limit`` workers in a row died before their first job
    (``how``: the last one's end): reported as crashes, every item's would be "confirmed". A script
    read from standard input does that: a spawned process cannot import it again."""
    main = getattr(sys.modules.get("__main__"), "__file__", None)
    hint = (
        f" A worker started afresh imports the run's main script again, and {main} is none:"
        " run the suite from a file or the conformance command."
        if main is not None and not os.path.exists(main)
        else ""
    )
    return WorkerStartError(
        f"{settings.ENGINE.unstarted_limit} workers in a row died ({how}, the last) before their first job:"
        f" they cannot start here, and the run stops. What they printed is above"
        f"{f' and in {log}' if log else ''}; the results so far stay in the run's journal, to resume"
        f" from.{hint}"
    )
