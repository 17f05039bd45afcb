"""The Slice family's reference against each document's own examples and the edge cases around
them: omitted, negative and out-of-range bounds, the INT64 and INT32 sentinels, negative and huge
steps, step 0, repeated and negative axes, empty results, and the requests each text refuses.

Every expected array is written out by hand from the document's words (the page's example output
where it gives one), never computed by slicing with the same parameters: the reference is the
oracle, so a test that sliced the same way would agree with any slip in it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from conformance.corpus.case import GraphSpec, InputPlacement, Masks, SliceArguments
from conformance.oracle.slicing.request import SliceRequest
from conformance.corpus.slice_ops import why_not_expressible
from conformance.oracle.slicing.semantics import RULES, slice_answer
from conformance.oracle.slicing.window import Window
from conformance.oracle.reference.answer import Rejection, SpecAnswer

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
ONNX = ["onnx.Slice-1", "onnx.Slice-10", "onnx.Slice-11", "onnx.Slice-13"]
ONNX_STEPPED = ONNX[1:]
DIGITS = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
#: the 3x2x3 tensor of the tf.slice and tf.strided_slice pages
T = np.array([[[1, 1, 1], [2, 2, 2]], [[3, 3, 3], [4, 4, 4]], [[5, 5, 5], [6, 6, 6]]])
#: the 2x4 tensor of the ONNX Slice examples
ONNX_DATA = np.array([[1, 2, 3, 4], [5, 6, 7, 8]])


def ask(
    op: str,
    shape: tuple[int, ...],
    *,
    dtype: str = "float32",
    graph: GraphSpec | None = None,
    **arguments: Any,
) -> SpecAnswer:
    """The reference's answer; list-valued arguments become the tuples a request holds."""
    values = {name: tuple(value) if isinstance(value, list) else value for name, value in arguments.items()}
    return slice_answer(op, SliceRequest(shape, dtype, SliceArguments(**values), graph or GraphSpec()))


def sliced(op: str, data: np.ndarray, **arguments: Any) -> list[Any]:
    """The one output an unambiguous, accepting answer cuts from ``data``."""
    answer = ask(op, data.shape, **arguments)
    assert not answer.ambiguous, answer
    window = answer.outcome
    assert isinstance(window, Window), window
    return window.take(data)[0].tolist()


def shape_of(op: str, shape: tuple[int, ...], **arguments: Any) -> tuple[int, ...]:
    answer = ask(op, shape, **arguments)
    assert not answer.ambiguous and isinstance(answer.outcome, Window), answer
    (out,) = answer.outcome.shapes(shape)
    return out


def rule(op: str, shape: tuple[int, ...], **arguments: Any) -> str:
    answer = ask(op, shape, **arguments)
    assert not answer.ambiguous and isinstance(answer.outcome, Rejection), answer
    return answer.outcome.rule


def readings(op: str, data: np.ndarray, **arguments: Any) -> list[Any]:
    """Each reading of an ambiguous answer: the output it cuts, or the rule it names."""
    answer = ask(op, data.shape, **arguments)
    assert answer.ambiguous, answer
    return [
        reading.outcome.rule
        if isinstance(reading.outcome, Rejection)
        else reading.outcome.take(data)[0].tolist()
        for reading in answer.readings
    ]


def test_every_op_of_the_issue_has_rules() -> None:
    assert sorted(RULES) == sorted(
        [
            *ONNX,
            "openvino.Slice-8",
            "openvino.StridedSlice-1",
            "torch.narrow",
            "torch.Tensor.__getitem__",
            "numpy.ndarray.__getitem__",
            "tensorflow.slice",
            "tensorflow.strided_slice",
        ]
    )


# The window itself


def test_a_backward_window_reaching_index_0_takes_it_rather_than_the_last_element() -> None:
    (out,) = Window(((2, -1, -1),)).take(np.array([10, 11, 12]))
    assert out.tolist() == [12, 11, 10]


def test_a_window_removes_and_inserts_axes_where_it_says() -> None:
    data = np.array([[0, 1, 2], [3, 4, 5]])
    window = Window(((1, 2, 1), (0, 3, 1)), shrunk=(0,), new_axes=(0, 2))
    assert window.shapes((2, 3)) == ((1, 3, 1),)
    assert window.take(data)[0].tolist() == [[[3], [4], [5]]]


def test_equal_selections_are_equal_windows_whatever_bounds_wrote_them() -> None:
    assert Window(((4, 10, 7),)) == Window(((4, 5, 1),))
    assert Window(((4, 100, 7),)) == Window(((4, 96, 7),))  # 4, 11, ..., 95
    assert Window(((3, 0, 1),)) == Window(((0, 0, 1),))
    assert Window(((3, -1, -2),)) == Window(((3, 0, -2),))  # 3, 1


