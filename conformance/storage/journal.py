"""The run journal: results appended as they finish, so an interrupted run loses nothing.

One JSON object per line: a header (the selection, the targets, each case's digest, the command),
then results and marks (``{"mark": NAME, ...}``). Each line is written with one system call, so
a kill keeps every finished result; ``--resume`` (:mod:`conformance.run.resumption`) ignores a
line a kill cut short, and a line a full disk cut short is taken back at once.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO, cast

from conformance.errors import JournalError
from conformance.results.document import result_problem, utf8
from conformance.results.records import ResultRecord
from conformance.results.result import JSON, Result
from conformance.storage import no_links

SCHEMA = "conformance.journal/1"
FILE_NAME = "journal.jsonl"
#: the header is about 40 bytes a case; reading no more keeps a damaged file harmless
_HEADER_LIMIT = 16 << 20
#: the header key of the cases' digests, which the caller compares case by case
CASES = "cases"


@dataclass
class Journaled:
    """A journal's header, results (in written order) and marks (with the results written before)."""

    header: JSON
    results: list[Result] = field(default_factory=list)
    marks: list[tuple[int, JSON]] = field(default_factory=list)


class Journal:
    def __init__(self, path: Path, fd: int) -> None:
        """The journal at ``path``, open for appending as the descriptor ``fd``."""
        self.path = path
        self._fd = fd
        #: the bytes of whole lines written: what a write the disk refused is cut back to
        self._size = os.fstat(fd).st_size

    @classmethod
    def start(cls, path: Path, header: JSON, command: Sequence[str] = ()) -> Journal:
        """A new journal; ``header`` must match on resume, ``command`` is kept to restore options."""
        path.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND
        journal = cls(path, no_links.open_file(path.parent, path, flags))  # a planted link: refused
        journal.append_line(json.dumps({"schema": SCHEMA, **header, "command": list(command)}))
        return journal

    @classmethod
    def resume(cls, path: Path, header: JSON, warn: TextIO | None = None) -> tuple[Journal, Journaled]:
        """Reopen ``path`` for appending, with what it holds (refused unless its header matches).
        Read as bytes, since a kill can cut the last line anywhere, even inside a UTF-8 character;
        a line that is not a whole result is dropped with a warning on ``warn`` (its item runs again)."""
        if not path.is_file():
            raise JournalError(f"nothing to resume: {path} does not exist")
        content = path.read_bytes()
        lines = content.split(b"\n")
        if lines and not lines[-1]:
            lines.pop()  # the newline that ends the last whole line
        try:
            first = _json_line(lines[0]) if lines else None
        except ValueError:
            first = None
        _check_header(path, first, header)
        held = Journaled(cast(JSON, first))
        for number, line in enumerate(lines[1:], start=2):
            try:
                record = _json_line(line)
            except ValueError:
                torn = number == len(lines) and not content.endswith(b"\n")
                what = "cut short (the run was killed while writing it)" if torn else "not JSON"
            else:
                if isinstance(record, dict) and isinstance(record.get("mark"), str):
                    held.marks.append((len(held.results), record))
                    continue
                problem = result_problem(record)
                if problem is None:
                    held.results.append(Result.from_json(cast(ResultRecord, record)))
                    continue
                what = f"not a result ({problem})"
            if warn is not None:
                print(f"warning: {path}: line {number} is {what}; dropped, its item runs again", file=warn)
        journal = cls(path, no_links.open_file(path.parent, path, os.O_WRONLY | os.O_APPEND))
        if content and not content.endswith(b"\n"):
            journal._write(b"\n")
        return journal, held

    @staticmethod
    def check(path: Path, header: JSON) -> None:
        """Refuse (JournalError) a journal whose header ``resume`` would refuse, reading that line only."""
        if not path.is_file():
            raise JournalError(f"nothing to resume: {path} does not exist")
        _check_header(path, Journal.header(path), header)

    @staticmethod
    def header(path: Path) -> JSON | None:
        """The header line of the journal at ``path``; None when it has none (not a journal)."""
        try:
            with path.open("rb") as stream:
                first = _json_line(stream.readline(_HEADER_LIMIT))
        except (OSError, ValueError):
            return None
        return first if isinstance(first, dict) and first.get("schema") == SCHEMA else None

    @staticmethod
    def command(path: Path) -> list[str] | None:
        """The command that started the run journaled at ``path``; None when it does not say."""
        first = Journal.header(path)
        command = first.get("command") if first is not None else None
        if isinstance(command, list) and all(isinstance(part, str) for part in command):
            return command
        return None

    def append(self, result: Result) -> None:
        self.append_line(line(result))

    def mark(self, name: str, **fields: object) -> None:
        """Keep a mark of what the run did at this point (see the module's docstring)."""
        self.append_line(json.dumps({"mark": name, **fields}, ensure_ascii=False))

    def append_line(self, text: str) -> None:
        """Keep one result given as its JSON line (see :func:`line`), at once on disk."""
        self._write(utf8(text + "\n"))

    def _write(self, data: bytes) -> None:
        """Append ``data`` whole, or raise with the journal cut back as it was (no torn line)."""
        try:
            written = os.write(self._fd, data)
            while written < len(data):  # a short write: the disk filled up during it
                written += os.write(self._fd, data[written:])
        except OSError:
            os.ftruncate(self._fd, self._size)
            raise
        self._size += written

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def line(result: Result) -> str:
    """A result as its journal line."""
    return encoded(result.to_json())


def encoded(record: ResultRecord) -> str:
    """A result's record as its journal line; workers send results so, and the pool journals them as sent."""
    return json.dumps(record, ensure_ascii=False)


def _check_header(path: Path, first: object, header: JSON) -> None:
    """JournalError unless ``first`` is a journal header matching ``header`` key by key, but for
    the cases' digests (the caller compares those) and, where they are kept, the suite's digest."""
    if not isinstance(first, dict) or first.get("schema") != SCHEMA:
        raise JournalError(f"{path} is not a run journal (its first line is not a journal header)")
    for key, value in header.items():
        if key == CASES or (key == "digest" and CASES in first):
            continue
        if first.get(key) != value:
            raise JournalError(
                f"{path} was written for a different {key} ({first.get(key)!r}, now {value!r}); "
                "leave out --resume to start a new run"
            )


def _json_line(line: bytes) -> object:
    """One journal line as JSON; ValueError when it is not UTF-8, not JSON, or nested too deeply."""
    try:
        return json.loads(line.decode("utf-8"))
    except RecursionError:
        raise ValueError("nested too deeply") from None
