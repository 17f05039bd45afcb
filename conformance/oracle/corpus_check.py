"""The suite's own defects: cases that load but say something the reference contradicts.

``expect`` pins what a spec document states; a pin the reference disagrees with is a defect of the
case or of the reference, as is an ``ambiguous`` tag no op bears out or an ``ops`` entry that
cannot express the case. ``conformance validate`` and the project's tests run this audit.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from conformance import dtypes
from conformance.corpus import catalogue
from conformance.corpus.case import Case, Location, OutputExpect
from conformance.corpus.fill import make_data
from conformance.oracle.answers import answer_for
from conformance.oracle.compare import diff_values
from conformance.oracle.reference import Rejection, SpecAnswer, SpecOutcome, TooManyPieces


@dataclass(frozen=True)
class Defect:
    location: Location
    case_id: str
    message: str

    def __str__(self) -> str:
        return f"{self.location}: case '{self.case_id}': {self.message}"


def check_corpus(cases: Iterable[Case]) -> list[Defect]:
    """Every defect of every case, in suite order."""
    return [Defect(case.location, case.id, message) for case in cases for message in case_defects(case)]


def case_defects(case: Case) -> list[str]:
    problems = unrepresentable(case)
    if case.ops is not None:  # an exact id promises the op applies; a glob only selects among those that do
        for op in catalogue.match(entry for entry in case.ops if entry in catalogue.OPS):
            reason = catalogue.why_not_applicable(case, catalogue.OPS[op])
            if reason:
                problems.append(f"ops lists {op}, which cannot express it: {reason}")
    targeted = catalogue.applicable_ops(case)
    if not targeted:
        problems.append("no op can express this case")
    answers = {}
    for op in targeted:
        try:
            answers[op] = answer_for(op, case)
        except TooManyPieces as error:  # no backend could be judged on it: say so, check the rest
            problems.append(f"{op}: {error}; no result would be judged (split fewer pieces)")
    ambiguous = sorted(op for op, spec_answer in answers.items() if spec_answer.ambiguous)
    # A case about an open point (ambiguous under every op it targets) says so; a case that only
    # crosses one under some ops needs no tag: the reference's answer carries the reason.
    if ambiguous and len(ambiguous) == len(answers) and "ambiguous" not in case.tags:
        problems.append(
            f"the reference finds it ambiguous for every op it targets ({', '.join(ambiguous)}); "
            f"tag it ambiguous and say why in a note"
        )
    if "ambiguous" in case.tags and not ambiguous:
        problems.append("tagged ambiguous, but the reference reads it one way for every op it targets")
    if case.expect is not None:
        for op in sorted(set(case.expect.by_op) - set(targeted)):
            problems.append(f"expect.by_op names {op}, which the case does not target")
        for op, spec_answer in answers.items():
            if op not in case.expect.by_op and not catalogue.pinned_by_shared_expect(case, catalogue.OPS[op]):
                continue  # an expectation written from other documents says nothing about this op
            problem = _disagreement(case, case.expect.for_op(op), spec_answer)
            if problem:
                problems.append(f"expect disagrees with the reference for {op}: {problem}")
    return problems


def unrepresentable(case: Case) -> list[str]:
    """Axis and lengths must fit the integer types the case asks a backend to carry them in (a Slice
    op whose index type cannot hold the case's values is not applicable to it: the catalogue's)."""
    problems: list[str] = []
    checks: list[tuple[str, str, tuple[int, ...]]] = []
    for run in case.all_runs if case.family == "split" else ():
        where = f"{run.describe()}: " if case.runs else ""
        checks.append((f"{where}axis", case.graph.axis_dtype, (run.axis,) if run.axis is not None else ()))
        if case.form.kind == "lengths":
            checks.append((f"{where}lengths", case.graph.lengths_dtype, run.form.values))
    for what, type_name, values in checks:
        if type_name not in dtypes.INTEGER:
            continue
        low, high = dtypes.integer_range(type_name)
        outside = [value for value in values if not low <= value <= high]
        if outside:
            problems.append(f"{what} value(s) {outside} do not fit {type_name}")
    return problems


def _disagreement(case: Case, expect: OutputExpect, spec_answer: SpecAnswer) -> str | None:
    """None when some reading of the answer satisfies ``expect``, else the first reading's complaint."""
    complaints = [_complaint(case, expect, reading.outcome) for reading in spec_answer.readings]
    return None if None in complaints else complaints[0]


def _complaint(case: Case, expect: OutputExpect, outcome: SpecOutcome) -> str | None:
    if expect.error:
        if not isinstance(outcome, Rejection):
            return f"expects a rejection, the reference gives shapes {outcome.shapes(case.data.shape)}"
        if isinstance(expect.error, str) and expect.error != outcome.rule:
            return f"expects rule {expect.error}, the reference applies {outcome.rule} ({outcome.reason})"
        return None
    if isinstance(outcome, Rejection):
        if expect.shapes is None and expect.values is None:
            return None
        return f"expects outputs, the reference rejects: {outcome.reason}"
    shapes = outcome.shapes(case.data.shape)
    if expect.shapes is not None and tuple(expect.shapes) != shapes:
        return f"expects shapes {_listed(expect.shapes)}, the reference gives {_listed(shapes)}"
    if expect.values is not None:
        return _value_complaint(case, expect.values, outcome)
    return None


def _value_complaint(case: Case, values: tuple[object, ...], outcome: SpecOutcome) -> str | None:
    size = math.prod(case.data.shape) * dtypes.numpy_dtype(case.data.dtype).itemsize
    if size > AUDIT_DATA_BYTES:
        return (
            f"expect.values on {size:,} bytes of data: the audit fills at most {AUDIT_DATA_BYTES >> 20} MiB "
            "to check values; pin shapes instead (the run judges every value anyway)"
        )
    assert not isinstance(outcome, Rejection)
    outputs = outcome.take(make_data(case.data))
    if len(values) != len(outputs):
        return f"expects {len(values)} outputs' values, the reference gives {len(outputs)} outputs"
    for number, (written, output) in enumerate(zip(values, outputs, strict=True)):
        try:
            expected = np.array(written, dtype=dtypes.numpy_dtype(case.data.dtype))
        except (ValueError, TypeError, OverflowError) as error:  # ragged rows, text for numbers ...
            return f"output {number}: expect.values cannot be read as a {case.data.dtype} array ({error})"
        if expected.size != output.size:
            return f"output {number}: expects {expected.size} values, the reference gives {output.size}"
        expected = expected.reshape(output.shape)
        mismatch = diff_values(expected, output, case.data.dtype, number)
        if mismatch:
            return mismatch.message
    return None


#: The most data the audit fills to check ``expect.values`` (a case pinning values is a small one;
#: a shape of 10^10 elements would otherwise be allocated by ``conformance validate``).
AUDIT_DATA_BYTES = 64 << 20


def _listed(shapes: Iterable[Iterable[int]]) -> list[list[int]]:
    return [list(shape) for shape in shapes]