def test_a_span_cannot_reach_below_index_0() -> None:
    with pytest.raises(ValueError, match="below 0"):
        Window(((3, -9, -2),))


def test_a_removed_dimension_must_keep_one_index() -> None:
    with pytest.raises(ValueError, match="exactly one index"):
        Window(((0, 2, 1),), shrunk=(0,))


# ONNX Slice: the page's examples, every version


@pytest.mark.parametrize("op", ONNX)
def test_onnx_example_1(op: str) -> None:
    if op == "onnx.Slice-1":
        assert sliced(op, ONNX_DATA, axes=[0, 1], starts=[1, 0], ends=[2, 3]) == [[5, 6, 7]]
    else:
        assert sliced(op, ONNX_DATA, axes=[0, 1], starts=[1, 0], ends=[2, 3], steps=[1, 2]) == [[5, 7]]


@pytest.mark.parametrize("op", ONNX)
def test_onnx_example_2(op: str) -> None:
    assert sliced(op, ONNX_DATA, starts=[0, 1], ends=[-1, 1000]) == [[2, 3, 4]]


@pytest.mark.parametrize("op", ONNX_STEPPED)
@pytest.mark.parametrize(
    ("starts", "ends", "steps", "expected"),
    [
        ([0], [INT64_MAX], [1], [0, 1, 2, 3, 4]),  # INT_MAX: to the end of an unknown dimension
        ([INT64_MIN], [INT64_MAX], [1], [0, 1, 2, 3, 4]),
        ([-1], [INT64_MIN], [-1], [4, 3, 2, 1, 0]),  # INT_MIN: to the front, backward
        ([INT64_MAX], [INT64_MIN], [-1], [4, 3, 2, 1, 0]),
        ([INT64_MAX], [INT64_MIN], [-2], [4, 2, 0]),  # past the end backward: starts at the last
        ([1], [4], [INT64_MAX], [1]),  # a huge step keeps the first element only
        ([-1], [INT64_MIN], [INT64_MIN], [4]),
        ([3], [1], [1], []),  # start after end, forward
        ([1], [3], [-1], []),  # start before end, backward
        ([-2], [-100], [-1], [3, 2, 1, 0]),
        ([-100], [100], [1], [0, 1, 2, 3, 4]),  # clamped at both ends
        ([100], [200], [1], []),
        ([2], [2], [1], []),
    ],
)
def test_onnx_bounds_on_one_axis(
    op: str, starts: list[int], ends: list[int], steps: list[int], expected: list[int]
) -> None:
    assert sliced(op, np.array([0, 1, 2, 3, 4]), starts=starts, ends=ends, steps=steps) == expected


@pytest.mark.parametrize("op", ONNX_STEPPED)
def test_onnx_int32_sentinels(op: str) -> None:
    int32 = GraphSpec(index_dtype="int32")
    data = np.array([0, 1, 2, 3])
    answer = ask(op, (4,), graph=int32, starts=[INT32_MIN], ends=[INT32_MAX])
    assert answer.outcome.take(data)[0].tolist() == [0, 1, 2, 3]  # type: ignore[union-attr]
    answer = ask(op, (4,), graph=int32, starts=[INT32_MAX], ends=[INT32_MIN], steps=[-1])
    assert answer.outcome.take(data)[0].tolist() == [3, 2, 1, 0]  # type: ignore[union-attr]


def test_onnx_slice_13_clamps_a_backward_start_below_the_front_to_index_0() -> None:
    """Slice-13's clarified text: the start into [0, dim - 1] backward, so index 0 is taken."""
    assert sliced("onnx.Slice-13", np.array([0, 1, 2, 3]), starts=[-10], ends=[INT64_MIN], steps=[-1]) == [0]


@pytest.mark.parametrize("op", ["onnx.Slice-10", "onnx.Slice-11"])
def test_onnx_clamping_before_the_clarification_is_read_both_ways(op: str) -> None:
    data = np.array([0, 1, 2, 3])
    assert readings(op, data, starts=[-10], ends=[INT64_MIN], steps=[-1]) == [[0], []]


@pytest.mark.parametrize("op", ONNX)
def test_onnx_empty_dimension(op: str) -> None:
    assert shape_of(op, (0, 3), starts=[0], ends=[10], axes=[0]) == (0, 3)
    if op != "onnx.Slice-1":
        assert shape_of(op, (0, 3), starts=[-1], ends=[INT64_MIN], axes=[0], steps=[-1]) == (0, 3)


