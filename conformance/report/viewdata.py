"""From combined results to what the page shows: one-line summaries, and the lean data it embeds.

The page holds the data once, as JSON, and builds only the visible part, so the JSON is shaped for
size: repeated strings are interned in one table, a case's parameters are stored once, and a
result is a short array (see :func:`view_data`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from conformance import dtypes, ids
from conformance.corpus.case import GraphSpec
from conformance.corpus.catalogue import op_order
from conformance.report import layout, urlkeys
from conformance.results.behaviours import BEHAVIOURS, Classifier
from conformance.results.combined import CombinedResults, CombinedTarget, SourcedRun
from conformance.results.records import (
    ExpectedRecord,
    OutputRecord,
    ParamsRecord,
    ReadingRecord,
    ResultRecord,
    TimingRecord,
)
from conformance.results.result import JSON
from conformance.statuses import DEFECT_LABELS, DEFECT_MEANINGS, DEFECTS, LETTERS, STATUSES, groups

#: Name and version of the embedded data layout (the page's script reads it).
DATA_FORMAT = "conformance.report-data/1"
#: How many output shapes an outcome summary lists before abbreviating.
SHOWN_SHAPES = 8
#: Typography of the page, written as escapes so the source stays ASCII.
TIMES, DASH, MINUS, ELLIPSIS = "\u00d7", "\u2013", "\u2212", "\u2026"


class Interner:
    """A table of distinct values and the index of each; strings by value, objects by their JSON."""

    def __init__(self) -> None:
        self.values: list[Any] = []
        self._index: dict[str, int] = {}

    def __call__(self, value: Any) -> int:
        """The index of ``value`` (added on first sight); -1 for None."""
        if value is None:
            return -1
        # repr, not json.dumps: three times faster, and equal values from one writer repr the same
        key = value if isinstance(value, str) else "\0" + repr(value)
        found = self._index.get(key)
        if found is None:
            found = self._index[key] = len(self.values)
            self.values.append(value)
        return found


def _shape(shape: Sequence[int]) -> str:
    return "[" + ",".join(str(size) for size in shape) + "]"


def outputs_text(outputs: Sequence[OutputRecord], dtype: str | None) -> str:
    """Output shapes in a few characters: ``3 x [2,4]`` (x: a multiplication sign), ``4: [2] [2] [1] [1]``."""
    shapes = [_shape(output["shape"]) for output in outputs]
    others = sorted({str(output["dtype"]) for output in outputs} - {dtype})
    suffix = f" ({', '.join(others)})" if others else ""
    if not shapes:
        return "0 outputs" + suffix
    if len(shapes) > 1 and len(set(shapes)) == 1:
        return f"{len(shapes)} {TIMES} {shapes[0]}{suffix}"
    shown = " ".join(shapes[:SHOWN_SHAPES])
    more = f" {ELLIPSIS} +{len(shapes) - SHOWN_SHAPES}" if len(shapes) > SHOWN_SHAPES else ""
    return f"{len(shapes)}: {shown}{more}{suffix}"


def expected_text(expected: ExpectedRecord, dtype: str | None) -> str:
    """The reference's answer in one line: shapes, the rule that rejects, or each reading."""
    if "readings" in expected:
        readings = [
            f"{reading['label']}: {_outcome_text(reading, dtype)}" for reading in expected["readings"]
        ]
        return "either " + " | ".join(readings)
    return _outcome_text(expected, dtype)


def _outcome_text(outcome: ExpectedRecord | ReadingRecord, dtype: str | None) -> str:
    if "rejected" in outcome:
        return f"rejects ({outcome['rejected']['rule']})"
    return outputs_text(outcome.get("outputs", []), dtype)


def actual_text(result: ResultRecord) -> str:
    """What the target did in one line: its output shapes, what it raised, or its status."""
    actual = result["actual"]
    if "raised" in actual:
        raised = actual["raised"]
        return f"raises {raised['type']} ({raised['phase']})"
    if "outputs" in actual:
        return outputs_text(actual["outputs"], result["params"].get("data", {}).get("dtype"))
    return result["status"]


#: Every graph option at its default, as a results file writes it; the page's scripts get it too.
GRAPH_DEFAULTS: dict[str, Any] = GraphSpec().as_dict()


