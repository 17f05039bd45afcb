"""The corpus itself: it loads, every expect agrees with the reference, and it covers what
the suite promises (all twelve ops, every dtype each op's type list allows, every rule)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from conformance import dtypes
from conformance.corpus import catalogue as ops
from conformance.corpus.case import Case, InputPlacement, SliceArguments
from conformance.corpus.loader import Suite, load_paths
from conformance.corpus.case_schema import case_file_schema
from conformance.corpus.selection import select
from conformance.oracle.corpus_check import check_corpus
from conformance.oracle.answers import answer_for
from conformance.oracle.reference import Rejection

CASES = Path(__file__).resolve().parent.parent / "cases"


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_paths([CASES])


@pytest.mark.slow
def test_every_expect_agrees_with_the_reference(suite: Suite) -> None:
    defects = check_corpus(suite.cases)
    assert not defects, "\n".join(str(defect) for defect in defects)


#: The fewest cases an op of each family meets: Split's corpus is older and deeper; Slice's every
#: form is narrower (torch.narrow takes one axis in the sizes form).
FLOOR = {"split": 100, "slice": 30}


@pytest.mark.slow
def test_every_op_has_many_cases(suite: Suite) -> None:
    per_op = Counter(item.op for item in select(suite.cases))
    assert set(per_op) == set(ops.OPS)
    thin = {op: count for op, count in per_op.items() if count < FLOOR[ops.OPS[op].family]}
    assert not thin, f"ops with fewer cases than their family's floor {FLOOR}: {thin}"


def test_every_well_known_tag_is_used(suite: Suite) -> None:
    """The tags the case schema names (for editors) are the ones the corpus uses."""
    well_known = case_file_schema()["$defs"]["caseFields"]["properties"]["tags"]["items"]["examples"]
    used = {tag for case in suite.cases for tag in case.tags}
    assert well_known and set(well_known) - {"regression"} <= used


@pytest.mark.slow
@pytest.mark.parametrize("op", list(ops.OPS))
def test_every_dtype_an_op_can_carry_is_exercised(suite: Suite, op: str) -> None:
    seen = {item.case.data.dtype for item in select(suite.cases, [op])}
    missing = set(ops.OPS[op].dtypes) - seen
    assert not missing, f"{op} never sees {sorted(missing)}"


def test_every_rule_is_exercised(suite: Suite) -> None:
    rules = Counter()
    for item in select(suite.cases):
        for reading in answer_for(item.op, item.case).readings:
            if isinstance(reading.outcome, Rejection):
                rules[reading.outcome.rule] += 1
    expected = {
        "axis-range",
        "axis-negative",
        "axis-shape",
        "axis-type",
        "data-type",
        "lengths-type",
        "lengths-sum",
        "lengths-negative",
        "lengths-minus-one-count",
        "lengths-below-minus-one",
        "output-count",
        "declared-outputs",
        "num-splits-range",
        "num-splits-divide",
        "equal-parts-divide",
        "num-outputs-range",
        "split-and-num-outputs",
        "split-or-num-outputs",
        "sections-positive",
        "sections-divide",
        "size-positive",
        "axis-missing",
        "num-outputs-last-chunk",
        "type-mismatch",
        # Slice's (docs/specs.md, "The Slice family")
        "index-type",
        "index-lengths",
        "step-zero",
        "axes-repeated",
        "slice-range",
        "length-negative",
    }
    assert expected - set(rules) == set()


def test_cases_cover_ranks_one_to_five_and_both_graph_modes(suite: Suite) -> None:
    ranks = {len(case.data.shape) for case in suite.cases}
    assert set(range(1, 6)) <= ranks
    assert {case.graph.inputs for case in suite.cases} >= {
        "constant",
        "runtime",
        InputPlacement(axis="constant", lengths="runtime"),
        InputPlacement(axis="runtime", lengths="constant"),
    }
    assert any(case.runs for case in suite.cases)
    assert any(case.graph.declared_outputs is not None for case in suite.cases)
    assert {case.graph.data_shape for case in suite.cases} == {"static", "dynamic"}
    assert {"int32", "int64"} <= {case.graph.axis_dtype for case in suite.cases}
    assert {"scalar", "[1]"} == {case.graph.axis_shape for case in suite.cases}
    assert set(dtypes.ALL) <= {case.data.dtype for case in suite.cases}


def _beyond_int32(case: Case) -> bool:
    values = [*case.form.values, sum(case.form.values), *([case.axis] if case.axis is not None else [])]
    return any(not -(2**31) <= value < 2**31 for value in values)


def test_every_op_meets_values_past_int32_as_constants_and_every_input_at_run_time(suite: Suite) -> None:
    """Split's ops (Slice's: the next test)."""
    constant: set[str] = set()
    runtime: set[str] = set()
    for case in suite.cases:
        if case.family != "split" or not _beyond_int32(case):
            continue
        for op in ops.applicable_ops(case):
            (runtime if case.graph.inputs != "constant" else constant).add(op)
    assert constant == {op for op, entry in ops.OPS.items() if entry.family == "split"}
    # ONNX Split-1 carries runtime lengths in the data's float type, which cannot hold them
    fed = {op for op, entry in ops.OPS.items() if any(names for _, names in entry.inputs)} - {"onnx.Split-1"}
    assert runtime == fed


def test_every_slice_op_meets_bounds_past_int32(suite: Suite) -> None:
    """The INT32 and INT64 sentinels a converter writes for an open bound, as constants."""
    met = {
        op
        for case in suite.cases
        if isinstance(case.request, SliceArguments)
        and any(
            value is not None and not -(2**31) <= value < 2**31
            for value in (*case.request.starts, *(case.request.ends or ()))
        )
        for op in ops.applicable_ops(case)
    }
    assert met == {op for op, entry in ops.OPS.items() if entry.family == "slice"}


def test_every_op_with_a_count_or_size_is_run_again_at_other_shapes(suite: Suite) -> None:
    covered = {
        op
        for case in suite.cases
        if any("shape" in run.changes for run in case.runs)
        for op in ops.applicable_ops(case)
    }
    wanted = {
        op
        for op, entry in ops.OPS.items()
        if entry.forms & {"parts", "size"} and "data_shape" in entry.graph_options
    }
    assert wanted <= covered


@pytest.mark.slow
def test_runtime_lengths_change_between_runs_for_every_op_that_feeds_them(suite: Suite) -> None:
    covered = {
        op for case in suite.cases if "lengths" in case.runtime_changes() for op in ops.applicable_ops(case)
    }
    # the op's split-value input, whatever its form (jax.numpy's traced indices or sections too)
    fed = {op for op, entry in ops.OPS.items() if any("lengths" in names for _, names in entry.inputs)}
    assert covered == fed