@pytest.mark.parametrize("op", ["onnx.Slice-11", "onnx.Slice-13"])
def test_onnx_negative_axes_count_from_the_back(op: str) -> None:
    assert sliced(op, ONNX_DATA, starts=[1], ends=[3], axes=[-1]) == [[2, 3], [6, 7]]


@pytest.mark.parametrize("op", ["onnx.Slice-1", "onnx.Slice-10"])
def test_onnx_negative_axes_before_slice_11_are_read_both_ways(op: str) -> None:
    assert readings(op, ONNX_DATA, starts=[1], ends=[3], axes=[-1]) == ["axis-negative", [[2, 3], [6, 7]]]


@pytest.mark.parametrize("op", ONNX)
def test_onnx_omitted_axes_with_fewer_starts_than_dimensions_are_read_both_ways(op: str) -> None:
    assert readings(op, ONNX_DATA, starts=[1], ends=[2]) == [[[5, 6, 7, 8]], "index-lengths"]


@pytest.mark.parametrize("op", ONNX)
def test_onnx_repeated_axes_are_read_three_ways(op: str) -> None:
    data = np.array([0, 1, 2, 3, 4, 5])
    # refused; the last entry (2:5) replaces the first; or 2:5 of what 1:6 left (2, 3, 4, 5 -> 3, 4, 5)
    assert readings(op, data, starts=[1, 2], ends=[6, 5], axes=[0, 0]) == [
        "axes-repeated",
        [2, 3, 4],
        [3, 4, 5],
    ]


@pytest.mark.parametrize(
    ("op", "arguments", "dtype", "index_dtype", "expected"),
    [
        ("onnx.Slice-11", {"starts": [0], "ends": [1]}, "bfloat16", "int64", "data-type"),
        ("onnx.Slice-1", {"starts": [0], "ends": [1]}, "bfloat16", "int64", "data-type"),
        ("onnx.Slice-13", {"starts": [0], "ends": [1]}, "float32", "uint32", "index-type"),
        ("onnx.Slice-10", {"starts": [0], "ends": [1]}, "float32", "int16", "index-type"),
        ("onnx.Slice-13", {"starts": [0, 0], "ends": [1]}, "float32", "int64", "index-lengths"),
        ("onnx.Slice-13", {"starts": [0], "ends": [1], "steps": [1, 1]}, "float32", "int64", "index-lengths"),
        ("onnx.Slice-13", {"starts": [0], "ends": [1], "axes": [1]}, "float32", "int64", "axis-range"),
        ("onnx.Slice-13", {"starts": [0], "ends": [1], "axes": [-2]}, "float32", "int64", "axis-range"),
        ("onnx.Slice-10", {"starts": [0], "ends": [1], "axes": [-2]}, "float32", "int64", "axis-range"),
        ("onnx.Slice-13", {"starts": [0, 0], "ends": [1, 1]}, "float32", "int64", "index-lengths"),
        ("onnx.Slice-13", {"starts": [0], "ends": [1], "steps": [0]}, "float32", "int64", "step-zero"),
        ("onnx.Slice-11", {"starts": [0], "ends": [1], "steps": [0]}, "float32", "int64", "step-zero"),
        ("onnx.Slice-10", {"starts": [0], "ends": [1], "steps": [0]}, "float32", "int64", "step-zero"),
    ],
)
def test_onnx_refuses(
    op: str, arguments: dict[str, Any], dtype: str, index_dtype: str, expected: str
) -> None:
    assert rule(op, (4,), dtype=dtype, graph=GraphSpec(index_dtype=index_dtype), **arguments) == expected


def test_onnx_slice_13_takes_bfloat16() -> None:
    assert shape_of("onnx.Slice-13", (4,), dtype="bfloat16", starts=[1], ends=[3]) == (2,)


# OpenVINO Slice-8: the specification's twelve examples


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"starts": [1], "ends": [8], "steps": [1], "axes": [0]}, [1, 2, 3, 4, 5, 6, 7]),
        ({"starts": [1], "ends": [8], "steps": [1]}, [1, 2, 3, 4, 5, 6, 7]),
        ({"starts": [1], "ends": [8], "steps": [2], "axes": [0]}, [1, 3, 5, 7]),
        ({"starts": [-100], "ends": [100], "steps": [1], "axes": [0]}, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
        ({"starts": [9], "ends": [-11], "steps": [-1], "axes": [0]}, [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]),
        ({"starts": [9], "ends": [0], "steps": [-1], "axes": [0]}, [9, 8, 7, 6, 5, 4, 3, 2, 1]),
        ({"starts": [9], "ends": [-10], "steps": [-1], "axes": [0]}, [9, 8, 7, 6, 5, 4, 3, 2, 1]),
        ({"starts": [9], "ends": [-11], "steps": [-2], "axes": [0]}, [9, 7, 5, 3, 1]),
        ({"starts": [100], "ends": [-100], "steps": [-1], "axes": [0]}, [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]),
    ],
)
def test_openvino_slice_8_examples_on_ten_elements(arguments: dict[str, Any], expected: list[int]) -> None:
    assert sliced("openvino.Slice-8", DIGITS, **arguments) == expected


