"""The reference's answers to one (case, op) and the records made of them, kept by a worker for the
next target that runs the same item.

A run sends each (case, op) to every target that takes its op: the main job's 34,104 items are
7,804 such pairs, up to 7 items (4.4 on average) sharing one answer. Working it out again for
each (the reference, then the parameters, the expected outputs and each run's request as result
records) took about 70 us an item, against the few microseconds of a look-up. How often the next
target of an item runs on the same worker is the run's order's to say: in a full run of the
corpus, 21 % of the items at -j 1 and 9 % at -j 2 (each target's items run in a row, and a worker
is replaced after a crash or forked again for a new stage of imports). The records are shared by
the results made from them: nothing in a worker changes a result's records after it is made
(results are encoded and sent as they are).
"""

from __future__ import annotations

from dataclasses import dataclass

from conformance.corpus.case import Case
from conformance.oracle import reference
from conformance.oracle.reference import SpecAnswer, SplitRequest
from conformance.results import evidence
from conformance.results.records import ExpectedRecord, ParamsRecord, RequestParams

#: (case, op) pairs kept at most, the oldest let go first past it (the whole corpus makes 9,708,
#: about 0.7 KB of records each: 6.6 MB).
LIMIT = 16384


@dataclass(frozen=True)
class Answered:
    """The reference's answer to each run of a (case, op), the case's first, with the records a
    result carries: the case's parameters and, per run, its request and the expected outcome."""

    answers: tuple[SpecAnswer, ...]
    params: ParamsRecord
    requests: tuple[RequestParams, ...]
    expected: tuple[ExpectedRecord, ...]


def answered(case: Case, op: str, params: ParamsRecord | None = None) -> Answered:
    """Work out the answers to ``case`` under ``op`` (reference.TooManyPieces: none is judged);
    ``params``: the case's parameters record, when already made (it is the same for every op)."""
    runs = case.all_runs
    answers = tuple(reference.answer(op, SplitRequest.of_run(case, run)) for run in runs)
    return Answered(
        answers=answers,
        params=evidence.params(case) if params is None else params,
        requests=tuple(evidence.request(run) for run in runs),
        expected=tuple(
            evidence.expected(answer, run.data.shape, run.data.dtype)
            for answer, run in zip(answers, runs, strict=True)
        ),
    )


class AnswerMemo:
    """A worker's answers, by case object and op. The case objects are the worker's own (one per
    case it received, see :mod:`conformance.run.case_wire`), so identity is the cheap key; each
    entry keeps its case alive, so an id is never reused while it names an entry."""

    def __init__(self, limit: int = LIMIT) -> None:
        self.limit = limit
        self._kept: dict[tuple[int, str], tuple[Case, Answered]] = {}
        #: the last case's parameters record: a target's jobs run a case under each of its ops in
        #: a row, and the record (the case's request, graph, tags, title ...) is the same for all
        self._params: tuple[Case, ParamsRecord] | None = None

    def __call__(self, case: Case, op: str) -> Answered:
        kept = self._kept.get((id(case), op))
        if kept is not None and kept[0] is case:
            return kept[1]
        if self._params is None or self._params[0] is not case:
            self._params = (case, evidence.params(case))
        made = answered(case, op, self._params[1])  # an exception (too many pieces) is raised again next time
        if len(self._kept) >= self.limit:  # the oldest first: a target's items run in a row
            del self._kept[next(iter(self._kept))]
        self._kept[id(case), op] = (case, made)
        return made

    def __len__(self) -> int:
        return len(self._kept)
