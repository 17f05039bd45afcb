"""The strided slice both OpenVINO's StridedSlice-1 and TensorFlow's tf.strided_slice define: a
list of range specifications (begin, end, stride) whose masks turn an entry into an ellipsis, a
new axis, a single index (shrink) or a range with an omitted bound (begin and end masks).

The two texts share the encoding and differ in details (how a range is clamped, what a shrink
entry's end must be); each op passes its readings as :class:`Dialect` values and
:func:`strided_answer` returns one answer, ambiguous where the readings disagree. A position
whose masks ask for two things at once (an ellipsis that is also a new axis, say) is defined by
neither text: it is refused by one reading and resolved by precedence (ellipsis, then new axis,
then index) by the others.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from conformance.oracle.reference.answer import Rejection, SpecAnswer
from conformance.oracle.reference.rules import RuleViolation
from conformance.oracle.slicing.indexing import (
    attempt,
    either,
    from_end,
    integers,
    require_nonzero_steps,
    require_same_lengths,
)
from conformance.oracle.slicing.request import Masks, SliceArguments, SliceRequest
from conformance.oracle.slicing.window import Span, Window, full_span, span_of

Kind = Literal["range", "index", "new", "ellipsis"]
#: what a shrink entry's end must be: ignored (tf.strided_slice), begin + 1 (raw StridedSlice),
#: equal to begin (OpenVINO's text)
ShrinkEnd = Literal["ignored", "begin + 1", "begin"]


@dataclass(frozen=True)
class Dialect:
    """One reading of a strided-slice text: the span of a range entry (None for a masked bound)
    and the rule for a shrink entry's end."""

    spec: str
    span: Callable[[int, int | None, int | None, int], Span]
    shrink_end: ShrinkEnd
    #: True where the text's "the stride is ignored" for a new-axis or shrink entry lets it be 0
    ignored_strides: bool = False


def conflicts(masks: Masks, count: int) -> list[int]:
    """Positions whose masks ask for two things: two of ellipsis, new axis and shrink, or a shrink
    (an index, which is ``begin``) whose begin is masked."""
    clashing = []
    for position in range(count):
        roles = [position in getattr(masks, name) for name in ("ellipsis", "new_axis", "shrink_axis")]
        if sum(roles) > 1 or (position in masks.shrink_axis and position in masks.begin):
            clashing.append(position)
    return clashing


def strided_answer(
    request: SliceRequest, dialects: Sequence[tuple[str, Dialect]], ambiguity: str
) -> SpecAnswer:
    """The answer under every reading: one when they agree."""
    options: list[tuple[str, SpecAnswer | Rejection]] = [
        (label, attempt(strided_window, request, dialect)) for label, dialect in dialects
    ]
    masks = request.arguments.masks or Masks()
    clashing = conflicts(masks, len(request.arguments.starts))
    if not clashing:
        return either(options, ambiguity)
    refused = Rejection(
        "mask-conflict",
        f"{dialects[0][1].spec}: each position is one specification (an ellipsis, a new axis, an index "
        f"or a range); the masks ask for two at positions {clashing}",
    )
    return either(
        [("one specification per position", refused), *options],
        f"{ambiguity}; the texts do not say what masks asking two things of one position mean",
    )


def _kinds(masks: Masks, count: int) -> list[Kind]:
    """What each position specifies; a position asking for two takes the first of ellipsis, new
    axis, index (the precedence reading of :func:`strided_answer`)."""
    kinds: list[Kind] = []
    for position in range(count):
        if position in masks.ellipsis:
            kinds.append("ellipsis")
        elif position in masks.new_axis:
            kinds.append("new")
        elif position in masks.shrink_axis:
            kinds.append("index")
        else:
            kinds.append("range")
    return kinds


def strided_window(request: SliceRequest, dialect: Dialect) -> Window:
    """The window one reading gives: the entries walk the input's dimensions, an ellipsis (or, when
    there is none, the end of the list) standing for as many whole dimensions as the others leave."""
    arguments, shape = request.arguments, request.shape
    masks = arguments.masks or Masks()
    begin, end = integers(arguments.starts), integers(arguments.ends or ())
    strides = list(arguments.steps) if arguments.steps is not None else [1] * len(begin)
    why = "begin, end and strides hold one entry per range specification"
    require_same_lengths(dialect.spec, why, begin=begin, end=end, strides=strides)
    kinds = _kinds(masks, len(begin))
    read = [stride for stride, kind in zip(strides, kinds, strict=True) if not _ignored(dialect, kind)]
    require_nonzero_steps(read, dialect.spec, "strides cannot hold a 0")
    ellipses = sorted(position for position in masks.ellipsis if position < len(begin))
    if len(ellipses) > 1:
        raise RuleViolation(
            "ellipsis-count", f"{dialect.spec}: at most one bit of the ellipsis mask is set; got {ellipses}"
        )
    consumed = sum(kind in ("range", "index") for kind in kinds)
    if consumed > len(shape):
        raise RuleViolation(
            "index-count",
            f"{dialect.spec}: each range or index entry addresses one dimension; {consumed} entries for "
            f"rank {len(shape)}",
        )
    spans: list[Span] = []
    shrunk: list[int] = []
    new_axes: list[int] = []
    for position, kind in enumerate(kinds):
        dim = len(spans)
        if kind == "ellipsis":
            spans.extend(full_span(size) for size in shape[dim : dim + len(shape) - consumed])
        elif kind == "new":
            new_axes.append(dim - len(shrunk) + len(new_axes))
        elif kind == "index":
            spans.append(_index(dialect, shape[dim], begin[position], end[position], position in masks.end))
            shrunk.append(dim)
        else:
            low = None if position in masks.begin else begin[position]
            high = None if position in masks.end else end[position]
            spans.append(dialect.span(shape[dim], low, high, strides[position]))
    spans.extend(full_span(size) for size in shape[len(spans) :])
    return Window(tuple(spans), tuple(shrunk), tuple(new_axes))


def zero_stride_ignored(arguments: SliceArguments) -> bool:
    """Whether a 0 stride sits at a new-axis or shrink entry, whose stride a text may ignore."""
    kinds = _kinds(arguments.masks or Masks(), len(arguments.starts))
    steps = arguments.steps or ()
    return any(step == 0 and kind in ("new", "index") for step, kind in zip(steps, kinds, strict=False))


def _ignored(dialect: Dialect, kind: Kind) -> bool:
    """Whether the reading never reads this entry's stride (a new axis or a shrink entry)."""
    return dialect.ignored_strides and kind in ("new", "index")


def _index(dialect: Dialect, dim: int, begin: int, end: int, end_masked: bool) -> Span:
    """A shrink entry: the one element at ``begin``, which must exist."""
    if dialect.shrink_end == "begin + 1" and (end_masked or end != begin + 1):
        raise RuleViolation(
            "shrink-slice-size",
            f"{dialect.spec}: a shrink entry's begin and end imply a slice of size 1 (end = begin + 1); "
            f"got begin {begin}, end {'masked' if end_masked else end}",
        )
    if dialect.shrink_end == "begin" and (end_masked or end != begin):
        raise RuleViolation(
            "shrink-begin-end",
            f"{dialect.spec}: with shrink_axis_mask set, begin must equal end; got begin {begin}, "
            f"end {'masked' if end_masked else end}",
        )
    index = from_end(begin, dim)
    if not 0 <= index < dim:
        raise RuleViolation(
            "shrink-index-range",
            f"{dialect.spec}: a shrink entry keeps the element at begin, and a dimension of {dim} has "
            f"none at {begin}",
        )
    return span_of(index, 1, 1)