def test_openvino_slice_8_examples_on_two_and_three_dimensions() -> None:
    data = np.array([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]])
    two = {"starts": [0, 1], "ends": [2, 4], "steps": [1, 2], "axes": [0, 1]}
    assert sliced("openvino.Slice-8", data, **two) == [[1, 3], [6, 8]]
    three = {"starts": [0, 0, 0], "ends": [4, 10, 5], "steps": [1, 1, 1], "axes": [0, 1, 2]}
    assert shape_of("openvino.Slice-8", (20, 10, 5), **three) == (4, 10, 5)
    leading = {"starts": [0, 0], "ends": [4, 10], "steps": [1, 1], "axes": [0, 1]}
    assert shape_of("openvino.Slice-8", (20, 10, 5), **leading) == (4, 10, 5)


@pytest.mark.parametrize(
    ("arguments", "shape", "index_dtype", "expected"),
    [
        ({"starts": [0], "ends": [1]}, (), "int64", "data-rank"),
        ({"starts": [0], "ends": [1], "steps": [0]}, (4,), "int64", "step-zero"),
        ({"starts": [0, 0], "ends": [1, 1], "axes": [0, -2]}, (4, 4), "int64", "axes-repeated"),
        ({"starts": [0], "ends": [1], "axes": [2]}, (4, 4), "int64", "axis-range"),
        ({"starts": [0, 0], "ends": [1], "steps": [1, 1]}, (4, 4), "int64", "index-lengths"),
    ],
)
def test_openvino_slice_8_refuses(
    arguments: dict[str, Any], shape: tuple[int, ...], index_dtype: str, expected: str
) -> None:
    assert rule("openvino.Slice-8", shape, graph=GraphSpec(index_dtype=index_dtype), **arguments) == expected


def test_openvino_slice_8_takes_any_integer_index_type() -> None:
    assert sliced("openvino.Slice-8", DIGITS, starts=[2], ends=[5], graph=GraphSpec(index_dtype="uint8")) == [
        2,
        3,
        4,
    ]


# OpenVINO StridedSlice-1: its examples, and where its text and its Python equivalents part


def strided(
    starts: list[int], ends: list[int], steps: list[int] | None = None, **masks: list[int]
) -> dict[str, Any]:
    return {
        "starts": starts,
        "ends": ends,
        "steps": steps,
        "masks": Masks(**{k: tuple(v) for k, v in masks.items()}),
    }


def test_openvino_strided_slice_examples_where_both_readings_agree() -> None:
    op = "openvino.StridedSlice-1"
    six = strided([0, 1, 0, 1, 3, 3], [4, 4, 4, 4, 0, 0], [1, 1, 2, 2, -1, -2])
    # the page prints 4 for the fifth dimension, [3, 2, 1, 0]; 3:0:-1 stops before 0 in its text and in Python
    assert shape_of(op, (4,) * 6, **six) == (4, 3, 2, 2, 3, 2)
    assert shape_of(op, (2, 3, 4), **strided([0, 0, 0], [2, 2, -1], [1, 1, 1])) == (2, 2, 3)
    new = strided([1234, 0, -1, 0], [1234, 2, 9876, 4], [132, 1, 241, 1], new_axis=[0, 2])
    assert shape_of(op, (2, 4), **new) == (1, 2, 1, 4)
    shrink = strided([0, 0, 0, 0, 0], [1, 0, 384, 640, 8], [1, 1, 1, 1, 1], shrink_axis=[1])
    assert shape_of(op, (1, 2, 384, 640, 8), **shrink) == (1, 384, 640, 8)
    ellipsis = strided([0, 0, 0], [4, 0, 5], [1, -1, 1], ellipsis=[1])
    assert shape_of(op, (10,) * 10, **ellipsis) == (4, *(10,) * 8, 5)
    mixed = strided(
        [2, 1, 10, 10], [123, 1, 10, 5], [1, -1, 1, 1], begin=[2, 3], end=[0, 1], new_axis=[2], ellipsis=[1]
    )
    assert shape_of(op, (10,) * 10, **mixed) == (8, *(10,) * 8, 1, 5)


