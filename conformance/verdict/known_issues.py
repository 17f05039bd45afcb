"""Expected failures: plain data each adapter's owner keeps, next to the adapter.

Each adapter package may ship ``known_issues.yaml``; ``--known-issues FILE`` adds more. An entry
turns a matching non-green result into ``xfail`` (a matching pass into ``xpass``), keeping its
reason and link in the result; the file is checked against
``conformance/schema/known-issues.schema.json``. An entry whose results ran and none failed as
listed is reported stale, so the list does not rot when a backend fixes a bug.
"""

from __future__ import annotations

import fnmatch
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from conformance import dtypes
from conformance import schema as schemas
from conformance.corpus.case import INPUT_NAMES
from conformance.corpus.yaml_source import read_yaml, schema_problems
from conformance.errors import KnownIssuesError
from conformance.results.records import ExpectedRecord, KnownIssueRecord, ParamsRecord
from conformance.results.result import Result
from conformance.statuses import KNOWN_ISSUE_DEFAULT, STATUSES, Status

FILE_NAME = "known_issues.yaml"


def _globs(value: object) -> tuple[str, ...]:
    """A glob or a list of them (the schema allows both), as a tuple."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    assert isinstance(value, list), value  # the schema admits nothing else
    return tuple(str(item) for item in value)


@dataclass(frozen=True)
class KnownIssue:
    """One entry: what it selects (every selector given must match), the statuses it explains,
    why and where it is reported."""

    id: str
    targets: tuple[str, ...]
    statuses: tuple[Status, ...]
    reason: str
    link: str
    source: str  # file it came from
    items: tuple[str, ...] = ()
    ops: tuple[str, ...] = ()
    dtypes: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    forms: tuple[str, ...] = ()
    graph: tuple[tuple[str, tuple[str, ...]], ...] = ()
    where: tuple[tuple[str, object], ...] = ()
    mismatch: tuple[str, ...] = ()
    raised: tuple[str, ...] = ()
    returned: bool | None = None
    valid: bool | None = None
    ambiguous: bool | None = None

    def covers(self, target_id: str) -> bool:
        """Whether the entry's target globs name ``target_id`` (the first and cheapest selector)."""
        return any(fnmatch.fnmatchcase(target_id, glob) for glob in self.targets)

    def matches(self, result: Result) -> bool:
        """True when every selector the entry gives matches ``result``."""
        return self.covers(result.target_id) and self.selects(result)

    def names_op(self, op: str) -> bool:
        """Whether the entry's op globs name ``op`` (an entry without any names every op)."""
        return not self.ops or any(fnmatch.fnmatchcase(op, glob) for glob in self.ops)

    def selects(self, result: Result) -> bool:
        """True when every selector but the target globs matches ``result`` (:class:`ByTarget`
        matches those once per target, not once per result)."""
        params, expected = _deciding_request(result), result.expected
        if self.items and not any(fnmatch.fnmatchcase(result.item_id, glob) for glob in self.items):
            return False
        if not self.names_op(result.op):
            return False
        if self.dtypes and params.get("data", {}).get("dtype") not in self.dtypes:
            return False
        if self.forms and _form_kind(params) not in self.forms:
            return False
        if self.rules and not set(self.rules) & _rules(expected):
            return False
        if self.graph:
            graph = graph_view(params.get("graph", {}))
            if any(graph.get(name) not in values for name, values in self.graph):
                return False
        if any(not _holds(name, wanted, params) for name, wanted in self.where):
            return False
        if self.mismatch and (result.mismatch is None or result.mismatch["what"] not in self.mismatch):
            return False
        if self.returned is not None and ("outputs" in result.actual) is not self.returned:
            return False
        if self.valid is not None and _verdict(expected) is not self.valid:
            return False
        if self.ambiguous is not None and ("readings" in expected) is not self.ambiguous:
            return False
        raised = result.actual.get("raised")
        return not self.raised or (
            raised is not None and any(fnmatch.fnmatchcase(raised["type"], glob) for glob in self.raised)
        )

    def to_json(self) -> KnownIssueRecord:
        return {"id": self.id, "reason": self.reason, "link": self.link, "source": self.source}


def _rules(expected: ExpectedRecord) -> set[str]:
    """The rejection rules of the reference's answer, in any reading."""
    found = {expected["rejected"]["rule"]} if "rejected" in expected else set()
    return found | {
        reading["rejected"]["rule"] for reading in expected.get("readings", []) if "rejected" in reading
    }


def _verdict(expected: ExpectedRecord) -> bool | None:
    """True when the reference accepts the request, False when it rejects it, None when readings differ."""
    readings = expected.get("readings", [expected])
    accepts = {"outputs" in reading for reading in readings}
    return accepts.pop() if len(accepts) == 1 else None


