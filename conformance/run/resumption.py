"""Finishing an interrupted run: which journal, and the exact command that finishes it.

Every message that says "finish with" is made here, from the command the journal kept, so the
advice printed is the command that works: ``conformance run --resume --out DIR`` for a run,
the same ``conformance certify`` command with ``--resume`` for a certification. ``explore``
and the pytest plugin do not resume (they start over). A journal set aside by a new run lives
in a folder of its own (:func:`conformance.run.out_folder.set_aside`), finished like any other.
:func:`require_journal` refuses ``--resume`` at once when there is nothing to resume, before
anything is planned or printed.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from conformance.errors import JournalError, UsageError
from conformance.run import out_folder
from conformance.run.journal import FILE_NAME as JOURNAL
from conformance.run.journal import Journal


def finish_command(command: Sequence[str], out: Path) -> str | None:
    """The command that finishes the run ``command`` started, journaled in ``out``; None when
    its front door does not resume."""
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
    """The folder of the run ``--resume [PATH]`` finishes: ``--out`` for a bare ``--resume``,
    PATH when it is a folder or its ``journal.jsonl``; a journal elsewhere (one an earlier
    version moved to ``journal-<time>.jsonl``) is first set aside into a folder of its own."""
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
        raise JournalError(f"{said}; leave out --resume to start a run")
    first = waiting[0]
    command = shlex.join(["conformance", "run", "--resume", str(first)])
    if first.is_dir():
        command = finish_command(Journal.command(first / JOURNAL) or [], first) or command
    others = f" ({len(waiting) - 1} more there)" if len(waiting) > 1 else ""
    where = f" was set aside in {first}/" if first.is_dir() else f"'s journal is {first}"
    set_aside = f"an unfinished run{where}{others}"
    raise JournalError(f"{said}; {set_aside}; finish it with: {command}")


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