def test_openvino_strided_slice_end_mask_backward_is_read_both_ways() -> None:
    """The page's [1:, :, ::-1] example keeps [3, 2, 1] where Python's ::-1 keeps [3, 2, 1, 0]."""
    data = np.array([[[0, 1, 2, 3]] * 3] * 2)
    masked = strided([1, 1, 123], [0, 0, 2], [1, 1, -1], begin=[1, 2], end=[0, 1, 2])
    assert readings("openvino.StridedSlice-1", data, **masked) == [
        [[[3, 2, 1, 0], [3, 2, 1, 0], [3, 2, 1, 0]]],
        [[[3, 2, 1], [3, 2, 1], [3, 2, 1]]],
    ]


def test_openvino_strided_slice_equal_bounds_keep_one_element_in_the_text() -> None:
    assert readings("openvino.StridedSlice-1", DIGITS, **strided([4], [4], [1])) == [[], [4]]
    assert readings("openvino.StridedSlice-1", DIGITS, **strided([-20], [-20], [-1])) == [[], [0]]


def test_openvino_strided_slice_clamping_example_out_of_range() -> None:
    """The page's [1234:1234, 2:4321:-1] on 2x2: Python keeps nothing; the text keeps begin, clamped to
    the last index, on the backward dimension (the page's element 2 does not exist)."""
    answer = ask("openvino.StridedSlice-1", (2, 2), **strided([1234, 2], [1234, 4321], [1, -1]))
    shapes = [reading.outcome.shapes((2, 2)) for reading in answer.readings]  # type: ignore[union-attr]
    assert shapes == [((0, 0),), ((0, 1),)]


def test_openvino_strided_slice_shrink_end_must_equal_begin_in_the_text() -> None:
    data = np.array([[0, 1, 2], [3, 4, 5]])
    assert readings("openvino.StridedSlice-1", data, **strided([1], [2], [1], shrink_axis=[0])) == [
        [3, 4, 5],
        "shrink-begin-end",
    ]


# TensorFlow: the pages' examples and rules


@pytest.mark.parametrize(
    ("begin", "end", "stride", "expected"),
    [
        ([1, 0, 0], [2, 1, 3], [1, 1, 1], [[[3, 3, 3]]]),
        ([1, 0, 0], [2, 2, 3], [1, 1, 1], [[[3, 3, 3], [4, 4, 4]]]),
        ([1, -1, 0], [2, -3, 3], [1, -1, 1], [[[4, 4, 4], [3, 3, 3]]]),
    ],
)
def test_tf_strided_slice_examples(
    begin: list[int], end: list[int], stride: list[int], expected: list[Any]
) -> None:
    assert sliced("tensorflow.strided_slice", T, **strided(begin, end, stride)) == expected


def test_tf_strided_slice_masks_as_the_page_describes() -> None:
    op = "tensorflow.strided_slice"
    # foo[5:, :, :3] on 7x8x9 is foo[5:7, 0:8, 0:3]
    assert shape_of(op, (7, 8, 9), **strided([5, 0, 0], [0, 0, 3], None, begin=[1, 2], end=[0, 1])) == (
        2,
        8,
        3,
    )
    assert sliced(op, np.array([0, 1, 2, 3, 4, 5, 6, 7]), **strided([0], [0], [-1], begin=[0], end=[0])) == [
        7,
        6,
        5,
        4,
        3,
        2,
        1,
        0,
    ]
    # foo[3:5, ..., 4:5] on 10x3x3x10 is foo[3:5, :, :, 4:5]
    assert shape_of(op, (10, 3, 3, 10), **strided([3, 0, 4], [5, 0, 5], [1, 1, 1], ellipsis=[1])) == (
        2,
        3,
        3,
        1,
    )
    # foo[:4, tf.newaxis, :2]
    assert shape_of(op, (5, 3), **strided([0, 0, 0], [4, 0, 2], [1, 1, 1], begin=[0, 2], new_axis=[1])) == (
        4,
        1,
        2,
    )
    # raw StridedSlice's walk-through: foo[1, 2:4, None, ..., :-3:-1, :] on 5^6 gives (2, 1, 5, 5, 2, 5)
    walk = strided(
        [1, 2, 0, 0, 0, 0],
        [2, 4, 0, 0, -3, 0],
        [1, 1, 1, 1, -1, 1],
        begin=[4, 5],
        end=[5],
        ellipsis=[3],
        new_axis=[2],
        shrink_axis=[0],
    )
    assert shape_of(op, (5,) * 6, **walk) == (2, 1, 5, 5, 2, 5)