def option_text(value: object) -> str:
    """A graph option's value as the report shows it: ``{lengths: runtime}`` for the inputs fed at
    run time (the others, constants, are the default and would only lengthen the line)."""
    if isinstance(value, dict):
        fed = {key: inner for key, inner in value.items() if inner != "constant"} or value
        return "{" + ", ".join(f"{key}: {inner}" for key, inner in fed.items()) + "}"
    return str(value)


def request_text(params: ParamsRecord) -> str:
    """The request a case makes, e.g. ``float32 [6] axis 0, parts 4`` or ``float32 [2, 4] slice
    starts [1], ends [3]``."""
    data = params.get("data", {})
    graph = params.get("graph") or {}
    options = [f"{key}={option_text(graph[key])}" for key in graph if GRAPH_DEFAULTS.get(key) != graph[key]]
    if "slice" in params:
        keys = ", ".join(
            f"{key} {_shape(value) if isinstance(value, list) else value}"
            for key, value in params["slice"].items()
        )
        text = f"{data.get('dtype')} {_shape(data.get('shape', []))} slice {keys}"
        return text + (f" ({', '.join(options)})" if options else "")
    form = params.get("form", {"kind": "?", "value": []})
    value = form["value"]
    shown = _shape(value) if isinstance(value, list) else str(value)
    axis = params.get("axis")
    where = "default axis" if axis is None else f"axis {axis}"
    text = f"{data.get('dtype')} {_shape(data.get('shape', []))} {where}, {form['kind']} {shown}"
    return text + (f" ({', '.join(options)})" if options else "")


def data_bytes(params: ParamsRecord) -> int | None:
    """Bytes of the input tensor (None for strings, whose size is not fixed)."""
    data = params.get("data", {})
    itemsize = _itemsize(str(data.get("dtype")))
    return math.prod(int(size) for size in data.get("shape", [])) * itemsize if itemsize else None


def _round(value: float | None) -> float | None:
    """Four significant digits: enough to read and compare, a third of the characters."""
    return None if value is None else float(f"{value:.4g}")


def _timing(timing: TimingRecord | None) -> list[Any] | int:
    if not timing:
        return 0
    steady = [_round(value) for value in timing.get("steady_ms") or []]
    build, compile_ = _round(timing.get("build_ms")), _round(timing.get("compile_ms"))
    first = _round(timing.get("first_run_ms"))
    if not steady and build is None and compile_ is None and first is None:
        return 0
    return layout.pack(layout.TIMING, build=build, compile=compile_, first=first, steady=steady)


