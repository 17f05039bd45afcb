"""How a result records its evidence: the case's parameters, the reference's answer, what the
backend returned or raised, and the first mismatch. The oracle's and executor's objects are
translated into the records of :mod:`conformance.results.records` here, once.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from conformance import dtypes
from conformance.corpus.case import Case, CaseRun, SliceArguments
from conformance.corpus.fill import describe_fill
from conformance.oracle.compare import Mismatch
from conformance.oracle.judging import Raised
from conformance.oracle.reference import Rejection, SpecAnswer, SpecOutcome
from conformance.results.records import (
    DataParams,
    ExpectedRecord,
    MismatchRecord,
    OutputRecord,
    ParamsRecord,
    RaisedRecord,
    ReadingRecord,
    RejectionRecord,
    RequestParams,
)


def request(run: CaseRun) -> RequestParams:
    """One run's request: data, and a Split's axis and form or a Slice's keys as written (for a
    case, its first run)."""
    data: DataParams = {
        "shape": list(run.data.shape),
        "dtype": run.data.dtype,
        "fill": describe_fill(run.data),
    }
    if isinstance(run.request, SliceArguments):
        return {"data": data, "slice": run.request.as_dict()}
    kind = run.form.kind
    return {
        "data": data,
        "axis": run.axis,
        "form": {
            "kind": kind,
            "value": list(run.form.values) if kind in ("lengths", "indices") else run.form.values[0],
        },
    }


def params(case: Case) -> ParamsRecord:
    """The resolved case, so that a results file can be read without the case files at hand."""
    return {
        **request(case.first_run),
        "graph": case.graph.as_dict(),
        "tags": list(case.tags),
        "title": case.title,
        "note": case.note,
        "source": case.source,
        "location": str(case.location),
    }


def outputs(arrays: Sequence[np.ndarray]) -> list[OutputRecord]:
    """Shapes and dtypes of what a backend returned."""
    return [{"shape": list(array.shape), "dtype": dtypes.shown_name(array.dtype)} for array in arrays]


def expected(answer: SpecAnswer, shape: tuple[int, ...], dtype: str) -> ExpectedRecord:
    """The reference's answer: outputs, a rejection, or every reading of an ambiguous point."""
    if not answer.ambiguous:
        outcome = answer.outcome
        if isinstance(outcome, Rejection):
            return {"rejected": _rejection(outcome)}
        return {"outputs": _pieces(outcome, shape, dtype)}
    readings: list[ReadingRecord] = []
    for reading in answer.readings:
        outcome = reading.outcome
        if isinstance(outcome, Rejection):
            readings.append({"label": reading.label, "rejected": _rejection(outcome)})
        else:
            readings.append({"label": reading.label, "outputs": _pieces(outcome, shape, dtype)})
    return {"ambiguity": answer.ambiguity or "", "readings": readings}


def _rejection(rejection: Rejection) -> RejectionRecord:
    return {"rule": rejection.rule, "reason": rejection.reason}


def _pieces(outcome: SpecOutcome, shape: tuple[int, ...], dtype: str) -> list[OutputRecord]:
    """The outputs an accepted request gives (Split's pieces, Slice's one window)."""
    assert not isinstance(outcome, Rejection)
    return [{"shape": list(piece), "dtype": dtype} for piece in outcome.shapes(shape)]


def raised(refusal: Raised) -> RaisedRecord:
    return {
        "phase": refusal.phase,
        "type": refusal.type,
        "message": refusal.message,
        "origin": refusal.origin,
        "module": refusal.module,
    }


def mismatch(found: Mismatch) -> MismatchRecord:
    return {
        "what": found.what,
        "message": found.message,
        "output": found.output,
        "differing": found.differing,
        "first": [
            {"index": list(diff.index), "expected": diff.expected, "actual": diff.actual}
            for diff in found.first
        ],
    }