def test_tf_strided_slice_takes_python_slices_not_the_raw_pages_sample() -> None:
    """raw_ops.StridedSlice prints foo[-2::-1] of [1, 2, 3, 4] as [4, 3]; Python's slice gives [3, 2, 1]."""
    assert sliced(
        "tensorflow.strided_slice", np.array([1, 2, 3, 4]), **strided([-2], [0], [-1], end=[0])
    ) == [3, 2, 1]


def test_tf_strided_slice_shrink_end_is_read_both_ways() -> None:
    data = np.array([[0, 1, 2], [3, 4, 5]])
    assert readings("tensorflow.strided_slice", data, **strided([-1], [7], [1], shrink_axis=[0])) == [
        [3, 4, 5],
        "shrink-slice-size",
    ]
    # the encoding of foo[-1] (end = begin + 1) satisfies both pages
    assert sliced("tensorflow.strided_slice", data, **strided([-1], [0], [1], shrink_axis=[0])) == [3, 4, 5]


@pytest.mark.parametrize(
    ("shape", "arguments", "expected"),
    [
        ((4,), strided([0], [1], [0]), "step-zero"),
        ((4, 4), strided([0, 0, 0], [1, 1, 1], [1, 1, 1], ellipsis=[0, 2]), "ellipsis-count"),
        ((4,), strided([0, 0], [1, 1], [1, 1]), "index-count"),
        ((4,), strided([4], [5], [1], shrink_axis=[0]), "shrink-index-range"),
        ((4,), strided([0, 0], [1], [1, 1]), "index-lengths"),
    ],
)
@pytest.mark.parametrize("op", ["tensorflow.strided_slice", "openvino.StridedSlice-1"])
def test_strided_slices_refuse(
    op: str, shape: tuple[int, ...], arguments: dict[str, Any], expected: str
) -> None:
    assert rule(op, shape, **arguments) == expected


def test_a_zero_stride_on_a_new_axis() -> None:
    """OpenVINO's text refuses a 0 stride anywhere; TensorFlow's page says both "non-zero" and that
    a new-axis entry's stride is ignored, so it has two readings there (and only there)."""
    new_axis = strided([0, 0], [0, 4], [0, 1], new_axis=[0])
    assert rule("openvino.StridedSlice-1", (4,), **new_axis) == "step-zero"
    data = np.arange(4)
    assert readings("tensorflow.strided_slice", data, **new_axis) == ["step-zero", [[0, 1, 2, 3]]]
    assert rule("tensorflow.strided_slice", (4,), **strided([0], [4], [0])) == "step-zero"


@pytest.mark.parametrize("op", ["tensorflow.strided_slice", "openvino.StridedSlice-1"])
def test_masks_asking_two_things_of_one_position_are_refused_or_resolved(op: str) -> None:
    both = strided([0, 1], [1, 2], [1, 1], ellipsis=[0], new_axis=[0])
    answer = ask(op, (3, 4), **both)
    assert answer.ambiguous
    assert (
        isinstance(answer.readings[0].outcome, Rejection)
        and answer.readings[0].outcome.rule == "mask-conflict"
    )
    assert answer.readings[1].outcome == Window(((0, 3, 1), (1, 2, 1)))  # the ellipsis wins: x[..., 1:2]


def test_a_strided_slice_of_a_scalar_can_add_an_axis() -> None:
    assert shape_of("tensorflow.strided_slice", (), **strided([0], [0], [1], new_axis=[0])) == (1,)


@pytest.mark.parametrize(
    ("begin", "size", "expected"),
    [
        ([1, 0, 0], [1, 1, 3], [[[3, 3, 3]]]),
        ([1, 0, 0], [1, 2, 3], [[[3, 3, 3], [4, 4, 4]]]),
        ([1, 0, 0], [2, 1, 3], [[[3, 3, 3]], [[5, 5, 5]]]),
        ([2, 1, 1], [-1, -1, -1], [[[6, 6]]]),  # -1: all that remain
        ([3, 0, 0], [0, 2, 3], []),
    ],
)
def test_tf_slice_examples(begin: list[int], size: list[int], expected: list[Any]) -> None:
    assert sliced("tensorflow.slice", T, starts=begin, sizes=size) == expected


