"""Property tests of the reference semantics.

Whatever the request, an accepted split must cut the input into pieces that concatenate back
to it along the axis, with the shapes its spec states; and each rule must reject exactly the
requests it names. The expected figures here are computed independently of the reference's
own helpers (plain formulas per spec), so a slip in the shared arithmetic shows up.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from conformance.corpus import catalogue as ops
from conformance.corpus.case import Form, GraphSpec
from conformance.oracle.reference import Pieces, Rejection, SplitRequest, answer

settings.register_profile("conformance", max_examples=150, deadline=None)
settings.load_profile("conformance")

LENGTH_OPS = [
    "openvino.VariadicSplit-1",
    "onnx.Split-1",
    "onnx.Split-2",
    "onnx.Split-11",
    "onnx.Split-13",
    "onnx.Split-18",
    "torch.split",
]
COUNT_OPS = [
    "openvino.Split-1",
    "onnx.Split-1",
    "onnx.Split-2",
    "onnx.Split-11",
    "onnx.Split-13",
    "onnx.Split-18",
    "torch.chunk",
    "torch.tensor_split",
    "numpy.split",
    "numpy.array_split",
]
INDEX_OPS = ["torch.tensor_split", "numpy.split", "numpy.array_split"]

shapes = st.lists(st.integers(0, 7), min_size=1, max_size=4).map(tuple)


@st.composite
def shape_and_axis(draw: st.DrawFn) -> tuple[tuple[int, ...], int]:
    shape = draw(shapes)
    return shape, draw(st.integers(-len(shape), len(shape) - 1))


def request(shape: tuple[int, ...], axis: int | None, kind: str, value: object, **graph: str) -> SplitRequest:
    dtype = "float32"
    return SplitRequest(shape, dtype, axis, Form(kind, value), GraphSpec(**graph))  # type: ignore[arg-type]


def accepted(op: str, req: SplitRequest) -> Pieces | None:
    verdict = answer(op, req)
    if verdict.ambiguous:
        return None
    outcome = verdict.outcome
    return outcome if isinstance(outcome, Pieces) else None


def check_tiles(req: SplitRequest, pieces: Pieces) -> None:
    """Pieces start at 0, follow each other and end at the dimension; data concatenates back."""
    axis = pieces.axis
    assert axis == req.axis % len(req.shape) if req.axis is not None else axis == 0
    dim = req.shape[axis]
    ends = [0] + [stop for _, stop in pieces.bounds]
    assert [start for start, _ in pieces.bounds] == ends[:-1]
    assert ends[-1] == dim
    data = np.arange(math.prod(req.shape), dtype=np.int64).reshape(req.shape)
    outputs = pieces.take(data)
    for output, shape in zip(outputs, pieces.shapes(req.shape), strict=True):
        assert output.shape == shape
        assert shape[:axis] + shape[axis + 1 :] == req.shape[:axis] + req.shape[axis + 1 :]
    if outputs:
        assert np.array_equal(np.concatenate(outputs, axis=axis), data)


@given(shape_and_axis(), st.integers(1, 8))
def test_count_ops_tile_the_input_with_the_stated_lengths(
    case: tuple[tuple[int, ...], int], count: int
) -> None:
    shape, axis = case
    req = request(shape, axis, "parts", count)
    dim = shape[axis]
    stated = {
        "torch.chunk": [math.ceil(dim / count)] * (dim // math.ceil(dim / count))
        + ([dim % math.ceil(dim / count)] if dim and dim % math.ceil(dim / count) else [])
        if dim
        else [0] * count,
        "torch.tensor_split": [dim // count + (i < dim % count) for i in range(count)],
        "numpy.array_split": [dim // count + (i < dim % count) for i in range(count)],
        "numpy.split": [dim // count] * count if dim % count == 0 else None,
        "openvino.Split-1": [dim // count] * count if dim % count == 0 and count <= dim else None,
        "onnx.Split-13": [dim // count] * count if dim % count == 0 else None,
    }
    ceil = math.ceil(dim / count)
    last = dim - ceil * (count - 1)
    stated["onnx.Split-18"] = [ceil] * (count - 1) + [last] if last >= 0 else None
    for op, lengths in stated.items():
        pieces = accepted(op, req)
        if lengths is None:
            assert pieces is None, f"{op} accepts {count} pieces of {dim}"
            continue
        assert pieces is not None, f"{op} rejects {count} pieces of {dim}"
        assert list(pieces.lengths) == lengths, op
        check_tiles(req, pieces)


@given(shape_and_axis(), st.lists(st.integers(0, 5), min_size=1, max_size=5))
def test_exact_lengths_tile_the_input_for_every_lengths_op(
    case: tuple[tuple[int, ...], int], lengths: list[int]
) -> None:
    shape, axis = case
    dim = shape[axis]
    lengths[-1] = dim - sum(lengths[:-1])
    assume(lengths[-1] >= 0)
    req = request(shape, axis, "lengths", tuple(lengths))
    for op in LENGTH_OPS:
        if op in ("onnx.Split-1", "onnx.Split-2") and axis < 0:
            continue  # no negative axes before Split-11
        pieces = accepted(op, req)
        assert pieces is not None, op
        assert list(pieces.lengths) == lengths
        check_tiles(req, pieces)


@given(shape_and_axis(), st.lists(st.integers(0, 5), min_size=1, max_size=5), st.data())
def test_variadic_minus_one_takes_what_is_left(
    case: tuple[tuple[int, ...], int], others: list[int], data: st.DataObject
) -> None:
    shape, axis = case
    dim = shape[axis]
    position = data.draw(st.integers(0, len(others)))
    lengths = [*others[:position], -1, *others[position:]]
    pieces = accepted("openvino.VariadicSplit-1", request(shape, axis, "lengths", tuple(lengths)))
    if sum(others) > dim:
        assert pieces is None
        return
    assert pieces is not None
    assert pieces.lengths[position] == dim - sum(others)
    check_tiles(request(shape, axis, "lengths", tuple(lengths)), pieces)
    for op in LENGTH_OPS[1:]:  # -1 means nothing special outside OpenVINO: a negative length
        outcome = answer(op, request(shape, 0, "lengths", tuple(lengths))).outcome
        assert isinstance(outcome, Rejection) and outcome.rule in ("lengths-negative", "axis-range"), op


@given(shape_and_axis(), st.lists(st.integers(0, 6), max_size=5))
def test_sorted_in_range_indices_tile_like_differences(
    case: tuple[tuple[int, ...], int], raw: list[int]
) -> None:
    shape, axis = case
    dim = shape[axis]
    indices = sorted(min(i, dim) for i in raw)
    req = request(shape, axis, "indices", tuple(indices))
    expected = [b - a for a, b in zip([0, *indices], [*indices, dim], strict=True)]
    for op in INDEX_OPS:
        pieces = accepted(op, req)
        assert pieces is not None and list(pieces.lengths) == expected, op
        check_tiles(req, pieces)


@given(shape_and_axis(), st.lists(st.integers(-9, 9), max_size=5))
def test_any_indices_follow_python_slicing(case: tuple[tuple[int, ...], int], indices: list[int]) -> None:
    shape, axis = case
    dim = shape[axis]
    line = list(range(dim))
    points = [0, *indices, dim]
    expected = [len(line[a:b]) for a, b in itertools.pairwise(points)]
    pieces = accepted("numpy.array_split", request(shape, axis, "indices", tuple(indices)))
    assert pieces is not None and list(pieces.lengths) == expected


@given(shapes, st.integers(1, 4), st.sampled_from(["lengths", "parts", "size", "indices"]))
def test_an_axis_out_of_range_is_rejected_by_every_op(shape: tuple[int, ...], beyond: int, kind: str) -> None:
    value: object = (1,) if kind in ("lengths", "indices") else 1
    for axis in (len(shape) - 1 + beyond, -len(shape) - beyond):
        for op, spec in ops.OPS.items():
            if kind not in spec.forms or not spec.takes_axis:  # hsplit and kin: no axis to get wrong
                continue
            outcome = answer(op, request(shape, axis, kind, value)).outcome
            assert isinstance(outcome, Rejection), (op, axis)
            assert outcome.rule in ("axis-range", "axis-negative"), (op, outcome)


@given(shape_and_axis(), st.lists(st.integers(0, 5), min_size=1, max_size=5), st.sampled_from([-1, 1]))
def test_a_sum_off_by_one_is_rejected_by_every_lengths_op(
    case: tuple[tuple[int, ...], int], lengths: list[int], off: int
) -> None:
    shape, axis = case
    dim = shape[axis]
    lengths[-1] = dim - sum(lengths[:-1]) + off
    assume(lengths[-1] >= 0)
    for op in LENGTH_OPS:
        outcome = answer(op, request(shape, axis, "lengths", tuple(lengths))).outcome
        assert isinstance(outcome, Rejection), op
        assert outcome.rule in ("lengths-sum", "axis-negative"), (op, outcome)


@given(shape_and_axis(), st.integers(-3, 0))
def test_a_count_below_one_is_rejected_by_every_count_op(
    case: tuple[tuple[int, ...], int], count: int
) -> None:
    shape, axis = case
    for op in COUNT_OPS:
        outcome = answer(op, request(shape, axis, "parts", count)).outcome
        assert isinstance(outcome, Rejection), op


@pytest.mark.parametrize(
    ("op", "kind", "value", "graph", "rule"),
    [
        ("openvino.VariadicSplit-1", "lengths", (-1, -1, 6), {}, "lengths-minus-one-count"),
        ("openvino.VariadicSplit-1", "lengths", (-2, 8), {}, "lengths-below-minus-one"),
        ("openvino.VariadicSplit-1", "lengths", (2, 4), {"axis_dtype": "float32"}, "axis-type"),
        (
            "openvino.VariadicSplit-1",
            "lengths",
            (2, 4),
            {"lengths_dtype": "float32", "axis_dtype": "float32"},
            "axis-type",
        ),
        ("openvino.Split-1", "parts", 2, {"axis_shape": "[1]"}, "axis-shape"),
        ("openvino.Split-1", "parts", 7, {}, "num-splits-range"),
        ("openvino.Split-1", "parts", 4, {}, "num-splits-divide"),
        ("onnx.Split-13", "lengths", (2, 4), {"lengths_dtype": "int32"}, "lengths-type"),
        ("onnx.Split-18", "lengths", (2, 4), {"num_outputs": "both"}, "split-and-num-outputs"),
        ("onnx.Split-18", "parts", 2, {"num_outputs": "neither"}, "split-or-num-outputs"),
        ("onnx.Split-13", "parts", 2, {"num_outputs": "neither"}, None),
        ("onnx.Split-18", "parts", 0, {}, "num-outputs-range"),
        ("onnx.Split-11", "lengths", (), {}, "output-count"),
        ("onnx.Split-13", "parts", 4, {}, "equal-parts-divide"),
        ("onnx.Split-11", "lengths", (7, -1), {}, "lengths-negative"),
        ("numpy.split", "parts", 4, {}, "sections-divide"),
        ("numpy.array_split", "parts", 0, {}, "sections-positive"),
        ("torch.chunk", "parts", -1, {}, "sections-positive"),
        ("torch.split", "size", 0, {}, "size-positive"),
        ("torch.split", "size", -2, {}, "size-positive"),
    ],
)
def test_each_rule_names_itself(
    op: str, kind: str, value: object, graph: dict[str, str], rule: str | None
) -> None:
    outcome = answer(op, request((6, 3), 0, kind, value, **graph)).outcome
    if rule is None:
        assert isinstance(outcome, Pieces)
    else:
        assert isinstance(outcome, Rejection) and outcome.rule == rule, outcome


@pytest.mark.parametrize(
    ("op", "dtype", "accepted_"),
    [
        ("onnx.Split-1", "int32", False),
        ("onnx.Split-1", "float16", True),
        ("onnx.Split-2", "bfloat16", False),
        ("onnx.Split-11", "string", True),
        ("onnx.Split-13", "bfloat16", True),
        ("onnx.Split-18", "complex128", True),
    ],
)
def test_onnx_type_lists_differ_by_version(op: str, dtype: str, accepted_: bool) -> None:
    req = SplitRequest((4,), dtype, 0, Form("parts", 2), GraphSpec())
    outcome = answer(op, req).outcome
    assert isinstance(outcome, Pieces) is accepted_
    if not accepted_:
        assert isinstance(outcome, Rejection) and outcome.rule == "data-type"


def test_negative_axes_arrive_with_split_11() -> None:
    for op, ok in [("onnx.Split-1", False), ("onnx.Split-2", False), ("onnx.Split-11", True)]:
        outcome = answer(op, request((2, 6), -1, "lengths", (2, 4))).outcome
        assert isinstance(outcome, Pieces) is ok, op


@pytest.mark.parametrize(
    ("op", "kind", "value", "shape", "graph"),
    [
        ("onnx.Split-18", "parts", 4, (5,), {}),
        ("onnx.Split-1", "lengths", (2, 4), (6,), {}),
        ("torch.split", "size", 2, (0, 3), {}),
        ("openvino.VariadicSplit-1", "lengths", (2, 4), (6,), {"lengths_dtype": "int32"}),
    ],
)
def test_ambiguous_points_carry_several_readings(
    op: str, kind: str, value: object, shape: tuple[int, ...], graph: dict[str, str]
) -> None:
    axis = None if op == "onnx.Split-1" else 0
    verdict = answer(op, request(shape, axis, kind, value, **graph))
    assert verdict.ambiguous and len(verdict.readings) >= 2
    assert len({reading.label for reading in verdict.readings}) == len(verdict.readings)


def test_the_reference_never_calls_numpy_split(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*_: object, **__: object) -> None:
        raise AssertionError("the reference must not call the functions it judges")

    for name in ("split", "array_split", "hsplit", "vsplit", "dsplit"):
        monkeypatch.setattr(np, name, forbidden)
    data = np.arange(24).reshape(4, 6)
    for op, spec in ops.OPS.items():
        if spec.family != "split":  # Slice: tests/test_slice_reference.py
            continue
        kind = sorted(spec.forms)[0]
        value: object = (2, 4) if kind in ("lengths", "indices") else 2
        outcome = answer(op, request((4, 6), 1, kind, value)).outcome
        if isinstance(outcome, Pieces):
            outcome.take(data)
