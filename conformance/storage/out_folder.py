"""The output folder: the suite writes only where it cannot destroy a file it did not write,
nor a run it was not asked to replace.

A folder is written only when it is new, empty, or marked as the suite's by :data:`MARKER`, and
even then only files of the suite's own names (:data:`OWN_NAMES`, the worker logs) are replaced
or removed, never through a symbolic link (:mod:`conformance.storage.no_links`). ``previous/`` is
the suite's too: the earlier run moves there, and is never deleted. The checks only read, so a
front door can refuse before it plans anything.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.errors import EnvironmentFailure, UsageError
from conformance.results import document as results_file
from conformance.storage import no_links

MARKER = ".conformance-run"
#: the report and the compatibility pages a run writes beside its results file
REPORT_NAME = "index.html"
COMPAT_NAMES = ("compat.html", "compat.md")
#: what a run writes at its end, moved into :data:`PREVIOUS` when the next run starts
RESULTS = ("results.json", "junit.xml", REPORT_NAME, *COMPAT_NAMES)
PREVIOUS = "previous"
#: the files a run, explore, merge or certify writes at the top of its folder
OWN_NAMES = (*RESULTS, "journal.jsonl", "certificate.json", "certificate.html", ".lock", MARKER)
#: How the suite's pages name it: now, and as versions before the Slice family did.
_SUITE_NAMES = (b"Operator conformance", b"Split conformance")
WORKERS = "workers"
#: the worker logs and phase files in ``workers/`` and ``workers/review/`` (the crash review's)
WORKER_LOG = re.compile(r"(worker-\d+|zygote)\.(log|phase)")
REVIEW = "review"
#: the folder an unfinished run's journal is set aside in (see :func:`set_aside`)
SET_ASIDE = "interrupted-{stamp}"
#: the temporary files of :func:`conformance.results.document.write_atomically` (``.NAME.XXXXXXXX``)
#: of the suite's own names, which a writer killed while writing leaves behind
TEMPORARY = re.compile(r"\.(?P<name>[^/]+)\.[a-z0-9_]{8}")
#: foreign files a refusal names
NAMED = 4
#: adapters a refusal names (then "...")
NAMED_ADAPTERS = 3

_ABOUT = (
    "This folder holds the output of the conformance suite (`conformance run`, `explore`, "
    "`certify`, `merge`, the pytest plugin). This file lets the suite write here again; it then "
    "replaces or removes only files of its own names ({names}, worker logs in workers/) and "
    "leaves every other file alone. Without this file the suite writes only into a new or empty folder."
)


def is_marked(folder: Path) -> bool:
    """Whether the suite wrote ``folder`` (it holds the marker, a file and not a link to one)."""
    marker = folder / MARKER
    return marker.is_file() and not marker.is_symlink()


def check(out: Path, option: str = "--out") -> None:
    """Refuse (UsageError) a file, or a folder holding files but no marker; reads only."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"{option} {out}: is a file, not a folder; give a new or empty folder")
    if not out.is_dir():
        return
    if is_marked(out):
        _check_own(out, option)
        return
    try:  # the first few files are enough to name: a home directory is not walked further
        foreign = list(_walk(out, Path()))[: NAMED + 1]
    except OSError as error:
        raise UsageError(f"{option} {out}: cannot be listed: {error.strerror or error}") from None
    if foreign:
        raise UsageError(_refusal(out, option, foreign))


def claim(out: Path, option: str = "--out") -> None:
    """Check ``out`` (:func:`check`), create it and mark it as the suite's."""
    check(out, option)
    mark(out, option)


