"""ONNX Slice-1, -10, -11 and -13, from the ONNX operator documentation of Slice (docs/specs.md,
``onnx-Slice``).

What changes between the versions, each a rule or a reading here (:data:`VERSIONS`):
- Slice-1 takes ``starts``, ``ends`` and ``axes`` as int64 attributes and has no steps; from -10
  they are inputs of type ``Tind`` (int32 or int64), with an optional ``steps`` input;
- negative axes are defined from -11 on; before, a negative axis in range is read both ways;
- a step of 0 is refused in words from -11 on, and follows for -10 (a zero step never advances);
- the clamping: -1 to -11 say only that a bound past the dimension stands for its size and that a
  negative one counts from the end; -13's text (clarified in onnx/onnx pull request 3908 without a
  new version) clamps a backward start into [0, dim - 1]. A backward start still negative after
  adding the dimension is clamped to 0 by that text and selects nothing under NumPy's slicing,
  which every version names as its model: ambiguous for -10 and -11, the text for -13;
- bfloat16 data is allowed from -13 on.
Every version: ``axes`` omitted means every dimension in the summary and, in Slice-1's attribute
text and ONNX's own tools, the leading ``len(starts)`` ones; a repeated axis is undefined in -13's
words and unaddressed before, so it is read three ways (refused, the last entry wins, in turn).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from conformance import dtypes
from conformance.oracle.reference.answer import Rejection, SpecAnswer
from conformance.oracle.reference.rules import RuleViolation
from conformance.oracle.slicing.indexing import (
    attempt,
    between,
    clamp,
    either,
    from_end,
    integers,
    normalize_axes,
    python_span,
    repeated,
    require_nonzero_steps,
    require_same_lengths,
)
from conformance.oracle.slicing.request import SliceRequest
from conformance.oracle.slicing.window import Span, Window, compose, full_span, span_length

#: how one axis's (start, end, step) becomes a span on a dimension of the given size
Clamping = Callable[[int, int, int, int], Span]

INDEX_TYPES = ("int32", "int64")
_ALL_BUT_BF16 = frozenset(dtypes.ALL) - {"bfloat16"}


@dataclass(frozen=True)
class _Version:
    number: int
    types: frozenset[str]
    negative_axes: bool
    zero_step_stated: bool
    clarified: bool  # the clamping text of Slice-13

    @property
    def spec(self) -> str:
        return f"ONNX Slice-{self.number}"


VERSIONS = {
    1: _Version(1, _ALL_BUT_BF16, False, False, False),
    10: _Version(10, _ALL_BUT_BF16, False, False, False),
    11: _Version(11, _ALL_BUT_BF16, True, True, False),
    13: _Version(13, frozenset(dtypes.ALL), True, True, True),
}


def clarified_span(dim: int, start: int, end: int, step: int) -> Span:
    """Slice-13's effective values: negative bounds plus the dimension, then the start clamped to
    [0, dim] forward and [0, dim - 1] backward, the end to [0, dim] forward and [-1, dim - 1]
    backward."""
    start, end = from_end(start, dim), from_end(end, dim)
    if step > 0:
        return between(clamp(start, 0, dim), clamp(end, 0, dim), step)
    return between(clamp(start, 0, dim - 1), clamp(end, -1, dim - 1), step)


def numpy_span(dim: int, start: int, end: int, step: int) -> Span:
    """NumPy's slicing of one dimension, which every version of the text names as its model."""
    return python_span(dim, start, end, step)


#: Why the clamping of Slice-1 to -11 is an open point (docs/specs.md, "Ambiguous points").
CLAMPING_AMBIGUITY = (
    "before Slice-13 the text says only that bounds past the dimension stand for its size and that "
    "negative ones count from the end; for a backward step, a start still negative after adding the "
    "dimension is clamped to 0 by Slice-13's clarified text (onnx/onnx pull request 3908, applied "
    "without a new version) and selects nothing under NumPy's slicing, which the text names"
)


def slice_op(version: int, request: SliceRequest) -> SpecAnswer | Window:
    """The answer of ONNX Slice-``version`` to ``request``."""
    spec = VERSIONS[version]
    arguments, graph = request.arguments, request.graph
    if request.dtype not in spec.types:
        raise RuleViolation(
            "data-type",
            f"{spec.spec}: T is constrained to {_type_list(spec.types)}; got tensor({request.dtype})",
        )
    if version >= 10 and graph.index_dtype not in INDEX_TYPES:
        raise RuleViolation(
            "index-type",
            f"{spec.spec}: starts, ends, axes and steps are Tind, tensor(int32) or tensor(int64); "
            f"got tensor({graph.index_dtype})",
        )
    starts, ends = integers(arguments.starts), integers(arguments.ends or ())
    steps = list(arguments.steps) if arguments.steps is not None else [1] * len(starts)
    require_same_lengths(
        spec.spec,
        "starts, ends, axes and steps give one entry per sliced axis",
        starts=starts,
        ends=ends,
        axes=arguments.axes,
        steps=arguments.steps,
    )
    wording = "steps cannot be 0" if spec.zero_step_stated else "a step of 0 never advances (implied)"
    require_nonzero_steps(steps, spec.spec, wording)
    if arguments.axes is None:
        return _omitted_axes(spec, request, starts, ends, steps)
    return _on_axes(spec, request, list(arguments.axes), starts, ends, steps)