@pytest.mark.parametrize(
    ("begin", "size", "expected"),
    [
        ([-1, 0, 0], [1, 1, 1], "slice-range"),  # begin is zero-based, no counting from the end
        ([4, 0, 0], [-1, 1, 1], "slice-range"),
        ([1, 0, 0], [3, 1, 1], "slice-range"),
        ([1, 0, 0], [-2, 1, 1], "slice-range"),
        ([0, 0], [1, 1], "index-lengths"),
    ],
)
def test_tf_slice_refuses(begin: list[int], size: list[int], expected: str) -> None:
    assert rule("tensorflow.slice", (3, 2, 3), starts=begin, sizes=size) == expected


def test_tf_slice_int16_indices_are_read_both_ways() -> None:
    int16 = GraphSpec(index_dtype="int16")
    answer = ask("tensorflow.slice", (3, 2, 3), graph=int16, starts=[1, 0, 0], sizes=[1, 1, 3])
    assert answer.ambiguous and answer.readings[0].outcome == Window(((1, 2, 1), (0, 1, 1), (0, 3, 1)))
    assert (
        rule("tensorflow.slice", (3,), graph=GraphSpec(index_dtype="uint8"), starts=[0], sizes=[1])
        == "index-type"
    )


# NumPy's and torch's basic slicing


@pytest.mark.parametrize(
    ("starts", "ends", "steps", "expected"),
    [
        ([1], [7], [2], [1, 3, 5]),  # the page's examples
        ([-2], [10], None, [8, 9]),
        ([-3], [3], [-1], [7, 6, 5, 4]),
        ([5], [None], None, [5, 6, 7, 8, 9]),
        ([None], [3], None, [0, 1, 2]),  # omitted bounds
        ([None], [None], [-1], [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]),
        ([None], [None], [-3], [9, 6, 3, 0]),
        ([3], [None], [-1], [3, 2, 1, 0]),
        ([None], [6], [-1], [9, 8, 7]),
        ([-100], [100], None, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),  # clamped at both ends
        ([100], [-100], [-1], [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]),
        ([-20], [None], [-1], []),  # a backward start before the front selects nothing
        ([100], [None], None, []),
        ([6], [2], None, []),
        ([INT64_MIN], [INT64_MAX], [INT64_MAX], [0]),
    ],
)
def test_numpy_basic_slicing(
    starts: list[Any], ends: list[Any], steps: list[int] | None, expected: list[int]
) -> None:
    assert sliced("numpy.ndarray.__getitem__", DIGITS, starts=starts, ends=ends, steps=steps) == expected


def test_numpy_missing_entries_are_whole_dimensions() -> None:
    data = np.array([[[1], [2], [3]], [[4], [5], [6]]])
    assert sliced("numpy.ndarray.__getitem__", data, starts=[1], ends=[2]) == [[[4], [5], [6]]]
    assert sliced("numpy.ndarray.__getitem__", data, starts=[2], ends=[None], axes=[-2]) == [[[3]], [[6]]]


@pytest.mark.parametrize("op", ["numpy.ndarray.__getitem__", "torch.Tensor.__getitem__"])
def test_basic_slicing_refuses(op: str) -> None:
    assert rule(op, (4,), starts=[0], ends=[2], steps=[0]) == "step-zero"
    assert rule(op, (4,), starts=[0], ends=[2], axes=[1]) == "index-count"
    assert rule(op, (4,), starts=[0, 0], ends=[1, 1]) == "index-count"


def test_torch_slicing_forward_is_numpys() -> None:
    assert sliced("torch.Tensor.__getitem__", DIGITS, starts=[1], ends=[7], steps=[2]) == [1, 3, 5]
    assert sliced("torch.Tensor.__getitem__", DIGITS, starts=[None], ends=[-7], steps=[INT64_MAX]) == [0]


def test_torch_slicing_negative_step_is_read_both_ways() -> None:
    assert readings("torch.Tensor.__getitem__", DIGITS, starts=[-3], ends=[3], steps=[-1]) == [
        "step-positive",
        [7, 6, 5, 4],
    ]


def test_torch_narrow_examples() -> None:
    x = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    assert sliced("torch.narrow", x, axes=[0], starts=[0], sizes=[2]) == [[1, 2, 3], [4, 5, 6]]
    assert sliced("torch.narrow", x, axes=[1], starts=[1], sizes=[2]) == [[2, 3], [5, 6], [8, 9]]
    runtime = GraphSpec(inputs=(("starts", "runtime"),))
    answer = ask("torch.narrow", (3, 3), graph=runtime, axes=[-1], starts=[-1], sizes=[1])
    assert answer.outcome.take(x)[0].tolist() == [[3], [6], [9]]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("axes", "start", "length", "expected"),
    [
        ([0], 0, -1, "length-negative"),
        ([0], 2, 2, "slice-range"),
        ([0], -4, 1, "slice-range"),
        ([2], 0, 1, "axis-range"),
    ],
)
def test_torch_narrow_refuses(axes: list[int], start: int, length: int, expected: str) -> None:
    assert rule("torch.narrow", (3, 3), axes=axes, starts=[start], sizes=[length]) == expected


