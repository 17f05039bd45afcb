"""ONNX Split-1, -2, -11, -13 and -18, from the ONNX operator documentation of Split (docs/specs.md).

The versions differ in more than the changelog headline, and each difference is a rule here
(the type lists are in :data:`VERSIONS`):
- axis: Split-1 states no default (an omitted axis is ambiguous), -2 defaults to 0, negative
  values are defined from -11 on (before, a negative axis in range is ambiguous: the text is
  silent, and ONNX's own Split-2 shape inference counts it from the back);
- split: an attribute (Split-1 also as a second input of type T), an int64 input from -13;
- piece count: from the declared outputs (equal parts, which must divide) until -18 adds
  num_outputs, with ceil-sized pieces and a smaller last one; -18 demands exactly one of split
  and num_outputs;
- the node's outputs: one per length of ``split`` ("length of each output"), and Split-18's
  ``num_outputs`` outputs, so a node declaring another count (``graph.declared_outputs``) is
  malformed.
Split-1 and -2 do not state that lengths are non-negative or that they sum to the dimension;
both follow from "length of each output" of a tensor split into outputs, and the reasons say so.
"""

from __future__ import annotations

from dataclasses import dataclass

from conformance import dtypes
from conformance.oracle.reference.answer import Pieces, Reading, Rejection, SpecAnswer, SplitRequest
from conformance.oracle.reference.rules import (
    RuleViolation,
    balanced_lengths,
    check_piece_count,
    equal_lengths,
    exact_lengths,
    normalize_axis,
    outcome_of,
)

_ALL_BUT_BF16 = frozenset(dtypes.ALL) - {"bfloat16"}


@dataclass(frozen=True)
class _Version:
    number: int
    types: frozenset[str]
    axis_default: bool
    negative_axis: bool
    split_stated: bool  # ">= 0" and "sum must equal" written in the text, not just implied

    @property
    def spec(self) -> str:
        return f"ONNX Split-{self.number}"


VERSIONS = {
    1: _Version(1, frozenset({"float16", "float32", "float64"}), False, False, False),
    2: _Version(2, _ALL_BUT_BF16, True, False, False),
    11: _Version(11, _ALL_BUT_BF16, True, True, False),
    13: _Version(13, frozenset(dtypes.ALL), True, True, True),
    18: _Version(18, frozenset(dtypes.ALL), True, True, True),
}


def split(version: int, request: SplitRequest) -> SpecAnswer | Pieces:
    """The answer of ONNX Split-``version`` to ``request``."""
    spec = VERSIONS[version]
    if request.dtype not in spec.types:
        raise RuleViolation(
            "data-type",
            f"{spec.spec}: T is constrained to {_type_list(spec.types)}; got tensor({request.dtype})",
        )
    if request.axis is None and not spec.axis_default:
        return _omitted_axis(spec, request)
    return _on_axis(spec, request, 0 if request.axis is None else request.axis)


#: Why a negative axis is an open point before Split-11 (docs/specs.md, "Ambiguous points").
NEGATIVE_AXIS_AMBIGUITY = (
    "Split-1 and Split-2 neither define negative axis values nor forbid them (the range and 'counting "
    "from the back' arrive with Split-11); ONNX's own shape inference for Split-2 counts a negative "
    "axis from the back, and ONNX's model tests (test_GLU) rely on it"
)


def _on_axis(spec: _Version, request: SplitRequest, axis_value: int) -> SpecAnswer | Pieces:
    rank = len(request.shape)
    if axis_value < 0 and not spec.negative_axis and rank and -rank <= axis_value:
        return _negative_axis(spec, request, axis_value)
    axis = normalize_axis(axis_value, rank, spec.spec, negative=spec.negative_axis)
    dim = request.shape[axis]
    if request.form.kind == "lengths":
        return _split_given(spec, request, axis, list(request.integers), dim)
    return _count_given(spec, request, axis, request.integer, dim)


def _negative_axis(spec: _Version, request: SplitRequest, axis_value: int) -> SpecAnswer:
    """A negative axis in range, before Split-11: rejected by one reading, counted from the back by
    the other (the reading ONNX's own tools take for Split-2)."""
    refused = Rejection(
        "axis-negative",
        f"{spec.spec} defines no negative axis (counting from the back arrives with Split-11); "
        f"got {axis_value}",
    )
    counted = outcome_of(_on_axis, spec, request, axis_value + len(request.shape))
    return SpecAnswer(
        (Reading(refused, "no negative axis before Split-11"), Reading(counted, "counted from the back")),
        ambiguity=NEGATIVE_AXIS_AMBIGUITY,
    )


def _omitted_axis(spec: _Version, request: SplitRequest) -> SpecAnswer:
    """Split-1 lists axis with no default and without marking it required."""
    missing = Rejection("axis-missing", f"{spec.spec} states no default for the axis attribute")
    defaulted = outcome_of(_on_axis, spec, request, 0)
    return SpecAnswer(
        (Reading(missing, "axis is required"), Reading(defaulted, "axis defaults to 0 as from Split-2")),
        ambiguity=f"{spec.spec} gives the axis attribute no default and does not mark it required",
    )


