"""OpenVINO Slice-8 and StridedSlice-1, from OpenVINO's operation specifications (docs/specs.md,
``openvino-Slice-8`` and ``openvino-StridedSlice-1``).

Slice-8 says its rules follow Python's ``data[start:stop:step]``, and its examples agree; it
states the index types (any integer), the axes range and their uniqueness, the equal lengths of
the inputs and a non-zero step, and data of rank 1 or more.

StridedSlice-1 describes its stepping in words that part from Python on three points, while each
of its examples names a Python expression as its equivalent: the element at ``begin`` is always
taken ("begin == end" keeps one element), a backward begin below 0 is clamped to 0, and a backward
``end_mask`` stops before index 0 (its own ``[1:, :, ::-1]`` example keeps three of four). It also
asks a shrink entry's begin to equal its end, where Python's index has no end. The four points are
independent statements, so every mix of text and examples is a reading (:data:`STRIDED_AMBIGUITY`);
the readings agree on most requests, and only distinct outcomes are listed.
"""

from __future__ import annotations

import itertools
from functools import partial

from conformance import dtypes
from conformance.oracle.reference.answer import SpecAnswer
from conformance.oracle.reference.rules import RuleViolation
from conformance.oracle.slicing.indexing import (
    between,
    clamp,
    from_end,
    integers,
    normalize_axes,
    python_span,
    repeated,
    require_nonzero_steps,
    require_same_lengths,
)
from conformance.oracle.slicing.request import SliceRequest
from conformance.oracle.slicing.strided import Dialect, ShrinkEnd, strided_answer
from conformance.oracle.slicing.window import Span, Window, full_span, span_length, span_of

SLICE = "OpenVINO Slice-8"
STRIDED = "OpenVINO StridedSlice-1"


def _index_type(request: SliceRequest, spec: str, names: str) -> None:
    """The index inputs are of "any supported integer type" in both texts."""
    if request.graph.index_dtype not in dtypes.INTEGER:
        raise RuleViolation(
            "index-type", f"{spec}: {names} are of an integer type; got {request.graph.index_dtype}"
        )


def slice_8(request: SliceRequest) -> Window:
    """Slice-8: Python's slicing on the listed axes (default the leading ``len(start)``)."""
    arguments, shape = request.arguments, request.shape
    if not shape:
        raise RuleViolation("data-rank", f"{SLICE}: data has a rank of 1 or more; got a rank-0 tensor")
    _index_type(request, SLICE, "start, stop, step and axes")
    starts, ends = integers(arguments.starts), integers(arguments.ends or ())
    steps = list(arguments.steps) if arguments.steps is not None else [1] * len(starts)
    require_same_lengths(
        SLICE,
        "start, stop, step and axes have equal numbers of elements",
        start=starts,
        stop=ends,
        step=arguments.steps,
        axes=arguments.axes,
    )
    require_nonzero_steps(steps, SLICE, "a step value cannot be 0")
    axes = list(arguments.axes) if arguments.axes is not None else list(range(len(starts)))
    axes = normalize_axes(axes, len(shape), SLICE)
    if repeated(axes):
        raise RuleViolation("axes-repeated", f"{SLICE}: axes values are required to be unique; got {axes}")
    spans = [full_span(dim) for dim in shape]
    for axis, start, end, step in zip(axes, starts, ends, steps, strict=True):
        spans[axis] = python_span(shape[axis], start, end, step)
    return Window(tuple(spans))


#: the points where StridedSlice-1's words part from the Python slices its examples name
TAKES_BEGIN = "the element at begin taken first"
BEGIN_CLAMP = "a backward begin below 0 clamped to 0"
END_MASK = "a backward end_mask stopping before index 0"
SHRINK_EQUAL = "a shrink entry's end equal to begin"
TEXT_POINTS = (TAKES_BEGIN, BEGIN_CLAMP, END_MASK, SHRINK_EQUAL)


def text_span(points: frozenset[str], dim: int, begin: int | None, end: int | None, stride: int) -> Span:
    """A range under StridedSlice-1's words on ``points`` and Python's rules elsewhere: bounds are
    clamped to [0, dim] forward; backward, begin to [-1 or 0, dim - 1] and end to [-1, dim], a
    masked end being -1 (past index 0) or 0; and the element at begin may be taken before end is
    compared, so that equal bounds keep one element."""
    if stride > 0:
        first = 0 if begin is None else clamp(from_end(begin, dim), 0, dim)
        last = dim if end is None else clamp(from_end(end, dim), 0, dim)
    else:
        low = 0 if BEGIN_CLAMP in points else -1
        first = dim - 1 if begin is None else clamp(from_end(begin, dim), low, dim - 1)
        masked = 0 if END_MASK in points else -1
        last = masked if end is None else clamp(from_end(end, dim), -1, dim)
    span = between(first, last, stride)
    if TAKES_BEGIN in points and span_length(span) == 0 and 0 <= first < dim:
        return span_of(first, stride, 1)
    return span


#: Why StridedSlice-1 gets several readings (docs/specs.md, "Ambiguous points").
STRIDED_AMBIGUITY = (
    "StridedSlice-1's text takes the element at begin before comparing with end, clamps a backward "
    "begin below 0 to 0, stops a backward end_mask before index 0 and asks a shrink entry's begin to "
    "equal its end, while each of its examples names the Python slice it is equivalent to"
)


def _dialects() -> list[tuple[str, Dialect]]:
    """Python's slicing, the text on every point, and each mix: the points are independent
    statements, so a backend may follow the text on some and the examples on others."""
    dialects = []
    for count in range(len(TEXT_POINTS) + 1):
        for chosen in itertools.combinations(TEXT_POINTS, count):
            points = frozenset(chosen)
            if not points:
                label = "Python's slicing, as the examples"
            elif len(points) == len(TEXT_POINTS):
                label = "the text's stepping and clamping"
            else:
                label = f"the text on {', '.join(chosen)}; Python's slicing elsewhere"
            shrink: ShrinkEnd = "begin" if SHRINK_EQUAL in points else "ignored"
            dialects.append((label, Dialect(STRIDED, partial(text_span, points), shrink)))
    return dialects


def strided_slice_1(request: SliceRequest) -> SpecAnswer:
    """StridedSlice-1 under its text and under the Python equivalents its examples give."""
    _index_type(request, STRIDED, "begin, end and stride")
    return strided_answer(request, _dialects(), STRIDED_AMBIGUITY)
