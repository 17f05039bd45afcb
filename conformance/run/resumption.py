"""Finishing an interrupted run: which journal, what of it still holds, and the exact command that
finishes it. A journal is kept case by case: the results of a case whose digest is unchanged are
kept, those of a case edited since run again, those of a case gone are dropped, and the run says
which. Every "finish with" is made here, from the command the journal kept.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO, cast

from conformance.engine.deaths import Death, DeathStatus
from conformance.engine.worker import Job
from conformance.errors import JournalError, UsageError
from conformance.results.document import FILE_NAME as RESULTS
from conformance.results.records import CrashRecord, CrashReviewRecord, ParamsRecord
from conformance.results.result import Result
from conformance.run.planning import Plan
from conformance.storage import out_folder
from conformance.storage.journal import CASES, Journal, Journaled
from conformance.storage.journal import FILE_NAME as JOURNAL
from conformance.storage.out_folder import COMPAT_NAMES as COMPAT
from conformance.storage.out_folder import REPORT_NAME as REPORT
from conformance.verdict.crash_review import DEATHS

#: the journal's marks of a crash review (conformance.run.runner.Execution.review writes them)
REVIEW_STARTED = "crash review started"
REVIEW_ENDED = "crash review ended"
#: the cases a note of a resume names (then "..."): enough to find them, short enough to read
NAMED_CASES = 3


def finish_command(command: Sequence[str], out: Path) -> str | None:
    """The command that finishes the run ``command`` started in ``out``; None if it does not resume."""
    if tuple(command[:2]) == ("conformance", "run"):
        return shlex.join(["conformance", "run", "--resume", "--out", str(out)])
    if tuple(command[:2]) == ("conformance", "certify"):
        kept = _without_out(list(command))
        return shlex.join([*kept, *([] if "--resume" in kept else ["--resume"]), "--out", str(out)])
    return None


def advice(command: Sequence[str], out: Path) -> str:
    """What an interrupted run prints last: the finishing command, or why there is none."""
    again = shlex.join(command)
    if not (out / JOURNAL).is_file():
        return f"interrupted before any result was kept; to start again: {again}"
    finish = finish_command(command, out)
    if finish is None:
        verb = shlex.join(command[:2])
        return f"`{verb}` does not resume: what finished is written; to start again: {again}"
    return f"finish with: {finish}"


def set_aside_note(folder: Path) -> str:
    """What a new run says when it sets an unfinished run's journal aside into ``folder``."""
    journaled = Journal.command(folder / JOURNAL) or []
    finish = finish_command(journaled, folder)
    how = f"finish that run with: {finish}" if finish else "its results are kept there"
    return f"note: an unfinished run's journal was set aside in {folder}/; {how}"


def folder_to_resume(resume: str, out: Path, out_given: bool, stream: TextIO) -> Path:
    """The folder of the run ``--resume [PATH]`` finishes: ``--out`` for a bare ``--resume``, PATH
    when it is a folder or its ``journal.jsonl``; a journal elsewhere is first set aside into a
    folder of its own."""
    if not resume:
        return out
    path = Path(resume)
    if path.is_dir() or path.name == JOURNAL:
        folder = path if path.is_dir() else path.parent
        if out_given and folder != out:
            raise UsageError(f"--resume {resume} and --out {out} name two folders; give the folder once")
        return folder
    if out_given:
        raise UsageError(f"--resume {resume} finishes the run in a folder of its own; leave out --out")
    if not path.exists():
        raise JournalError(f"nothing to resume: {path} does not exist")
    if Journal.header(path) is None:
        raise JournalError(f"{path} is not a run journal (its first line is not a journal header)")
    folder = out_folder.set_aside(path)
    print(f"moved {path} to {folder / JOURNAL}", file=stream)
    return folder


def require_journal(out: Path) -> None:
    """Refuse (JournalError) to resume a folder with no journal, naming the unfinished runs set
    aside in it and the command that finishes the first."""
    if (out / JOURNAL).is_file():
        return
    said = f"nothing to resume: {out / JOURNAL} does not exist (a run stopped by Ctrl-C or killed leaves it)"
    waiting = out_folder.set_aside_runs(out)
    if not waiting:
        raise JournalError(f"{said}; {_finished(out) or 'leave out --resume to start a run'}")
    first = waiting[0]
    command = shlex.join(["conformance", "run", "--resume", str(first)])
    if first.is_dir():
        command = finish_command(Journal.command(first / JOURNAL) or [], first) or command
    others = f" ({len(waiting) - 1} more there)" if len(waiting) > 1 else ""
    where = f" was set aside in {first}/" if first.is_dir() else f"'s journal is {first}"
    set_aside = f"an unfinished run{where}{others}"
    raise JournalError(f"{said}; {set_aside}; finish it with: {command}")


def _finished(out: Path) -> str | None:
    """What to do in ``out`` when its run finished: nothing, or, where it was killed after its
    results were written and before its pages were (the journal goes with the results), the
    commands that write the pages; None when no finished run is there."""
    results = out / RESULTS
    if out_folder.complete_run(out) is None:
        return None
    missing = [name for name in (REPORT, *COMPAT) if not (out / name).is_file()]
    if not missing:
        return f"the run there finished: its results are {results}; leave out --resume to run again"
    report = shlex.join(["conformance", "report", str(results), "-o", str(out / REPORT)])
    compat = [
        "conformance",
        "compat",
        str(results),
        *(word for name in COMPAT for word in ("-o", str(out / name))),
    ]
    return (
        f"the run there finished (its results are {results}) but was stopped before it wrote "
        f"{', '.join(missing)}; write them with: {report} && {shlex.join(compat)}"
    )