def _split_given(spec: _Version, request: SplitRequest, axis: int, lengths: list[int], dim: int) -> Pieces:
    graph = request.graph
    if spec.number == 18 and graph.num_outputs == "both":
        raise RuleViolation(
            "split-and-num-outputs",
            "ONNX Split-18: either input 'split' or the attribute 'num_outputs' should be specified, "
            "but not both",
        )
    if spec.number >= 13 and graph.lengths_dtype != "int64":
        raise RuleViolation(
            "lengths-type", f"{spec.spec}: input 'split' is tensor(int64); got tensor({graph.lengths_dtype})"
        )
    _declared_outputs(request, len(lengths), f"{spec.spec}: 'split' gives the length of each output")
    if not lengths:
        raise RuleViolation(
            "output-count",
            f"{spec.spec}: the op has between 1 and 2147483647 outputs; an empty split gives none",
        )
    wording = "" if spec.split_stated else " (implied by 'length of each output')"
    return exact_lengths(axis, lengths, dim, spec.spec + wording)


def _count_given(
    spec: _Version, request: SplitRequest, axis: int, count: int, dim: int
) -> SpecAnswer | Pieces:
    if spec.number == 18 and request.graph.num_outputs != "neither":
        declared = request.graph.declared_outputs
        if declared is not None and declared < count:
            return _fewer_outputs_declared(axis, count, dim, declared)
        _declared_outputs(request, count, f"{spec.spec}: num_outputs is the number of outputs")
        return _num_outputs(axis, count, dim)
    if spec.number == 18:
        raise RuleViolation(
            "split-or-num-outputs",
            "ONNX Split-18: either input 'split' or the attribute 'num_outputs' should be specified; "
            "neither is",
        )
    if count < 1:
        raise RuleViolation(
            "output-count", f"{spec.spec}: the op has between 1 and 2147483647 outputs; got {count}"
        )
    if dim % count:
        raise RuleViolation(
            "equal-parts-divide",
            f"{spec.spec}: without 'split' the tensor is split to equal sized parts; {dim} does not "
            f"divide into {count}",
        )
    return Pieces.from_lengths(axis, equal_lengths(dim // count, count))


def _declared_outputs(request: SplitRequest, implied: int, why: str) -> None:
    """A node that declares another number of outputs than its request gives is malformed."""
    declared = request.graph.declared_outputs
    if declared is not None and declared != implied:
        raise RuleViolation(
            "declared-outputs", f"{why}: the request gives {_outputs(implied)}, the node declares {declared}"
        )


#: Why a Split-18 node declaring fewer outputs than num_outputs is an open point.
FEWER_OUTPUTS_AMBIGUITY = (
    "Split-18 calls num_outputs the number of outputs, yet ONNX's convention lets a node leave out "
    "trailing outputs it does not use, and ONNX's own shape inference accepts a node declaring fewer "
    "outputs than num_outputs (onnx/onnx pull request 8255)"
)


def _fewer_outputs_declared(axis: int, count: int, dim: int, declared: int) -> SpecAnswer:
    """Split-18 with ``num_outputs`` and fewer declared outputs: refused, or the leading pieces."""
    refused = Rejection(
        "declared-outputs",
        f"ONNX Split-18: num_outputs is the number of outputs: the request gives {_outputs(count)}, "
        f"the node declares {declared}",
    )
    leading: Pieces | Rejection
    if declared == 0:
        leading = Rejection(
            "output-count", "ONNX Split-18: the op has between 1 and 2147483647 outputs; got 0"
        )
    else:
        full = SpecAnswer.wrap(_num_outputs(axis, count, dim)).outcome
        leading = Pieces(axis, full.bounds[:declared]) if isinstance(full, Pieces) else full
    return SpecAnswer(
        (
            Reading(refused, "num_outputs is the number of outputs"),
            Reading(leading, "trailing outputs left out"),
        ),
        ambiguity=FEWER_OUTPUTS_AMBIGUITY,
    )


def _num_outputs(axis: int, count: int, dim: int) -> SpecAnswer | Pieces:
    """Split-18 num_outputs: equal parts of ceil(dim / n), "the last chunk will be smaller"."""
    if count < 1:
        raise RuleViolation(
            "num-outputs-range", f"ONNX Split-18: num_outputs must be at least 1; got {count}"
        )
    piece = -(-dim // count)
    last = dim - piece * (count - 1)
    if last >= 0:
        return Pieces.from_lengths(axis, [*equal_lengths(piece, count - 1), last])
    clamped = [min(piece, max(dim - piece * index, 0)) for index in range(check_piece_count(count))]
    return SpecAnswer(
        (
            Reading(
                Rejection(
                    "num-outputs-last-chunk",
                    f"ONNX Split-18: {count} chunks of ceil({dim}/{count}) = {piece} leave "
                    f"{last} for the last one; no split has only the last chunk smaller",
                ),
                "reject",
            ),
            Reading(Pieces.from_lengths(axis, clamped), "ceil pieces until the data runs out"),
            Reading(
                Pieces.from_lengths(axis, balanced_lengths(dim, count)), "balanced, as numpy.array_split"
            ),
        ),
        ambiguity=(
            f"Split-18 says the last chunk will be smaller, but {dim} into {count} ceil-sized chunks "
            "leaves the last one negative (onnx/onnx issue 5766)"
        ),
    )


def _outputs(count: int) -> str:
    return f"{count} output" if count == 1 else f"{count} outputs"


def _type_list(types: frozenset[str]) -> str:
    return ", ".join(f"tensor({name})" for name in dtypes.ALL if name in types)