def mark(out: Path, option: str = "--out") -> None:
    """Create ``out`` if need be and mark it as the suite's."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        if not is_marked(out):
            text = _ABOUT.format(names=", ".join(OWN_NAMES))
            marker = json.dumps({"schema": "conformance.out/1", "about": text}, indent=1)
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
            with os.fdopen(no_links.open_file(out, out / MARKER, flags, option=option), "wb") as stream:
                stream.write(marker.encode("utf-8") + b"\n")
    except OSError as error:  # the machine's refusal (read-only, full, permissions), not the input's
        raise EnvironmentFailure(f"{option} {out}: cannot be written: {error.strerror or error}") from None


def clear_worker_logs(out: Path) -> None:
    """Remove the previous run's worker logs, and ``workers/`` when that leaves it empty; a link
    at ``workers`` or ``workers/review`` is refused, never followed."""
    for folder in (out / WORKERS / REVIEW, out / WORKERS):
        no_links.check_below(out, folder)
        if not folder.is_dir():
            continue
        for entry in folder.iterdir():
            if WORKER_LOG.fullmatch(entry.name) and entry.is_file():  # a link: the link goes
                entry.unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # not empty: something else lives there
            folder.rmdir()


def clear_temporaries(out: Path) -> None:
    """Remove what a writer killed while writing left in ``out``: the temporary files of its own
    names (the caller holds the folder's lock, so no writer is using one)."""
    own = {*OWN_NAMES, *RESULTS}
    for entry in os.scandir(out):
        found = TEMPORARY.fullmatch(entry.name)
        if found and found["name"] in own and entry.is_file(follow_symlinks=False):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(entry.path)


def check_previous(out: Path, option: str = "--out") -> None:
    """Refuse (UsageError) a ``previous`` the earlier run cannot move into: a link, a file, or a
    folder holding files the suite did not write (named: the suite neither mixes the earlier run
    with them nor deletes it instead)."""
    folder = out / PREVIOUS
    no_links.refuse_link(folder, out, option)
    if not folder.exists() or (folder.is_dir() and is_marked(folder)):
        return
    if not folder.is_dir():
        foreign = [PREVIOUS]
    else:
        foreign = [f"{PREVIOUS}/{name}" for name in list(_walk(folder, Path()))[: NAMED + 1]]
    if foreign:
        named = ", ".join(foreign[:NAMED]) + (", ..." if len(foreign) > NAMED else "")
        raise UsageError(
            f"{option} {out}: a new run moves the earlier results into {folder}/, which holds files "
            f"the suite did not write ({named}); it neither mixes the earlier run with them nor "
            f"deletes it: move those files elsewhere or give another {option}"
        )


def set_aside_results(out: Path) -> list[Path]:
    """Move the previous run's results and pages into ``previous/`` (replacing the set there),
    the results file first, so a run killed early leaves none that claims to be current; where
    ``previous`` is not the suite's to write, refuse (:func:`check_previous`): the earlier run is
    never deleted. Returns where they went."""
    present = [out / name for name in RESULTS if (out / name).is_file()]
    if not present:
        return []
    folder = out / PREVIOUS
    check_previous(out)
    mark(folder)
    for name in RESULTS:  # one run's set, never two runs' files mixed
        (folder / name).unlink(missing_ok=True)
    for path in present:
        os.replace(path, folder / path.name)
    return [folder / path.name for path in present]


@dataclass(frozen=True)
class Coverage:
    """What a run covers, as far as replacing another goes: its selection, case files and adapters."""

    selection: Mapping[str, Any]
    files: tuple[str, ...]
    adapters: frozenset[str]

    def covers(self, other: Coverage) -> bool:
        """Whether this run replaces ``other`` with no less: the same selection, its files and adapters."""
        return (
            self.selection == other.selection
            and set(other.files) <= set(self.files)
            and other.adapters <= self.adapters
        )

    def brief(self) -> str:
        """In a few words: the options that narrow it, how many case files, which adapters."""
        named = sorted(self.adapters)[:NAMED_ADAPTERS]
        more = len(self.adapters) > len(named)
        adapters = ", ".join(named) + (f", ... ({len(self.adapters)} adapters)" if more else "")
        files = f"{len(self.files)} case file{'s' if len(self.files) != 1 else ''}"
        return f"{shlex.join(self.words()) or 'every item'} of {files} on {adapters or 'no adapter'}"

    def words(self) -> list[str]:
        """The options of the selection, as typed."""
        flags = (("ops", "--op"), ("tags", "--tag"), ("items", "--item"), ("targets", "--target"))
        given = [(flag, value) for key, flag in flags for value in self.selection.get(key) or ()]
        words = [word for pair in given for word in pair]
        words += ["-k", self.selection["keyword"]] if self.selection.get("keyword") else []
        words += ["--shard", self.selection["shard"]] if self.selection.get("shard") else []
        return words + list(self.selection.get("pytest") or ())  # a pytest session's -k, -m, node ids


def complete_run(out: Path) -> Coverage | None:
    """What the complete run whose results are in ``out`` covered; None when there is none."""
    head = results_file.read_head(out / results_file.FILE_NAME) or {}
    run, suite, adapters = head.get("run"), head.get("suite"), head.get("adapters")
    if not (isinstance(run, dict) and isinstance(suite, dict) and isinstance(adapters, list)):
        return None
    selection = run.get("selection")
    if run.get("interrupted", False) or not isinstance(selection, dict):
        return None
    names = frozenset(str(entry.get("name")) for entry in adapters if isinstance(entry, dict))
    return Coverage(selection, tuple(map(str, suite.get("files") or ())), names)


def check_replacing(out: Path, run: Coverage, option: str = "--out", replace: str = "--replace") -> None:
    """Refuse (UsageError) a run that would replace the complete run of another selection in ``out``;
    ``option`` and ``replace`` name the front door's options."""
    there = complete_run(out)
    if there is None or run.covers(there):
        return
    folder = out / (path_safe("-".join(run.words()[1::2])) or "other-run")
    raise UsageError(
        f"{option} {out}: holds the complete run of {there.brief()} (results.json and its report); "
        f"this run selects {run.brief()} and would replace it. Give another folder, e.g. {option} "
        f"{folder}, or {replace} to replace it"
    )


def path_safe(text: str, limit: int = 80) -> str:
    """``text`` as one folder name: other characters than ``[A-Za-z0-9._-]`` become ``_``; a longer
    name is cut and ends with a hash of the whole, so two long names stay apart."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._-")
    if len(name) <= limit:
        return name
    return f"{name[: limit - 9]}-{hashlib.sha256(text.encode()).hexdigest()[:8]}"


def set_aside(journal: Path) -> Path:
    """Move an unfinished run's journal out of a new run's way, into a marked folder beside it
    (``interrupted-<time>/journal.jsonl``) where ``--resume`` finishes it; returns that folder."""
    folder = _unused(journal.parent / SET_ASIDE.format(stamp=int(journal.stat().st_mtime)))
    folder.mkdir()
    claim(folder)
    os.replace(journal, folder / "journal.jsonl")
    return folder


def set_aside_runs(out: Path) -> list[Path]:
    """The unfinished runs set aside in ``out``: folders of :func:`set_aside` that still hold a
    journal, and journals earlier versions moved to ``journal-<time>.jsonl``."""
    if not out.is_dir():
        return []
    found = [path.parent for path in out.glob("interrupted-*/journal.jsonl")]
    return sorted(found + list(out.glob("journal-*.jsonl")))


def check_page(path: Path, option: str = "-o") -> None:
    """Refuse to replace a file that is not a page the suite wrote: one of its own names in a
    marked folder, an HTML page titled ``Operator conformance...`` (``Split conformance...`` before
    the Slice family) or a Markdown page that says so in its first line
    (conformance.report.compat_markdown.MARKER). A missing file is fine."""
    if not path.is_file():
        return
    if path.name in OWN_NAMES and is_marked(path.parent):
        return
    try:
        with path.open("rb") as stream:
            head = stream.read(4096)
    except OSError:
        return  # the writer names what is wrong with it
    if head.startswith(b"<!DOCTYPE html>") and any(b"<title>" + name in head for name in _SUITE_NAMES):
        return
    if any(head.startswith(b"<!-- " + name + b": ") for name in _SUITE_NAMES):
        return
    raise UsageError(
        f"{option} {path}: the file exists and is not a page the suite wrote; the suite replaces "
        "only its own pages: give a new file name"
    )


def _unused(path: Path) -> Path:
    """``path``, or where it exists the first of ``path-2``, ``path-3``, ... that does not."""
    found, number = path, 1
    while found.exists():
        number += 1
        found = path.with_name(f"{path.name}-{number}")
    return found


def _check_own(out: Path, option: str) -> None:
    """Refuse a link at a name the suite writes or deletes in the marked folder ``out``, and a
    ``previous`` that an earlier run with results there could not move into."""
    for name in (*OWN_NAMES, WORKERS, f"{WORKERS}/{REVIEW}", *(f"{PREVIOUS}/{own}" for own in OWN_NAMES)):
        no_links.check_below(out, out / name, option)
    if any((out / name).is_file() for name in RESULTS):
        check_previous(out, option)


def _walk(folder: Path, relative: Path) -> Iterator[str]:
    """The first files under ``folder`` (paths relative to it, sorted); stops soon after NAMED+1."""
    count = 0
    for entry in sorted(os.scandir(folder), key=lambda entry: entry.name):
        if count > NAMED:
            return
        if entry.is_dir(follow_symlinks=False):
            inside = list(_walk(Path(entry.path), relative / entry.name))
            yield from inside or [f"{(relative / entry.name).as_posix()}/"]
            count += len(inside) or 1
        else:
            yield (relative / entry.name).as_posix()
            count += 1


def _refusal(out: Path, option: str, foreign: list[str]) -> str:
    named = ", ".join(foreign[:NAMED]) + (", ..." if len(foreign) > NAMED else "")
    free = _unused(out / "conformance-reports")  # a folder to suggest
    return (
        f"{option} {out}: the folder holds files the suite did not write ({named}) and no "
        f"{MARKER} marker of an earlier run; the suite writes only into a new folder, an empty one "
        f"or one it wrote before, so that it never replaces or deletes your files. Give a new "
        f"folder, e.g. {option} {free}"
    )