def _deciding_request(result: Result) -> ParamsRecord:
    """The result's parameters with the request of the run its verdict comes from (a case with
    ``runs:`` may fail on a later run, whose shape and values the predicates must see)."""
    if not result.runs or result.run in (None, 1):
        return result.params
    request = result.runs[(result.run or 1) - 1]["request"]
    return {**result.params, **request}


def graph_view(graph: Mapping[str, Any]) -> dict[str, str]:
    """A result's graph options as the ``graph`` selector sees them: every value as text, ``inputs``
    ``runtime`` when any input is fed at run time, and each input's own as ``inputs.<name>`` (Split's
    axis and lengths, Slice's starts, ends, axes, steps and sizes)."""
    view = {name: "none" if value is None else str(value) for name, value in graph.items()}
    inputs = graph.get("inputs", "constant")
    placed = dict(inputs) if isinstance(inputs, Mapping) else dict.fromkeys(INPUT_NAMES, inputs)
    for name in INPUT_NAMES:
        view[f"inputs.{name}"] = str(placed.get(name, "constant"))
    view["inputs"] = "runtime" if "runtime" in placed.values() else "constant"
    return view


def _beyond(type_name: str, params: ParamsRecord) -> bool:
    """Whether the axis, a form value or the sum of the lengths lies outside ``type_name``'s range."""
    low, high = dtypes.integer_range(type_name)
    form = params.get("form")
    value: int | list[int] = form["value"] if form is not None else 0
    values = list(value) if isinstance(value, list) else [value]
    axis = params.get("axis")
    candidates: list[int] = [*values, sum(values), *([axis] if axis is not None else [])]
    return any(not low <= candidate <= high for candidate in candidates)


def _form_kind(params: ParamsRecord) -> str | None:
    """The form a result's request takes: Split's kind, or Slice's bounds, sizes or strided."""
    if "slice" in params:
        request = params["slice"]
        return "strided" if "masks" in request else "sizes" if "sizes" in request else "bounds"
    return params.get("form", {}).get("kind")


def _slice_holds(name: str, wanted: object, request: dict[str, Any]) -> bool | None:
    """A Slice ``where`` predicate (None: ``name`` is none of Slice's)."""
    steps = request.get("steps") or []
    bounds = [value for key in ("starts", "ends") for value in request.get(key) or [] if value is not None]
    axes = request.get("axes") or []
    if name == "step":
        signs = {"negative": any(step < 0 for step in steps), "zero": 0 in steps}
        return signs.get(str(wanted), bool(steps) and all(step > 0 for step in steps))
    if name == "bounds_contain":
        return wanted in bounds
    if name == "bound_beyond":
        low, high = dtypes.integer_range(str(wanted))
        return any(not low <= value <= high for value in bounds)
    if name == "axes":
        kinds = {
            "negative": any(axis < 0 for axis in axes),
            "repeated": len(set(axes)) != len(axes),
            "omitted": request.get("axes") is None,
        }
        return kinds.get(str(wanted), False)
    if name == "mask":
        return bool(request.get("masks", {}).get(str(wanted)))
    if name == "sliced":  # how many entries the request slices (0: none)
        return len(request.get("starts") or []) == wanted
    return None


def _holds(name: str, wanted: object, params: ParamsRecord) -> bool:
    """One ``where`` predicate on the request a result records."""
    if "slice" in params:
        held = _slice_holds(name, wanted, params["slice"])
        if held is not None:
            return held
    axis = params.get("axis")
    shape = params.get("data", {}).get("shape", [])
    if name == "axis":
        return {"omitted": axis is None, "negative": axis is not None and axis < 0}.get(
            str(wanted), axis is not None and axis >= 0
        )
    if name == "lengths_contain":
        value = params.get("form", {"kind": "", "value": 0})["value"]
        return isinstance(value, list) and wanted in value
    if name == "empty_axis":
        dimension = shape[axis] if axis is not None and -len(shape) <= axis < len(shape) else None
        return (dimension == 0) is wanted
    if name == "rank":
        return len(shape) == wanted
    if name == "beyond":
        return _beyond(str(wanted), params)
    if name == "dim_beyond":
        low, high = dtypes.integer_range(str(wanted))
        return any(not low <= dim <= high for dim in shape)
    if name == "value":  # a list in the file is a tuple here (entries are hashable)
        value = params.get("form", {"kind": "", "value": None})["value"]
        return (tuple(value) if isinstance(value, list) else value) == wanted
    return False