def view_data(combined: CombinedResults) -> JSON:
    """The page's data. Indices point into the named lists, -1 meaning none; arrays are laid out
    as :mod:`conformance.report.layout` names them (``fields``):

    - ``s``: the string table; ``cases[i]``: ``{id, t (title), n (note), d (dtype), g (tags),
      x (request text), p (params)}``; ``items[i]``: ``layout.ITEM``; ``behaviours``: the
      compatibility page's rows as ``{slug, title}``, ``bsets`` the distinct lists of them;
    - ``res[i]``: ``layout.RESULT``, sorted by item then target;
    - ``extra[i]``: ``mm`` mismatch, ``ki`` known issue, ``rd`` reading, ``rp`` reproducer
      ``{c: command, p: [the Python snippet split at its triple quotes, so a case's shared data
      blocks are stored once]}``, ``w`` worker, ``df`` defect, ``sh`` 1 when judged on shapes
      only; for a case with runs, ``re`` (``layout.DECIDED``) and ``ru`` (``layout.RUN`` each).
    """
    tables = _Tables()
    classifier = Classifier()
    cases = _case_table(combined.results, tables.strings)
    op_list = sorted({result["op"] for result in combined.results}, key=op_order)
    op_index = {op: number for number, op in enumerate(op_list)}
    keys = [(cases.index[result["case"]], op_index[result["op"]]) for result in combined.results]
    item_keys = sorted(set(keys))
    item_index = {key: number for number, key in enumerate(item_keys)}
    items: list[JSON] = [{"case": case, "op": op} for case, op in item_keys]
    target_index = {target["id"]: number for number, target in enumerate(combined.targets)}
    rows: list[list[Any]] = []
    extras: list[JSON] = []
    for result, key in zip(combined.results, keys, strict=True):
        number = item_index[key]
        _describe_item(items[number], result, tables, classifier)
        extra = _extra(result, tables)
        if extra:
            extras.append(extra)
        rows.append(
            layout.pack(
                layout.RESULT,
                item=number,
                target=target_index[ids.record_target(result)],
                status=_status_code(result["status"]),
                message=tables.strings(result.get("message", "")),
                actual=tables.actual(result.get("actual") or {}),
                actual_text=tables.strings(actual_text(result)),
                timing=_timing(result.get("timing")),
                extra=len(extras) - 1 if extra else -1,
            )
        )
    rows.sort(key=itemgetter(_RESULT_ITEM, _RESULT_TARGET))
    return {
        "format": DATA_FORMAT,
        "fields": layout.fields(),
        "keys": list(urlkeys.KEYS),
        "filters": list(urlkeys.FILTERS),
        "defects": defect_view(),
        "statuses": list(STATUSES),
        "letters": [LETTERS[status] for status in STATUSES],
        "groups": {name: [STATUS_CODES[status] for status in members] for name, members in groups().items()},
        "targets": [_target_view(target, combined.runs) for target in combined.targets],
        "ops": op_list,
        "families": op_families(op_list),
        "tags": cases.tags,
        "dtypes": cases.dtypes,
        "itemsize": {name: _itemsize(name) for name in cases.dtypes},
        "gd": GRAPH_DEFAULTS,
        "s": tables.strings.values,
        "cases": cases.cases,
        "items": [layout.pack(layout.ITEM, **item) for item in items],
        "behaviours": [{"slug": row.slug, "title": row.title} for row in BEHAVIOURS],
        "bsets": tables.bsets.values,
        "exp": tables.expected.values,
        "act": tables.actual.values,
        "known": tables.known.values,
        "res": rows,
        "extra": extras,
    }


#: Status names to their codes in the page's data (an unknown status is shown as an error).
STATUS_CODES: dict[str, int] = {status: number for number, status in enumerate(STATUSES)}
_RESULT_ITEM, _RESULT_TARGET = layout.RESULT.index("item"), layout.RESULT.index("target")


def _status_code(status: str) -> int:
    return STATUS_CODES.get(status, STATUS_CODES["error"])


def op_family(op: str) -> str:
    """An op's family, every version of it together: ``onnx.Split`` for ``onnx.Split-18`` (as
    findings group them, :func:`conformance.results.findings.signature`)."""
    return op.rpartition("-")[0] or op


def op_families(op_list: Sequence[str]) -> dict[str, list[int]]:
    """The families that are not themselves an op id, each with its ops (indices into ``op_list``):
    what the ``op`` filter accepts besides single ops."""
    found: dict[str, list[int]] = {}
    for number, op in enumerate(op_list):
        family = op_family(op)
        if family != op:
            found.setdefault(family, []).append(number)
    return found


@dataclass
class _Tables:
    """The interned tables of the page's data."""

    strings: Interner = field(default_factory=Interner)
    expected: Interner = field(default_factory=Interner)
    actual: Interner = field(default_factory=Interner)
    known: Interner = field(default_factory=Interner)
    bsets: Interner = field(default_factory=Interner)


@dataclass
class _Cases:
    """The cases, once each, with the tags and dtypes they use (in the order the filters list them)."""

    cases: list[JSON]
    index: dict[str, int]
    tags: list[str]
    dtypes: list[str]


def _case_table(results: Sequence[ResultRecord], strings: Interner) -> _Cases:
    """Each case's parameters once, however many results it has: the biggest saving in the data."""
    index: dict[str, int] = {}
    cases: list[JSON] = []
    tag_set: set[str] = set()
    dtype_set: set[str] = set()
    for result in results:
        case_id = result["case"]
        if case_id in index:
            continue
        params = dict(result["params"])
        tags = [str(tag) for tag in result["params"].get("tags", [])]
        tag_set.update(tags)
        dtype = str(result["params"].get("data", {}).get("dtype"))
        dtype_set.add(dtype)
        title, note = result["params"].get("title"), result["params"].get("note")
        for shown_apart in ("tags", "title", "note"):
            params.pop(shown_apart, None)
        index[case_id] = len(cases)
        cases.append(
            {
                "id": strings(case_id),
                "t": strings(title),
                "n": strings(note),
                "d": dtype,
                "g": tags,
                "x": strings(request_text(result["params"])),
                "p": params,
            }
        )
    tag_list = sorted(tag_set)
    dtype_list = [name for name in dtypes.ALL if name in dtype_set] + sorted(dtype_set - set(dtypes.ALL))
    tag_number = {tag: number for number, tag in enumerate(tag_list)}
    dtype_number = {name: number for number, name in enumerate(dtype_list)}
    for case in cases:
        case["d"] = dtype_number[case["d"]]
        case["g"] = [tag_number[tag] for tag in case["g"]]
    return _Cases(cases, index, tag_list, dtype_list)