def _omitted_axes(
    spec: _Version, request: SliceRequest, starts: list[int], ends: list[int], steps: list[int]
) -> SpecAnswer | Window:
    """No ``axes``: the summary says every dimension; Slice-1's attribute and ONNX's tools say the
    leading ``len(starts)`` ones. They agree when starts has one entry per dimension."""
    rank = len(request.shape)
    if len(starts) == rank:
        return _on_axes(spec, request, list(range(rank)), starts, ends, steps)
    every = Rejection(
        "index-lengths",
        f"{spec.spec}: without axes, starts and ends apply to every dimension ([0, ..., r-1]), so they "
        f"need {rank} entries; got {len(starts)}",
    )
    if len(starts) > rank:
        raise RuleViolation(every.rule, every.reason)
    leading = attempt(_on_axes, spec, request, list(range(len(starts))), starts, ends, steps)
    return either(
        [("axes [0, ..., len(starts)-1]", leading), ("axes [0, ..., r-1]: one entry per dimension", every)],
        "the summary sets omitted axes to every dimension, while Slice-1's axes attribute (and ONNX's "
        "own shape inference) takes the first len(starts) dimensions",
    )


def _on_axes(
    spec: _Version,
    request: SliceRequest,
    axes: list[int],
    starts: list[int],
    ends: list[int],
    steps: list[int],
) -> SpecAnswer | Window:
    rank = len(request.shape)
    if not spec.negative_axes and any(-rank <= axis < 0 for axis in axes):
        refused = Rejection(
            "axis-negative",
            f"{spec.spec} defines no negative axis (they count from the back from Slice-11 on); got {axes}",
        )
        counted = attempt(
            _on_axes, spec, request, [from_end(axis, rank) for axis in axes], starts, ends, steps
        )
        return either(
            [("no negative axis before Slice-11", refused), ("counted from the back", counted)],
            f"{spec.spec} neither defines negative axes nor forbids them; Slice-11 counts them from the back",
        )
    normalized = normalize_axes(axes, rank, spec.spec, negative=spec.negative_axes)
    clampings: list[tuple[str, Clamping]] = [("Slice-13's clarified clamping", clarified_span)]
    if not spec.clarified:
        clampings.append(("NumPy's clamping", numpy_span))
    if repeated(normalized):
        return _repeated_axes(spec, request.shape, normalized, starts, ends, steps, clampings[0][1])
    options = [
        (label, _window(request.shape, normalized, starts, ends, steps, how)) for label, how in clampings
    ]
    return either(options, CLAMPING_AMBIGUITY)


def _window(
    shape: tuple[int, ...],
    axes: list[int],
    starts: list[int],
    ends: list[int],
    steps: list[int],
    how: Clamping,
    *,
    in_turn: bool = False,
) -> Window:
    """Each listed axis sliced, every other one whole. A later entry for an axis replaces an
    earlier one, as Slice-13's assignment of effective values reads; ``in_turn``: each entry is
    applied to what the previous ones left, as successive Slice nodes would."""
    spans = [full_span(dim) for dim in shape]
    for axis, start, end, step in zip(axes, starts, ends, steps, strict=True):
        if in_turn:
            spans[axis] = compose(spans[axis], how(span_length(spans[axis]), start, end, step))
        else:
            spans[axis] = how(shape[axis], start, end, step)
    return Window(tuple(spans))


def _repeated_axes(
    spec: _Version,
    shape: tuple[int, ...],
    axes: list[int],
    starts: list[int],
    ends: list[int],
    steps: list[int],
    how: Clamping,
) -> SpecAnswer:
    refused = Rejection(
        "axes-repeated", f"{spec.spec}: an axis may appear once in axes; {repeated(axes)} repeat in {axes}"
    )
    words = (
        "calls the result undefined"
        if spec.number >= 13
        else "does not address it (Slice-13 calls it undefined)"
    )
    return either(
        [
            ("refused", refused),
            ("the last entry for an axis wins", _window(shape, axes, starts, ends, steps, how)),
            ("entries applied in turn", _window(shape, axes, starts, ends, steps, how, in_turn=True)),
        ],
        f"a repeated axis: {spec.spec} {words}",
    )


def _type_list(types: frozenset[str]) -> str:
    return ", ".join(f"tensor({name})" for name in dtypes.ALL if name in types)