def test_torch_narrow_to_nothing_at_the_end() -> None:
    assert shape_of("torch.narrow", (3, 3), axes=[0], starts=[3], sizes=[0]) == (0, 3)


# Which requests each op can state


@pytest.mark.parametrize(
    ("op", "arguments", "graph", "reason"),
    [
        ("onnx.Slice-1", {"starts": (0,), "ends": (1,), "steps": (1,)}, GraphSpec(), "no steps"),
        ("onnx.Slice-1", {"starts": (0,), "ends": (1,)}, GraphSpec(inputs="runtime"), "only as constants"),
        ("onnx.Slice-1", {"starts": (0,), "ends": (1,)}, GraphSpec(index_dtype="int32"), "int64"),
        ("onnx.Slice-13", {"starts": (None,), "ends": (1,)}, GraphSpec(), "cannot omit a bound"),
        (
            "onnx.Slice-13",
            {"starts": (0,), "ends": (INT64_MAX,)},
            GraphSpec(index_dtype="int32"),
            "do not fit int32",
        ),
        (
            "onnx.Slice-13",
            {"starts": (-1,), "ends": (1,)},
            GraphSpec(index_dtype="uint32"),
            "do not fit uint32",
        ),
        ("onnx.Slice-13", {"starts": (0,), "sizes": (1,)}, GraphSpec(), "bounds form"),
        ("openvino.Slice-8", {"starts": (0,), "ends": (1,), "masks": Masks()}, GraphSpec(), "bounds form"),
        ("tensorflow.strided_slice", {"starts": (0,), "ends": (1,)}, GraphSpec(), "strided form"),
        ("torch.narrow", {"starts": (0, 0), "sizes": (1, 1)}, GraphSpec(), "one dimension"),
        ("torch.narrow", {"starts": (0,), "sizes": (1,)}, GraphSpec(inputs="runtime"), "only as constants"),
        ("torch.narrow", {"starts": (0,), "sizes": (1,)}, GraphSpec(index_dtype="int32"), "Python ints"),
        ("tensorflow.slice", {"starts": (0,), "sizes": (1,), "axes": (0,)}, GraphSpec(), "no axes"),
        (
            "numpy.ndarray.__getitem__",
            {"starts": (0,), "ends": (1,)},
            GraphSpec(inputs="runtime"),
            "only as constants",
        ),
        (
            "numpy.ndarray.__getitem__",
            {"starts": (0, 0), "ends": (1, 1), "axes": (1, 1)},
            GraphSpec(),
            "twice",
        ),
        (
            "numpy.ndarray.__getitem__",
            {"starts": (0, 0), "ends": (1, 1), "axes": (0, -1)},
            GraphSpec(),
            "mix",
        ),
        ("torch.Tensor.__getitem__", {"starts": (0, 0), "ends": (1,)}, GraphSpec(), "differ in length"),
    ],
)
def test_what_an_op_cannot_state(op: str, arguments: dict[str, Any], graph: GraphSpec, reason: str) -> None:
    found = why_not_expressible(op, SliceArguments(**arguments), graph)
    assert found is not None and reason in found, found


@pytest.mark.parametrize(
    ("op", "arguments", "graph"),
    [
        (
            "onnx.Slice-13",
            {"starts": (0,), "ends": (INT32_MAX,)},
            GraphSpec(inputs="runtime", index_dtype="int32"),
        ),
        (
            "torch.narrow",
            {"starts": (0,), "sizes": (1,)},
            GraphSpec(inputs=InputPlacement(starts="runtime"), index_dtype="int32"),
        ),
        ("numpy.ndarray.__getitem__", {"starts": (None,), "ends": (-1,), "axes": (-1,)}, GraphSpec()),
        ("tensorflow.strided_slice", {"starts": (0,), "ends": (0,), "masks": Masks(end=(0,))}, GraphSpec()),
        ("onnx.Slice-13", {"starts": (0,), "ends": (1,), "axes": (0,)}, GraphSpec(index_dtype="uint8")),
    ],
)
def test_what_an_op_can_state(op: str, arguments: dict[str, Any], graph: GraphSpec) -> None:
    assert why_not_expressible(op, SliceArguments(**arguments), graph) is None