def _describe_item(item: JSON, result: ResultRecord, tables: _Tables, classifier: Classifier) -> None:
    """Fill in an item's expectation and behaviours from its first result. The item's expectation
    is its case's own request (run 1): a result decided by a later run carries that run's in its extra."""
    if "expected" in item:
        return
    item["behaviours"] = tables.bsets(list(classifier.rows(result["case"], result["op"], result["params"])))
    runs = result.get("runs") or []
    item.update(_expectation(runs[0]["expected"] if runs else result.get("expected") or {}, result, tables))
    item["ambiguous"] = 1 if result.get("ambiguous") else 0


def _expectation(expected: ExpectedRecord, result: ResultRecord, tables: _Tables) -> dict[str, int]:
    """An expectation and its one-line text, interned (``layout.DECIDED``)."""
    dtype = result["params"].get("data", {}).get("dtype", "?")
    text = expected_text(expected, dtype)
    return {"expected": tables.expected(expected), "expected_text": tables.strings(text)}


def _itemsize(name: str) -> int:
    """Bytes per element; 0 for strings (no fixed size) and unknown names."""
    try:
        return 0 if name == "string" else dtypes.numpy_dtype(name).itemsize
    except ValueError:
        return 0


def _target_view(target: CombinedTarget, runs: Sequence[SourcedRun]) -> JSON:
    return {
        "id": target["id"],
        "backend": target.get("backend", ""),
        "version": target.get("version", ""),
        "memcpy": runs[target["run"]].get("memcpy", []),
    }


def _extra(result: ResultRecord, tables: _Tables) -> JSON:
    """The fields only some results carry, with their strings interned."""
    strings = tables.strings
    extra: JSON = {}
    if result["mismatch"]:
        extra["mm"] = result["mismatch"]
    known_issue = result.get("known_issue")
    if known_issue:
        extra["ki"] = tables.known(known_issue)
    reading = result.get("reading")
    if reading:
        extra["rd"] = strings(reading)
    reproducer = result.get("reproducer")
    if reproducer:
        python = reproducer["python"]
        extra["rp"] = {
            "c": strings(reproducer["command"]),
            "p": None if python is None else [strings(piece) for piece in python.split("'''")],
        }
    worker = result.get("worker")
    if worker and result["status"] != "pass":
        extra["w"] = worker
    if result.get("judged") == "shapes":
        extra["sh"] = 1
    defect = defect_of(result)
    if defect:
        extra["df"] = defect
    runs = result.get("runs") or []
    if runs:
        decided = _expectation(result.get("expected") or {}, result, tables)
        extra["re"] = layout.pack(layout.DECIDED, **decided)
        extra["ru"] = [
            layout.pack(
                layout.RUN,
                label=strings(run["label"]),
                status=_status_code(run["status"]),
                message=strings(run["message"]),
            )
            for run in runs
        ]
    return extra


def defect_of(result: ResultRecord) -> str | None:
    """``adapter`` or ``harness`` when the adapter's own code, or the suite, failed on the item (the
    result is not the backend's verdict); None otherwise, older files included."""
    defect = result.get("defect")
    return defect if defect in DEFECTS else None


def defect_view() -> dict[str, JSON]:
    """Each value of the ``defect`` filter with its label and meaning, in the filter's order."""
    view: dict[str, JSON] = {
        kind: {"label": DEFECT_LABELS[kind], "meaning": DEFECT_MEANINGS[kind]} for kind in DEFECTS
    }
    view["none"] = {"label": "none: the backend's own verdict", "meaning": "the backend's own verdict"}
    return view
