"""The compatibility page's content: Split's behaviours by framework, from results files.

A row is a behaviour (:mod:`conformance.results.behaviours`); its columns are what each op's spec
answers to the row's example requests (``3,3,1``, ``error``), grouped by framework, and what each
adapter does on all of the row's requests (:mod:`conformance.results.departures`): "conforms",
the known issues behind the departures that belong to the row, "departs (unexplained)", departs
for another row's behaviour, or not all judged. :mod:`conformance.report.compat_html` and
``compat_markdown`` write it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeAlias

from conformance.corpus.catalogue import OPS, op_order
from conformance.results.behaviours import BEHAVIOURS, Behaviour, Classifier, default_axis
from conformance.results.combined import CombinedResults
from conformance.results.departures import Attribution, Finding, Verdict, signature
from conformance.results.records import (
    ExpectedRecord,
    KnownIssueRecord,
    ParamsRecord,
    ReadingRecord,
    ResultRecord,
)

#: The frameworks (catalogue families) in the order the page's columns list them, with their names.
FRAMEWORKS: dict[str, str] = {
    "openvino": "OpenVINO",
    "onnx": "ONNX",
    "torch": "PyTorch",
    "numpy": "NumPy",
    "tensorflow": "TensorFlow",
    "tflite": "LiteRT",
    "jax": "JAX",
    "keras": "Keras",
    "cupy": "CuPy",
    "paddle": "PaddlePaddle",
    "mlx": "MLX",
    "tfjs": "TensorFlow.js",
}
#: Example requests a row shows (the first in the overview, all in its section).
EXAMPLES = 2
#: Pieces an answer lists before abbreviating.
SHOWN_PIECES = 6
ERROR = "error"
#: Each item's (case, op) expectation and resolved case, from its first result.
Expected: TypeAlias = dict[tuple[str, str], tuple[ExpectedRecord, ParamsRecord]]


def family(op: str) -> str:
    """The framework an op belongs to (its catalogue family; the id's prefix for others)."""
    entry = OPS.get(op)
    return entry.framework if entry is not None else op.partition(".")[0]


#: Modules named within their framework's column as their users import them.
SHORT_MODULES = {"tensorflow.experimental.numpy.": "tnp.", "jax.numpy.": "jnp."}


def op_label(op: str) -> str:
    """An op's name within its framework's column: ``Split-18``, ``chunk``, ``lax.split``,
    ``tnp.split`` (``tf.experimental.numpy.split``), ``jnp.array_split`` (``jax.numpy``)."""
    for module, short in SHORT_MODULES.items():
        if op.startswith(module):
            return short + op.removeprefix(module)
    return op.removeprefix(family(op) + ".")


def pieces_text(outputs: Sequence[Sequence[int]], shape: Sequence[int], axis: int) -> str:
    """The pieces' lengths along ``axis``: ``3,3,1``, ``10 of 1``, ``7 of 1, 0``; ``k pieces, axis
    dropped`` when the outputs lost it (SplitToSequence with keepdims 0)."""
    if not outputs:
        return "no pieces"
    if any(len(output) != len(shape) for output in outputs):
        return f"{len(outputs)} pieces, axis dropped"
    lengths = [output[axis] for output in outputs]
    if len(lengths) <= SHOWN_PIECES:
        return ",".join(str(length) for length in lengths)
    runs: list[list[int]] = []  # [length, how many in a row]
    for length in lengths:
        if runs and runs[-1][0] == length:
            runs[-1][1] += 1
        else:
            runs.append([length, 1])
    if len(runs) <= 3:
        return ", ".join(f"{times} of {length}" if times > 1 else str(length) for length, times in runs)
    shown = ",".join(str(length) for length in lengths[: SHOWN_PIECES - 2])
    return f"{shown},…,{lengths[-1]} ({len(lengths)} pieces)"


@dataclass(frozen=True)
class Answer:
    """What an op's spec answers to one request: ``text`` in a few characters, ``detail`` the
    rule that rejects it or the full shapes (the page's tooltip and footnote)."""

    text: str
    detail: str


def answer(expected: ExpectedRecord, params: ParamsRecord, op: str) -> Answer:
    """The reference's answer to ``params`` under ``op``, in a few characters."""
    shape = list(params.get("data", {}).get("shape", []))
    written = params.get("axis")
    axis = default_axis(op, len(shape)) if written is None else written
    axis = axis % len(shape) if shape and -len(shape) <= axis < len(shape) else 0

    def one(outcome: ExpectedRecord | ReadingRecord) -> Answer:
        if "rejected" in outcome:
            return Answer(ERROR, f"rejected by rule {outcome['rejected']['rule']}")
        outputs = [list(output["shape"]) for output in outcome.get("outputs", [])]
        shapes = " ".join("[" + ",".join(str(size) for size in output) + "]" for output in outputs)
        if "slice" in params:  # one output, whose shape is the answer
            return Answer(shapes or "no outputs", shapes or "no outputs")
        return Answer(pieces_text(outputs, shape, axis), shapes or "no outputs")

    if "readings" in expected:
        readings = [(reading["label"], one(reading)) for reading in expected["readings"]]
        texts = list(dict.fromkeys(found.text for _, found in readings))
        return Answer(" or ".join(texts), "; ".join(f"{label}: {found.detail}" for label, found in readings))
    return one(expected)


@dataclass
class Example:
    """One request a row shows: its case, and each op's answer (ops in catalogue order)."""

    case: str
    title: str
    request: ParamsRecord
    answers: dict[str, Answer] = field(default_factory=dict)
    verdicts: dict[str, Verdict] = field(default_factory=lambda: defaultdict(Verdict))
    documents: set[int] = field(default_factory=set)  # the results documents its results came from


@dataclass
class Row:
    """A behaviour, the requests in it, its examples and every adapter's verdict on it."""

    behaviour: Behaviour
    number: int  # its index into BEHAVIOURS
    cases: dict[str, set[str]] = field(default_factory=dict)  # case -> its ops in this row
    results: int = 0
    examples: list[Example] = field(default_factory=list)
    verdicts: dict[str, Verdict] = field(default_factory=lambda: defaultdict(Verdict))
    documents: set[int] = field(default_factory=set)  # the results documents its results came from

    def ran(self, adapters: Sequence[str]) -> list[str]:
        """The ``adapters`` that ran any request of the row (a section lists those alone)."""
        return [adapter for adapter in adapters if self.verdicts[adapter].word]


@dataclass
class CompatPage:
    """The whole page: rows with results, the frameworks and adapters they cover."""

    rows: list[Row]
    frameworks: list[str]  # families, in column order
    adapters: dict[str, list[str]]  # adapter -> its target ids
    known: list[KnownIssueRecord]  # every known issue a cell cites, numbered by position
    suite: dict[str, object]
    results: int
    sources: list[str]  # each results document's label (its path), in the order given

    def known_number(self, issue_id: str) -> int:
        """An issue's footnote number (from 1)."""
        return next(number for number, issue in enumerate(self.known, 1) if issue["id"] == issue_id)


def build(combined: CombinedResults) -> CompatPage:
    """The page over ``combined`` results: one pass to classify and count, then the examples, then
    one pass to give each departure its rows and every verdict."""
    classifier = Classifier()
    attribution = Attribution()
    rows = [Row(behaviour, number) for number, behaviour in enumerate(BEHAVIOURS)]
    expected: Expected = {}
    case_rows: dict[str, set[int]] = defaultdict(set)
    adapters: dict[str, list[str]] = {}
    for entry in combined.targets:
        adapters.setdefault(entry["name"], []).append(entry["id"])
    counted: list[tuple[ResultRecord, tuple[int, ...], Finding | None]] = []
    for result in combined.results:
        case, op = result["case"], result["op"]
        found = classifier.rows(case, op, result["params"])
        if (case, op) not in expected:
            runs = result.get("runs") or []
            own = runs[0]["expected"] if runs else result["expected"]
            expected[(case, op)] = (own, result["params"])
        finding = signature(result)
        attribution.count(result, finding, found)
        counted.append((result, found, finding))
        for number in found:
            rows[number].cases.setdefault(case, set()).add(op)
            rows[number].results += 1
            case_rows[case].add(number)
    shown = [row for row in rows if row.cases]
    chosen = {row.behaviour.slug: _examples(row, case_rows) for row in shown}
    wanted: dict[str, list[tuple[Row, Example]]] = defaultdict(list)
    for row in shown:
        row.examples = [_example(case, row, expected) for case in chosen[row.behaviour.slug]]
        for example in row.examples:
            wanted[example.case].append((row, example))
    origins = combined.origins or [0] * len(combined.results)
    documents: dict[tuple[str, str], set[int]] = defaultdict(set)  # (case, op) -> its documents
    for (result, found, finding), origin in zip(counted, origins, strict=True):
        owners = attribution.owners(finding, found) if finding else ()
        documents[(result["case"], result["op"])].add(origin)
        for number in found:
            rows[number].verdicts[result["adapter"]].add(result, finding, owners, number)
        for row, example in wanted.get(result["case"], ()):  # its own ops' results, in its row
            if result["op"] in row.cases[example.case]:
                example.verdicts[result["adapter"]].add(result, finding, owners, row.number)
    for row in shown:  # the results documents each row's and each example's results came from
        row.documents = {n for case, ops in row.cases.items() for op in ops for n in documents[(case, op)]}
        for example in row.examples:
            example.documents = {n for op in row.cases[example.case] for n in documents[(example.case, op)]}
    _interrupted(combined, shown)
    families = {family(op) for _, op in expected}
    return CompatPage(
        rows=shown,
        frameworks=[name for name in FRAMEWORKS if name in families] + sorted(families - set(FRAMEWORKS)),
        adapters=adapters,
        known=_known_issues(shown, sorted(adapters)),
        suite=dict(combined.suite),
        results=len(combined.results),
        sources=[run["source"] for run in combined.runs],
    )


def _examples(row: Row, case_rows: dict[str, set[int]]) -> list[str]:
    """The row's example cases: its preferred ones the results hold, then those under the most
    ops and in the fewest other rows (the plainest requests), in the results' order."""
    preferred = [case for case in row.behaviour.prefer if case in row.cases]
    order = {case: number for number, case in enumerate(row.cases)}
    others = sorted(
        (case for case in row.cases if case not in preferred),
        key=lambda case: (-len(row.cases[case]), len(case_rows[case]), order[case]),
    )
    return (preferred + others)[:EXAMPLES]


def _example(case: str, row: Row, expected: Expected) -> Example:
    ops = sorted(row.cases[case], key=op_order)
    params = expected[(case, ops[0])][1]
    example = Example(case, str(params.get("title") or case), params)
    for op in ops:
        outcome, params = expected[(case, op)]
        example.answers[op] = answer(outcome, params, op)
    return example


def _interrupted(combined: CombinedResults, rows: Sequence[Row]) -> None:
    """Mark the verdicts of each adapter with a target from an interrupted run: items of its
    selection never ran, so none of its cells can say it conforms."""
    stopped = {number for number, run in enumerate(combined.runs) if run.get("interrupted")}
    by_adapter: dict[str, set[str]] = defaultdict(set)
    for target in combined.targets:
        if target["run"] in stopped:
            by_adapter[target["name"]].add(target["id"])
    for row in rows:
        for adapter, targets in by_adapter.items():
            for verdicts in (row.verdicts, *(example.verdicts for example in row.examples)):
                verdicts[adapter].interrupted |= targets


def _known_issues(rows: Sequence[Row], adapters: Sequence[str]) -> list[KnownIssueRecord]:
    """Every known issue a cell cites, in reading order (row by row, adapter by adapter): those
    of a row's own departures, then those its sections name as another row's."""
    found: dict[str, KnownIssueRecord] = {}
    for row in rows:
        for adapter in adapters:
            for issue_id, (issue, _) in sorted(row.verdicts[adapter].known.items()):
                found.setdefault(issue_id, issue)
    for row in rows:
        for adapter in adapters:
            for departure in row.verdicts[adapter].departures.values():
                if departure.issue:
                    found.setdefault(departure.issue["id"], departure.issue)
    return list(found.values())


def grouped(answers: dict[str, Answer], ops: Sequence[str]) -> list[tuple[str, str]]:
    """``ops``' answers with the ops that give each, in the order of their first op:
    ``[("error", "Split-1/2/11/13"), ("3,3,1", "Split-18")]``."""
    found: dict[str, list[str]] = {}
    for op in ops:
        if op in answers:
            found.setdefault(answers[op].text, []).append(op)
    return [(text, labels(members)) for text, members in found.items()]


def labels(ops: Sequence[str]) -> str:
    """Ops of one framework named together, versions folded: ``Split-1/2/11/13``, ``chunk, tensor_split``."""
    names: dict[str, list[str]] = {}
    for op in ops:
        name, dash, version = op_label(op).rpartition("-")
        if dash and version.isdigit():
            names.setdefault(name + "-", []).append(version)
        else:
            names.setdefault(op_label(op), [])
    return ", ".join(name + "/".join(versions) for name, versions in names.items())


def framework_ops(row: Row, framework: str) -> list[str]:
    """The framework's ops under any of the row's examples, in catalogue order."""
    ops = {op for example in row.examples for op in example.answers if family(op) == framework}
    return sorted(ops, key=op_order)


def spec_lines(row: Row, framework: str) -> list[tuple[str, list[Answer | None]]]:
    """The row's section table for one framework: ops grouped where they answer every example
    alike, each group's label and its answer per example (None: the op cannot express it)."""
    groups: dict[tuple[str | None, ...], list[str]] = {}
    for op in framework_ops(row, framework):
        key = tuple(example.answers[op].text if op in example.answers else None for example in row.examples)
        groups.setdefault(key, []).append(op)
    return [
        (labels(ops), [example.answers.get(ops[0]) for example in row.examples]) for ops in groups.values()
    ]


def by_group(rows: Sequence[Row]) -> list[tuple[str, list[Row]]]:
    """The rows under their group's name (counts, lengths, ...), in the page's order."""
    found: dict[str, list[Row]] = {}
    for row in rows:
        found.setdefault(row.behaviour.group, []).append(row)
    return list(found.items())


def routes(targets: set[str], every: Sequence[str]) -> list[str]:
    """The routes and devices (``export/cpu``) of an adapter's ``targets`` that depart; none when
    they are all of its targets (``every``), which the adapter's name says already."""
    if len(every) == 1 or set(every) <= targets:
        return []
    return [target.partition("/")[2] for target in sorted(targets)]