def parse(text: str, source: str, adapter: str) -> list[KnownIssue]:
    """Entries of one file, checked against the schema; ``adapter`` scopes the default target glob."""
    try:
        document = read_yaml(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise KnownIssuesError(f"{where}: not valid YAML: {problem}") from None
    problems = schema_problems(
        document, schemas.load("known-issues"), "give at least one selector (items, ops, dtypes, ...)"
    )
    if problems:
        raise KnownIssuesError("\n".join(f"{source}:{line or 1}: {problem}" for line, problem in problems))
    issues = []
    for entry in document.data["known_issues"]:
        graph = entry.get("graph", {})
        issues.append(
            KnownIssue(
                id=entry["id"],
                targets=_globs(entry.get("targets", f"{adapter}/*")),
                statuses=_statuses(entry.get("statuses", list(KNOWN_ISSUE_DEFAULT))),
                reason=" ".join(str(entry["reason"]).split()),
                link=str(entry["link"]).strip(),
                source=source,
                items=_globs(entry.get("items")),
                ops=_globs(entry.get("ops")),
                dtypes=_globs(entry.get("dtypes")),
                rules=_globs(entry.get("rules")),
                forms=_globs(entry.get("forms")),
                graph=tuple(sorted((name, _globs(values)) for name, values in graph.items())),
                where=tuple(
                    (name, tuple(wanted) if isinstance(wanted, list) else wanted)
                    for name, wanted in sorted(entry.get("where", {}).items())
                ),
                mismatch=_globs(entry.get("mismatch")),
                raised=_globs(entry.get("raised")),
                returned=entry.get("returned"),
                valid=entry.get("valid"),
                ambiguous=entry.get("ambiguous"),
            )
        )
    return issues


def _statuses(value: object) -> tuple[Status, ...]:
    """The statuses an entry covers (the schema has checked them), in the suite's order."""
    listed = _globs(value)
    return tuple(status for status in STATUSES if status in listed)


def shipped(adapter: str, import_path: str) -> list[KnownIssue]:
    """The file an adapter package ships beside its module, if any."""
    package = import_path.partition(":")[0].split(".")[0]
    try:
        path = resources.files(package) / FILE_NAME
        if not path.is_file():
            return []
        return parse(path.read_text(encoding="utf-8"), f"{package}/{FILE_NAME}", adapter)
    except (ModuleNotFoundError, TypeError):  # not installed, or a plain module rather than a package
        return []


def from_file(path: Path, adapter: str = "*") -> list[KnownIssue]:
    """The entries of a ``--known-issues`` file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise KnownIssuesError(
            f"{path}: cannot read a known-issues file: {error.strerror or error}"
        ) from None
    except UnicodeDecodeError as error:
        raise KnownIssuesError(f"{path}: not UTF-8 text ({error.reason})") from None
    return parse(text, str(path), adapter)


class ByTarget:
    """A run's entries, looked up by target: matching each result against every entry would cost
    the parent time the workers need."""

    def __init__(self, issues: Sequence[KnownIssue]) -> None:
        self.issues = tuple(issues)
        self._by_op: dict[tuple[str, str], tuple[KnownIssue, ...]] = {}

    def apply(self, result: Result) -> Result:
        """:func:`apply` with the entries that name ``result``'s target and op."""
        place = (result.target_id, result.op)
        found = self._by_op.get(place)
        if found is None:
            chosen = (issue for issue in self.issues if issue.covers(place[0]) and issue.names_op(place[1]))
            found = self._by_op[place] = tuple(chosen)
        return apply(result, found, covered=True)


def apply(result: Result, issues: Sequence[KnownIssue], *, covered: bool = False) -> Result:
    """The result with its known issue applied: xfail, xpass, or unchanged (``covered``: every
    entry covers its target). A defect is never claimed: it says nothing of the backend."""
    if result.defect is not None:
        return result
    for issue in issues:
        if not (issue.selects(result) if covered else issue.matches(result)):
            continue
        if result.status == "pass":
            return result.with_status(
                "xpass", f"passes, but listed as known issue {issue.id}: {issue.reason}", issue.to_json()
            )
        if result.status in issue.statuses:
            return result.with_status("xfail", f"known issue {issue.id}: {result.message}", issue.to_json())
    return result


def stale(issues: Iterable[KnownIssue], results: Iterable[Result]) -> list[KnownIssue]:
    """Entries whose results ran and none failed as listed: the bug looks fixed. An entry that
    selected nothing, or only items the target could not run, is not stale."""
    by_target: dict[str, list[Result]] = defaultdict(list)
    for result in results:
        by_target[result.target_id].append(result)
    found = []
    for issue in issues:
        selected = [
            result
            for target, found_there in by_target.items()
            if issue.covers(target)
            for result in found_there
            # an item the target could not run says nothing of the bug, unless the entry is about that
            if issue.selects(result) and (result.status != "unsupported" or "unsupported" in issue.statuses)
        ]
        if selected and not any(result.status == "xfail" for result in selected):
            found.append(issue)
    return found
