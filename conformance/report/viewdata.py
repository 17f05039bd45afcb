"""From combined results to what the page shows: one-line summaries, and the lean data it embeds.

A report must open fast with tens of thousands of results, so the page holds the data once, as
JSON, and builds only the visible part of the matrix. That JSON is shaped for size: every
repeated string (messages, ids, titles, outcome summaries, pieces of reproducers) is interned in
one table, a case's parameters are stored once rather than on each of its results, and a
result is a short array (see :func:`view_data` for the layout).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from conformance import dtypes, ids
from conformance.corpus.case import GraphSpec
from conformance.corpus.catalogue import op_order
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
from conformance.statuses import LETTERS, STATUSES, groups

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
    """Output shapes in a few characters: ``3 x [2,4]`` (with a multiplication sign) or
    ``4: [2] [2] [1] [1]``."""
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
    """A graph option's value as the report shows it: ``{axis: constant, lengths: runtime}``."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key}: {inner}" for key, inner in value.items()) + "}"
    return str(value)


def request_text(params: ParamsRecord) -> str:
    """The request a case makes, e.g. ``float32 [6] axis 0, parts 4``."""
    data = params.get("data", {})
    form = params.get("form", {"kind": "?", "value": []})
    value = form["value"]
    shown = _shape(value) if isinstance(value, list) else str(value)
    axis = params.get("axis")
    graph = params.get("graph") or {}
    options = [f"{key}={option_text(graph[key])}" for key in graph if GRAPH_DEFAULTS.get(key) != graph[key]]
    where = "default axis" if axis is None else f"axis {axis}"
    text = f"{data.get('dtype')} {_shape(data.get('shape', []))} {where}, {form['kind']} {shown}"
    return text + (f" ({', '.join(options)})" if options else "")


def data_bytes(params: ParamsRecord) -> int | None:
    """Bytes of the input tensor (None for strings, whose size is not fixed)."""
    data = params.get("data", {})
    try:
        itemsize = dtypes.numpy_dtype(str(data.get("dtype"))).itemsize
    except ValueError:
        return None
    if data.get("dtype") == "string":
        return None
    return math.prod(int(size) for size in data.get("shape", [])) * itemsize


def _round(value: float | None) -> float | None:
    """Four significant digits: enough to read and compare, a third of the characters."""
    return None if value is None else float(f"{value:.4g}")


def _timing(timing: TimingRecord | None) -> list[Any] | int:
    if not timing:
        return 0
    steady = [_round(value) for value in timing.get("steady_ms") or []]
    phases = [
        _round(timing.get("build_ms")),
        _round(timing.get("compile_ms")),
        _round(timing.get("first_run_ms")),
    ]
    if not steady and all(value is None for value in phases):
        return 0
    return [*phases, steady]


