"""Whether two runs' results compare at all: what ``conformance diff`` checks before it judges.

"No new failures" must mean NEW was judged on everything OLD was, the same way: not when a side
was interrupted, a result key is in one file only (one only in NEW: unless ``--allow-new-items``),
or one side applied known issues the other did not. Results files do not record the known-issue
mode, so it is read from the recorded command, or else from the lists that mark the results both hold.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.results.records import RunInfoRecord
from conformance.results.result import Result

#: how many keys a message names as examples
EXAMPLES = 3
#: the name of the known-issues file an adapter package ships (conformance.verdict.known_issues)
SHIPPED_NAME = "known_issues.yaml"


@dataclass(frozen=True)
class Side:
    """One file of the comparison: how messages name it, its run record and its results by key."""

    name: str
    run: RunInfoRecord | None
    results: Mapping[str, Result]


@dataclass(frozen=True)
class Mode:
    """How a run treated known issues: the shipped lists applied or not, and ``--known-issues`` files."""

    shipped: bool
    files: tuple[str, ...] = ()

    def describe(self) -> str:
        words = "applied the adapters' known issues" if self.shipped else "ran with --no-known-issues"
        return words + "".join(f" --known-issues {path}" for path in self.files)


def problems(old: Side, new: Side, allow_new_items: bool = False) -> tuple[list[str], list[str]]:
    """Why the two sides do not compare (empty: they do), and notes that do not stop it."""
    found = [problem for side in (old, new) for problem in _interrupted(side)]
    selection, notes = _selections(old, new, allow_new_items)
    return found + selection + _modes(old, new), notes


def _interrupted(side: Side) -> list[str]:
    if side.run is None or not side.run.get("interrupted"):
        return []
    stopped = [entry["path"] for entry in side.run.get("merged", []) if entry.get("interrupted")]
    which = f" (it merges interrupted runs: {', '.join(stopped)})" if stopped else ""
    return [
        f"{side.name} was interrupted{which}: the results it lacks were never judged; "
        "finish it (conformance run --resume) and compare the finished file"
    ]


def _examples(keys: Sequence[str]) -> str:
    shown = ", ".join(keys[:EXAMPLES])
    return shown + (f" and {len(keys) - EXAMPLES} more" if len(keys) > EXAMPLES else "")


def _selections(old: Side, new: Side, allow_new_items: bool) -> tuple[list[str], list[str]]:
    """Result keys in one file only, with the recorded selections that differ as the cause."""
    missing = [key for key in old.results if key not in new.results]
    added = [key for key in new.results if key not in old.results]
    differ = _selection_difference(old, new)
    cause = f" (the runs' selections differ: {differ})" if differ else ""
    found: list[str] = []
    notes: list[str] = []
    if missing:
        found.append(
            f"the selections differ: {len(missing)} result(s) of {old.name} are not in {new.name}, "
            f"e.g. {_examples(missing)}{cause}; a missing result may hide a regression"
        )
    if added and not allow_new_items:
        found.append(
            f"the selections differ: {len(added)} result(s) of {new.name} are not in {old.name}, "
            f"e.g. {_examples(added)}{cause}; --allow-new-items judges them as new results "
            "(a failing one is a new failure)"
        )
    elif added:
        notes.append(f"{len(added)} result(s) only in {new.name}, judged as new results (--allow-new-items)")
    if differ and not missing and not added:
        notes.append(f"the runs' selections are recorded differently ({differ}) but select the same results")
    return found, notes


def _selection_difference(old: Side, new: Side) -> str:
    """The ``run.selection`` filters that differ (``ops [] -> ['onnx.*']``); empty if none or unrecorded."""
    before = old.run.get("selection") if old.run else None
    after = new.run.get("selection") if new.run else None
    if before is None or after is None:
        return ""
    names = sorted(set(before) | set(after))
    changed = [name for name in names if before.get(name) != after.get(name)]
    return "; ".join(f"{name} {before.get(name)!r} -> {after.get(name)!r}" for name in changed)


def _modes(old: Side, new: Side) -> list[str]:
    """A problem when the sides treated known issues differently: by their commands when both
    recorded plain ones, otherwise by the known-issue lists that mark the results both hold."""
    modes = [mode_of(side.run) for side in (old, new)]
    for side, mode in zip((old, new), modes, strict=True):
        if mode == "mixed":
            return [f"{side.name} merges runs that treated known issues differently: its statuses disagree"]
    before, after = modes
    if isinstance(before, Mode) and isinstance(after, Mode):
        if before == after:
            return []
        return [
            f"the known-issue modes differ: {old.name} {before.describe()}, {new.name} {after.describe()}; "
            "an xfail in one is a fail or error in the other: compare runs made the same way"
        ]
    return _lists(old, new)


def _lists(old: Side, new: Side) -> list[str]:
    """The known-issue lists that mark results of one side and none of the other's, among the
    results both hold: the other run did not apply that list."""
    common = [key for key in old.results if key in new.results]
    before, after = (
        Counter(_list_name(issue["source"]) for key in common if (issue := side.results[key].known_issue))
        for side in (old, new)
    )
    found = []
    for one, other, counts, elsewhere in ((old, new, before, after), (new, old, after, before)):
        for name, count in sorted(counts.items()):
            if name in elsewhere:
                continue
            how = "--no-known-issues" if name.endswith(SHIPPED_NAME) else f"without --known-issues {name}"
            found.append(
                f"the known-issue modes differ: the known issues of {name} mark {count} result(s) of "
                f"{one.name} and no result of {other.name}, which ran without them ({how}?); "
                "compare runs made the same way"
            )
    return found


def _list_name(source: str) -> str:
    """A known-issue list by a name that survives another checkout: ``package/known_issues.yaml``
    for an adapter's shipped list, the file name for one given with ``--known-issues``."""
    path = Path(source)
    return "/".join(path.parts[-2:]) if path.name == SHIPPED_NAME else path.name


