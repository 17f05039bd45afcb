"""A worker's memo of the reference's answers: the same result as working them out afresh, for
every target that runs the item after the first."""

from __future__ import annotations

from dataclasses import replace

from fake_adapters import Answering, Liar
from report_fixtures import corpus

from conformance.corpus.catalogue import applicable_ops
from conformance.plugin import Target
from conformance.run.answers import AnswerMemo
from conformance.run.item import run_item

#: cases with further runs, an ambiguous point, a rejection and plain pieces
CASES = ("indices-rank1", "lengths-minus1-alone")


def _runs_case() -> str:
    return next(case.id for case in corpus().cases if case.runs)


def test_results_made_with_the_memo_are_those_made_without_it() -> None:
    memo = AnswerMemo()
    cases = [corpus().by_id(case_id) for case_id in (*CASES, _runs_case())]
    for adapter in (Answering({}), Liar({}), Answering({"stale": "1"})):
        target = Target(adapter.name, "graph", "cpu")
        for case in cases:
            for op in applicable_ops(case):
                fresh = run_item(adapter, target, case, op, repeat=0)
                kept = run_item(adapter, target, case, op, repeat=0, answers=memo)
                assert replace(kept, timing=fresh.timing) == fresh, (case.id, op, adapter.name)
    # one entry an item, whatever the targets that ran it
    assert len(memo) == sum(len(applicable_ops(case)) for case in cases)


def test_the_memo_answers_by_case_object_and_op() -> None:
    memo = AnswerMemo(limit=2)
    case = corpus().by_id("indices-rank1")
    op = applicable_ops(case)[0]
    first = memo(case, op)
    assert memo(case, op) is first
    copy = replace(case)  # equal, but another object: a case the worker received again
    assert memo(copy, op) is not first and memo(copy, op) == first
    memo(corpus().by_id("lengths-minus1-alone"), "onnx.Split-13")  # past the limit: the oldest goes
    assert len(memo) == 2 and memo(copy, op) == first and memo(case, op) is not first


def test_the_memo_makes_a_cases_parameters_record_once_for_its_ops_in_a_row() -> None:
    """The record of the case's request, graph, tags and title is the same under every op: a
    target's jobs run the case's ops in a row, and the memo makes it once for them."""
    memo = AnswerMemo()
    case, other = corpus().by_id("indices-rank1"), corpus().by_id("lengths-minus1-alone")
    first, second = applicable_ops(case)[:2]
    assert memo(case, first).params is memo(case, second).params
    assert memo(other, applicable_ops(other)[0]).params is not memo(case, first).params


def test_an_item_whose_later_run_has_too_many_pieces_keeps_its_first_runs_answer() -> None:
    """Not judged (``unsupported``: the reference does not list 65,537 pieces), but the result
    still says what the case asked and what its first run should give."""
    from conformance.corpus.case import Case, CaseRun, DataSpec, Form, Location
    from conformance.oracle.reference import MAX_PIECES

    count = MAX_PIECES + 1
    where = Location("runs.yaml", 1)
    many = CaseRun(2, DataSpec((count,), "uint8", "arange"), 0, Form("parts", count), where)
    data = DataSpec((6,), "float32", "arange")
    case = Case("later-run-too-many", "t", "s", data, Form("parts", 2), where, axis=0, runs=(many,))
    target = Target("answering", "graph", "cpu")
    result = run_item(Answering({}), target, case, "numpy.array_split", repeat=0, judged="shapes")
    assert result.status == "unsupported" and f"{MAX_PIECES:,}" in result.message
    assert result.params["data"]["shape"] == [6] and result.judged == "shapes"
    assert [output["shape"] for output in result.expected["outputs"]] == [[3], [3]]
