"""The reference's answer to one run of a case, whatever the case's family: Split's rules
(:mod:`conformance.oracle.reference`) or Slice's (:mod:`conformance.oracle.slicing`)."""

from __future__ import annotations

from conformance.corpus.case import Case, CaseRun, SliceArguments
from conformance.oracle.reference import SpecAnswer, SplitRequest, answer
from conformance.oracle.slicing.request import SliceRequest
from conformance.oracle.slicing.semantics import slice_answer


def answer_for(op: str, case: Case, run: CaseRun | None = None) -> SpecAnswer:
    """What the document of ``op`` says one run of ``case`` (its own request by default) must give."""
    run = case.first_run if run is None else run
    if isinstance(run.request, SliceArguments):
        return slice_answer(op, SliceRequest(run.data.shape, run.data.dtype, run.request, case.graph))
    return answer(op, SplitRequest.of_run(case, run))