def mode_of(run: RunInfoRecord | Mapping[str, Any] | None) -> Mode | str | None:
    """The known-issue mode of a run record: a :class:`Mode`, ``"mixed"`` for a merge of runs
    of different modes, or None when its command(s) do not tell."""
    if run is None:
        return None
    merged = run.get("merged")
    if not merged:
        return command_mode(run.get("command") or [])
    modes = {command_mode(entry.get("command") or []) for entry in merged}
    if None in modes:
        return None
    return modes.pop() if len(modes) == 1 else "mixed"


def command_mode(command: Sequence[str]) -> Mode | None:
    """The mode a recorded ``conformance`` command ran in (prefixes of options count, as argparse
    takes them); None where it does not say, as for ``run --resume`` or pytest."""
    if len(command) < 2 or Path(command[0]).name != "conformance":
        return None
    if command[1] == "certify":
        return Mode(shipped=True)  # a certificate judges with the adapter's own list, nothing else
    if command[1] not in ("run", "explore"):
        return None
    words = list(command[2:])
    flags = [word.partition("=")[0] for word in words]
    if any(_abbreviates(flag, "--resume", 5) for flag in flags):
        return None
    files: list[str] = []
    for index, word in enumerate(words):
        flag, equals, value = word.partition("=")
        if _abbreviates(flag, "--known-issues", 3):
            files.append(_list_name(value if equals else " ".join(words[index + 1 : index + 2])))
    raw = any(_abbreviates(flag, "--no-known-issues", 6) for flag in flags)
    return Mode(shipped=not raw, files=tuple(sorted(files)))


def _abbreviates(word: str, option: str, shortest: int) -> bool:
    """Whether argparse reads ``word`` as ``option``: a prefix of at least ``shortest`` characters
    (shorter ones are ambiguous among the verb's options)."""
    return len(word) >= shortest and option.startswith(word)
