"""TensorFlow's tf.slice and tf.strided_slice, from their API pages and the raw ops they call
(docs/specs.md, ``tensorflow-tf.slice`` and ``tensorflow-tf.strided_slice``).

tf.slice cuts ``size[i]`` elements from ``begin[i]`` in every dimension, ``-1`` taking all that
remain, and requires ``0 <= begin[i] <= begin[i] + size[i] <= dim[i]``. Its page types begin and
size as int16, int32 or int64 while raw ``Slice`` lists int32 and int64 only: int16 is read both
ways.

tf.strided_slice is Python's slicing encoded as vectors and masks (the page calls it generalized
Python indexing). Its page says a shrink entry's end and stride are ignored, while raw
``StridedSlice`` asks begin and end of a shrink entry to imply a slice of size 1, which its own
worked example encodes as ``end = begin + 1``: read both ways.
"""

from __future__ import annotations

from conformance.oracle.reference.answer import Rejection, SpecAnswer
from conformance.oracle.reference.rules import RuleViolation
from conformance.oracle.slicing.indexing import (
    attempt,
    either,
    integers,
    python_span,
    require_same_lengths,
)
from conformance.oracle.slicing.request import SliceRequest
from conformance.oracle.slicing.strided import Dialect, strided_answer, zero_stride_ignored
from conformance.oracle.slicing.window import Window, span_of

TF_SLICE = "tf.slice"
TF_STRIDED = "tf.strided_slice"
#: the index types the two pages list (raw Slice lists only int32 and int64)
INDEX_TYPES = ("int16", "int32", "int64")


def _index_type(request: SliceRequest, spec: str, names: str) -> None:
    if request.graph.index_dtype not in INDEX_TYPES:
        raise RuleViolation(
            "index-type",
            f"{spec}: {names} are {', '.join(INDEX_TYPES)} tensors; got {request.graph.index_dtype}",
        )


def slice_(request: SliceRequest) -> SpecAnswer | Window:
    """tf.slice; int16 indices are listed by its page and not by raw Slice's."""
    _index_type(request, TF_SLICE, "begin and size")
    if request.graph.index_dtype != "int16":
        return _sizes(request)
    raw = Rejection(
        "index-type", f"{TF_SLICE}: raw_ops.Slice types begin and size as int32 or int64; got int16"
    )
    return either(
        [("int16 as tf.slice's page lists", attempt(_sizes, request)), ("int32 or int64 as raw Slice", raw)],
        "tf.slice's page lists int16 begin and size, the raw Slice op it calls only int32 and int64",
    )


def _sizes(request: SliceRequest) -> Window:
    """``size[i]`` elements from ``begin[i]`` in each dimension; -1 for all that remain."""
    shape = request.shape
    begin, sizes = integers(request.arguments.starts), list(request.arguments.sizes or ())
    why = "begin and size hold one entry per dimension of the input (size is a shape)"
    require_same_lengths(TF_SLICE, why, begin=begin, size=sizes, dimensions=shape)
    spans = []
    for start, size, dim in zip(begin, sizes, shape, strict=True):
        length = dim - start if size == -1 else size
        if not 0 <= start <= start + length <= dim:
            raise RuleViolation(
                "slice-range",
                f"{TF_SLICE}: 0 <= begin[i] <= begin[i] + size[i] <= dim[i] is required; got begin "
                f"{start}, size {size} on a dimension of {dim}",
            )
        spans.append(span_of(start, 1, length))
    return Window(tuple(spans))


#: Why a 0 stride at a new-axis or shrink entry is an open point for tf.strided_slice.
STRIDE_AMBIGUITY = (
    "tf.strided_slice's page says strides are non-zero and also that a new-axis entry's stride, and a "
    "shrink entry's, is ignored"
)
#: Why a shrink entry's end is an open point for tf.strided_slice.
SHRINK_AMBIGUITY = (
    "tf.strided_slice's page ignores a shrink entry's end, while raw_ops.StridedSlice asks begin and "
    "end to imply a slice of size 1"
)


def strided_slice(request: SliceRequest) -> SpecAnswer:
    """tf.strided_slice: Python's slicing per entry, masks as the page defines them."""
    _index_type(request, TF_STRIDED, "begin, end and strides")
    if not zero_stride_ignored(request.arguments):
        return _shrink_readings(request, ignored_strides=False)
    return either(
        [
            ("every stride non-zero", _shrink_readings(request, ignored_strides=False)),
            ("an ignored entry's stride unread", _shrink_readings(request, ignored_strides=True)),
        ],
        STRIDE_AMBIGUITY,
    )


def _shrink_readings(request: SliceRequest, *, ignored_strides: bool) -> SpecAnswer:
    """The page's and the raw op's rule for a shrink entry's end, as two readings."""
    return strided_answer(
        request,
        [
            (
                "shrink end ignored, as tf.strided_slice",
                Dialect(TF_STRIDED, python_span, "ignored", ignored_strides),
            ),
            (
                "shrink end = begin + 1, as raw StridedSlice",
                Dialect(TF_STRIDED, python_span, "begin + 1", ignored_strides),
            ),
        ],
        SHRINK_AMBIGUITY,
    )