def _without_out(command: list[str]) -> list[str]:
    """``command`` without its ``--out DIR`` (the finishing command names the folder once)."""
    kept: list[str] = []
    skip = False
    for word in command:
        if skip:
            skip = False
        elif word == "--out":
            skip = True
        elif not word.startswith("--out="):
            kept.append(word)
    return kept


@dataclass(frozen=True)
class Resumed:
    """What a resumed run keeps of its journal: the results by key, the deaths no review finished,
    the records of the reviews that did, and its notes on the cases that changed."""

    results: dict[str, Result]
    deaths: list[Death]
    reviews: list[CrashReviewRecord]
    notes: list[str]


def resumed(held: Journaled, plan_: Plan) -> Resumed:
    """What of the journal ``held`` the run of ``plan_`` keeps."""
    jobs = {job.key: job for job in plan_.jobs}
    kept, notes = _kept(held, plan_, jobs)
    deaths = _unreviewed(held, kept, jobs)
    if deaths:
        notes.append(
            f"resuming: {len(deaths)} item(s) died in the run and no crash review of them finished: "
            "the review runs once the items left have run"
        )
    reviews = [
        cast(CrashReviewRecord, mark["record"])
        for _, mark in held.marks
        if mark["mark"] == REVIEW_ENDED and isinstance(mark.get("record"), dict)
    ]
    return Resumed(kept, deaths, reviews, notes)


def _kept(held: Journaled, plan_: Plan, jobs: Mapping[str, Job]) -> tuple[dict[str, Result], list[str]]:
    """The journal's results of the plan's items whose case is unchanged (each the item's last
    line, placed where its case now is), and the notes on the cases changed, gone or new."""
    recorded = held.header.get(CASES)
    now = plan_.suite.case_digests
    located = {job.case.id: str(job.case.location) for job in plan_.jobs}
    changed: dict[str, list[Result]] = {}
    gone: dict[str, list[Result]] = {}
    kept: dict[str, Result] = {}
    for key, result in {result.key: result for result in held.results}.items():
        edited = isinstance(recorded, dict) and recorded.get(result.case) != now.get(result.case)
        if key in jobs and not edited:
            kept[key] = _placed(result, located[result.case])
        else:
            (changed if result.case in located else gone).setdefault(result.case, []).append(result)
    notes = []
    if changed:
        named = _named({case: located[case] for case in changed})
        again = sum(map(len, changed.values()))
        notes.append(
            f"resuming: {len(changed)} case(s) changed since the journal was written ({named}): "
            f"their {again} journaled result(s) run again"
        )
    if gone:
        named = _named({case: results[0].params.get("location", "?") for case, results in gone.items()})
        dropped = sum(map(len, gone.values()))
        notes.append(
            f"resuming: {len(gone)} case(s) of the journal are no longer in the run ({named}): "
            f"their {dropped} result(s) are dropped"
        )
    fresh = {case: at for case, at in located.items() if isinstance(recorded, dict) and case not in recorded}
    if fresh:
        items = sum(1 for job in plan_.jobs if job.case.id in fresh)
        notes.append(f"resuming: {len(fresh)} new case(s) ({_named(fresh)}): their {items} item(s) run")
    return kept, notes


def _named(where: Mapping[str, str]) -> str:
    """The first few cases, each with where it is written (``case in file:line``)."""
    named = [f"{case} in {place}" for case, place in list(where.items())[:NAMED_CASES]]
    return ", ".join(named) + (", ..." if len(where) > NAMED_CASES else "")


def _placed(result: Result, location: str) -> Result:
    """A kept result with its case's place as it is now (a comment above it moves it down)."""
    if result.params.get("location", location) == location:
        return result
    return replace(result, params=cast(ParamsRecord, {**result.params, "location": location}))


def _unreviewed(held: Journaled, kept: Mapping[str, Result], jobs: Mapping[str, Job]) -> list[Death]:
    """The deaths journaled after the last crash review that ended, not yet confirmed or rerun and
    still their item's last line, each with the items its worker ran before it."""
    ended = max((at for at, mark in held.marks if mark["mark"] == REVIEW_ENDED), default=0)
    last = {result.key: index for index, result in enumerate(held.results)}
    by_pid: dict[int, list[tuple[int, str]]] = {}  # each worker's results: (line, key), in order
    for index, result in enumerate(held.results):
        if result.worker:
            by_pid.setdefault(result.worker["pid"], []).append((index, result.key))
    deaths = []
    for index in range(ended, len(held.results)):
        result = held.results[index]
        crash = result.crash
        if last[result.key] != index or result.key not in kept or crash is None:
            continue
        if result.status not in DEATHS or crash["outcome"] != "unconfirmed" or "rerun" in crash:
            continue
        ran = [key for at, key in by_pid.get(crash["pid"] or -1, []) if at < index]
        status: DeathStatus = "crash" if result.status == "crash" else "timeout"
        deaths.append(Death(jobs[result.key], status, _history(ran, crash, jobs), kept[result.key]))
    return deaths


def _history(ran: Sequence[str], crash: CrashRecord, jobs: Mapping[str, Job]) -> list[Job]:
    """The jobs the dead worker ran before its item, oldest first: the last of ``ran`` (its
    process's results) as many as the crash record counts, if they end with those it names; else
    (a line lost to a kill) only those it names."""
    count, named = crash["ran_before"], crash["before"]
    keys = list(ran[len(ran) - count :]) if count <= len(ran) else []
    if len(keys) != count or keys[len(keys) - len(named) :] != named:
        keys = list(named)
    return [jobs[key] for key in keys if key in jobs]