def view_data(combined: CombinedResults) -> JSON:
    """The page's data. Layout (indices point into the named lists, -1 meaning none):

    - ``s``: the string table; ``cases[i]``: ``{id, t (title), n (note), d (dtype), g (tags),
      x (request text), p (params)}`` with strings as indices into ``s``;
    - ``items[i]``: ``[case, op, expected (into exp), expected text, ambiguous]``;
    - ``res[i]``: ``[item, target, status, message, actual (into act), actual text, timing,
      extra]``, sorted by item then target; timing is ``[build, compile, first, [steady...]]``
      in ms or 0;
    - ``extra[i]``: only what some results have: ``mm`` mismatch, ``ki`` known issue (into
      ``known``), ``rd`` reading, ``rp`` reproducer ``{c: command, p: [pieces of the Python
      snippet, split at its triple quotes so the data blocks shared by a case's results are
      stored once]}``, ``w`` worker; for a case with runs, ``re`` ``[expected (into exp), expected
      text]`` of the run that decided (the item's own expectation is run 1's) and ``ru`` a list of
      ``[label, status, message]``, one per run; ``sh`` 1 when the route is judged on shapes only.
    """
    strings, expected, actual, known = Interner(), Interner(), Interner(), Interner()
    case_index: dict[str, int] = {}
    cases: list[JSON] = []
    tag_set: set[str] = set()
    dtype_set: set[str] = set()
    for result in combined.results:
        case_id = result["case"]
        if case_id in case_index:
            continue
        params = dict(result["params"])
        tags = [str(tag) for tag in result["params"].get("tags", [])]
        tag_set.update(tags)
        dtype = str(result["params"].get("data", {}).get("dtype"))
        dtype_set.add(dtype)
        title, note = result["params"].get("title"), result["params"].get("note")
        for shown_apart in ("tags", "title", "note"):
            params.pop(shown_apart, None)
        case_index[case_id] = len(cases)
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
    tags = sorted(tag_set)
    dtype_list = [name for name in dtypes.ALL if name in dtype_set] + sorted(dtype_set - set(dtypes.ALL))
    for case in cases:
        case["d"] = dtype_list.index(case["d"])
        case["g"] = [tags.index(tag) for tag in case["g"]]
    op_list = sorted({result["op"] for result in combined.results}, key=op_order)
    target_list = [target["id"] for target in combined.targets]
    target_index = {tid: number for number, tid in enumerate(target_list)}
    item_keys = sorted(
        {(case_index[result["case"]], op_list.index(result["op"])) for result in combined.results}
    )
    item_index = {key: number for number, key in enumerate(item_keys)}
    items: list[list[Any]] = [[case, op, -1, -1, 0] for case, op in item_keys]
    status_index: dict[str, int] = {status: number for number, status in enumerate(STATUSES)}
    rows: list[list[Any]] = []
    extras: list[JSON] = []
    for result in combined.results:
        number = item_index[(case_index[result["case"]], op_list.index(result["op"]))]
        dtype = result["params"].get("data", {}).get("dtype", "?")
        item = items[number]
        runs = result.get("runs") or []
        # the item's expectation is its case's own request (run 1); a result decided by a later
        # run carries that run's expectation in its extra
        own = runs[0]["expected"] if runs else result.get("expected") or {}
        if item[2] < 0:
            item[2] = expected(own)
            item[3] = strings(expected_text(own, dtype))
            item[4] = 1 if result.get("ambiguous") else 0
        extra = _extra(result, strings, known)
        if runs:
            decided = result.get("expected") or {}
            extra["re"] = [expected(decided), strings(expected_text(decided, dtype))]
            extra["ru"] = [
                [
                    strings(run["label"]),
                    status_index.get(run["status"], status_index["error"]),
                    strings(run["message"]),
                ]
                for run in runs
            ]
        if extra:
            extras.append(extra)
        rows.append(
            [
                number,
                target_index[ids.record_target(result)],
                status_index.get(result["status"], status_index["error"]),
                strings(result.get("message", "")),
                actual(result.get("actual") or {}),
                strings(actual_text(result)),
                _timing(result.get("timing")),
                len(extras) - 1 if extra else -1,
            ]
        )
    rows.sort(key=lambda row: (row[0], row[1]))
    return {
        "format": DATA_FORMAT,
        "statuses": list(STATUSES),
        "letters": [LETTERS[status] for status in STATUSES],
        "groups": {name: [status_index[status] for status in members] for name, members in groups().items()},
        "targets": [_target_view(target, combined.runs) for target in combined.targets],
        "ops": op_list,
        "tags": tags,
        "dtypes": dtype_list,
        "itemsize": {name: _itemsize(name) for name in dtype_list},
        "gd": GRAPH_DEFAULTS,
        "s": strings.values,
        "cases": cases,
        "items": items,
        "exp": expected.values,
        "act": actual.values,
        "known": known.values,
        "res": rows,
        "extra": extras,
    }


def _itemsize(name: str) -> int:
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


def _extra(result: ResultRecord, strings: Interner, known: Interner) -> JSON:
    """The fields only some results carry, with their strings interned."""
    extra: JSON = {}
    if result["mismatch"]:
        extra["mm"] = result["mismatch"]
    known_issue = result.get("known_issue")
    if known_issue:
        extra["ki"] = known(known_issue)
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
    return extra
