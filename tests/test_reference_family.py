"""The reference for the ops of the wider Split family: hsplit/vsplit/dsplit (NumPy, PyTorch, and
jax.numpy judged by NumPy's texts), jax.lax.split, keras.ops.split and ONNX SplitToSequence-11.

Expected pieces are written out by hand from each page's own rule (which axis, which least rank,
what a count must do), not computed with the reference's helpers.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conformance.corpus import catalogue
from conformance.corpus.case import Form, GraphSpec
from conformance.corpus.loader import CaseFileErrors, load_file
from conformance.oracle.reference import Pieces, Rejection, SplitRequest, answer


def request(
    shape: tuple[int, ...], kind: str, value: object, axis: int | None = None, **graph: object
) -> SplitRequest:
    form_value = tuple(value) if isinstance(value, list) else value
    return SplitRequest(shape, "float32", axis, Form(kind, form_value), GraphSpec(**graph))  # type: ignore[arg-type]


def lengths_and_axis(op: str, req: SplitRequest) -> tuple[int, list[int]]:
    outcome = answer(op, req).outcome
    assert isinstance(outcome, Pieces), (op, outcome)
    return outcome.axis, list(outcome.lengths)


def rule(op: str, req: SplitRequest) -> str:
    outcome = answer(op, req).outcome
    assert isinstance(outcome, Rejection), (op, outcome)
    return outcome.rule


@pytest.mark.parametrize("library", ["numpy", "torch", "jax.numpy"])
def test_hsplit_splits_columns_and_1d_data_along_its_only_axis(library: str) -> None:
    op = f"{library}.hsplit"
    assert lengths_and_axis(op, request((4, 6), "parts", 3)) == (1, [2, 2, 2])
    assert lengths_and_axis(op, request((6,), "parts", 2)) == (0, [3, 3])
    assert lengths_and_axis(op, request((2, 4, 3), "indices", [1, 9])) == (1, [1, 3, 0])
    assert rule(op, request((), "parts", 1)) == "data-rank"


@pytest.mark.parametrize("library", ["numpy", "torch", "jax.numpy"])
def test_a_count_must_divide_for_every_directional_split(library: str) -> None:
    for name, shape in (("hsplit", (2, 5)), ("vsplit", (5, 2)), ("dsplit", (2, 2, 5))):
        assert rule(f"{library}.{name}", request(shape, "parts", 2)) == "sections-divide"
        assert rule(f"{library}.{name}", request(shape, "parts", 0)) == "sections-positive"


def test_numpy_vsplit_takes_1d_data_as_its_page_says_and_torch_vsplit_does_not() -> None:
    assert lengths_and_axis("numpy.vsplit", request((6,), "parts", 3)) == (0, [2, 2, 2])
    assert lengths_and_axis("jax.numpy.vsplit", request((6,), "parts", 3)) == (0, [2, 2, 2])
    assert rule("torch.vsplit", request((6,), "parts", 3)) == "data-rank"
    assert lengths_and_axis("torch.vsplit", request((6, 1), "indices", [-2])) == (0, [4, 2])


@pytest.mark.parametrize("op", ["numpy.dsplit", "torch.dsplit", "jax.numpy.dsplit"])
def test_dsplit_needs_three_dimensions(op: str) -> None:
    assert rule(op, request((4, 4), "parts", 2)) == "data-rank"
    assert lengths_and_axis(op, request((1, 1, 4), "indices", [3, 1])) == (2, [3, 0, 3])


def test_directional_ops_take_no_axis_so_cases_stating_one_are_not_theirs() -> None:
    for op in ("numpy.hsplit", "torch.vsplit", "jax.numpy.dsplit"):
        entry = catalogue.OPS[op]
        assert not entry.takes_axis
    assert catalogue.OPS["numpy.split"].takes_axis


def test_jax_numpy_split_is_judged_by_numpy_text_including_indices_jax_may_refuse() -> None:
    past_the_end = request((8,), "indices", [3, 5, 6, 10])
    assert lengths_and_axis("jax.numpy.split", past_the_end) == (0, [3, 2, 1, 2, 0])
    assert lengths_and_axis("jax.numpy.split", request((8,), "indices", [-2, 3])) == (0, [6, 0, 5])
    assert rule("jax.numpy.split", request((8,), "parts", 3)) == "sections-divide"
    assert lengths_and_axis("jax.numpy.array_split", request((8,), "parts", 3)) == (0, [3, 3, 2])


def test_lax_split_takes_sizes_that_sum_and_reads_a_negative_axis_both_ways() -> None:
    assert lengths_and_axis("jax.lax.split", request((6, 2), "lengths", [1, 0, 5])) == (0, [1, 0, 5])
    assert rule("jax.lax.split", request((6,), "lengths", [-1, 7])) == "lengths-negative"
    assert rule("jax.lax.split", request((6,), "lengths", [2, 2])) == "lengths-sum"
    both = answer("jax.lax.split", request((2, 6), "lengths", [2, 4], axis=-1))
    assert both.ambiguous
    refused, counted = (reading.outcome for reading in both.readings)
    assert isinstance(refused, Rejection) and refused.rule == "axis-negative"
    assert isinstance(counted, Pieces) and counted.axis == 1 and counted.lengths == (2, 4)


def test_keras_split_wants_equal_sections_and_reads_unsorted_indices_both_ways() -> None:
    assert rule("keras.ops.split", request((7,), "parts", 2)) == "sections-divide"
    assert lengths_and_axis("keras.ops.split", request((7,), "indices", [2, 9])) == (0, [2, 5, 0])
    both = answer("keras.ops.split", request((7,), "indices", [5, 2]))
    assert both.ambiguous
    refused, sliced = (reading.outcome for reading in both.readings)
    assert isinstance(refused, Rejection) and refused.rule == "indices-sorted"
    assert isinstance(sliced, Pieces) and sliced.lengths == (5, 0, 5)


SEQ = "onnx.SplitToSequence-11"


def test_split_to_sequence_scalar_split_leaves_a_smaller_last_piece() -> None:
    assert lengths_and_axis(SEQ, request((7, 2), "size", 3)) == (0, [3, 3, 1])
    assert lengths_and_axis(SEQ, request((2, 7), "size", 9, axis=-1)) == (1, [7])
    assert rule(SEQ, request((7,), "size", 0)) == "lengths-positive"


def test_split_to_sequence_lengths_are_positive_and_sum_and_ignore_keepdims() -> None:
    assert lengths_and_axis(SEQ, request((6,), "lengths", [2, 4], keepdims=0)) == (0, [2, 4])
    assert rule(SEQ, request((6,), "lengths", [6, 0])) == "lengths-positive"
    assert rule(SEQ, request((6,), "lengths", [2, 3])) == "lengths-sum"
    assert rule(SEQ, request((6,), "lengths", [6], lengths_dtype="int16")) == "lengths-type"
    outcome = answer(SEQ, request((6, 2), "lengths", [2, 4], keepdims=0)).outcome
    assert isinstance(outcome, Pieces) and outcome.shapes((6, 2)) == ((2, 2), (4, 2))


def test_split_to_sequence_without_split_and_keepdims_0_drops_the_axis() -> None:
    data = np.arange(12).reshape(3, 4)
    outcome = answer(SEQ, request((3, 4), "size", 1, axis=1, split_input="omitted", keepdims=0)).outcome
    assert isinstance(outcome, Pieces) and outcome.squeeze
    assert outcome.shapes((3, 4)) == ((3,),) * 4
    pieces = outcome.take(data)
    assert [piece.tolist() for piece in pieces] == [[0, 4, 8], [1, 5, 9], [2, 6, 10], [3, 7, 11]]
    kept = answer(SEQ, request((3, 4), "size", 1, axis=1, split_input="omitted")).outcome
    assert isinstance(kept, Pieces) and kept.shapes((3, 4)) == ((3, 1),) * 4


def test_split_to_sequence_on_an_empty_dimension_is_ambiguous_for_a_scalar() -> None:
    verdict = answer(SEQ, request((0, 3), "size", 2))
    assert verdict.ambiguous and [r.label for r in verdict.readings] == ["no pieces", "one empty piece"]
    empty = answer(SEQ, request((0,), "lengths", []))
    assert not empty.ambiguous and isinstance(empty.outcome, Pieces) and empty.outcome.bounds == ()


HEADER = "defaults: {source: test, data: {shape: [6, 4], dtype: float32}}\ncases:\n"


def test_an_omitted_split_input_must_be_stated_as_size_1(tmp_path: Path) -> None:
    path = tmp_path / "cases.yaml"
    case = "  - {id: a, title: t, size: 2, graph: {split_input: omitted}}\n"
    path.write_text(HEADER + case, encoding="utf-8")
    with pytest.raises(CaseFileErrors) as raised:
        load_file(path)
    (error,) = (str(error) for error in raised.value.errors)
    assert "cases.yaml:3" in error and "write size: 1" in error


def test_keepdims_and_an_omitted_split_reach_split_to_sequence_only(tmp_path: Path) -> None:
    path = tmp_path / "cases.yaml"
    case = "  - {id: a, title: t, size: 1, graph: {split_input: omitted, keepdims: 0}}\n"
    path.write_text(HEADER + case, encoding="utf-8")
    (case,) = load_file(path)
    assert (case.graph.keepdims, case.graph.split_input) == (0, "omitted")
    assert catalogue.applicable_ops(case) == [SEQ]
