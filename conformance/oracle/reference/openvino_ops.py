"""OpenVINO opset1 Split and VariadicSplit, from OpenVINO's operation specifications (docs/specs.md).

The texts type the axis (and VariadicSplit's lengths) as "any integer type", require a scalar
axis for Split-1 while VariadicSplit-1 also takes shape [1], and bound Split-1's num_splits to
[1, data.shape[axis]]. VariadicSplit gives its axis and its lengths the same type variable T2;
whether that forbids mixing int32 and int64 is a reading of a convention, not a stated rule,
so such a request gets an ambiguous answer.
"""

from __future__ import annotations

from conformance import dtypes
from conformance.oracle.reference.answer import Pieces, Reading, Rejection, SpecAnswer, SplitRequest
from conformance.oracle.reference.rules import (
    RuleViolation,
    equal_lengths,
    inferred_lengths,
    normalize_axis,
    outcome_of,
)

SPLIT = "OpenVINO Split-1"
VARIADIC = "OpenVINO VariadicSplit-1"


def _axis(request: SplitRequest, spec: str, *, shape_one: bool) -> int:
    """The axis input's type, shape and range, as the text for ``spec`` states them."""
    graph = request.graph
    if graph.axis_dtype not in dtypes.INTEGER:
        raise RuleViolation(
            "axis-type", f"{spec}: the axis input must be of an integer type; got {graph.axis_dtype}"
        )
    if graph.axis_shape != "scalar" and not shape_one:
        raise RuleViolation(
            "axis-shape", f"{spec}: the axis input must be a scalar; got a tensor of shape {graph.axis_shape}"
        )
    assert request.axis is not None, "catalogue.why_not_applicable keeps axis-less cases away"
    return normalize_axis(request.axis, len(request.shape), spec)


def split_1(request: SplitRequest) -> Pieces:
    """Split-1: num_splits equal pieces; num_splits in [1, dim] and dividing dim."""
    axis = _axis(request, SPLIT, shape_one=False)
    dim = request.shape[axis]
    num_splits = request.integer
    if not 1 <= num_splits <= dim:
        raise RuleViolation(
            "num-splits-range",
            f"{SPLIT}: num_splits must be an integer within [1, data.shape[axis]] = [1, {dim}]; "
            f"got {num_splits}",
        )
    if dim % num_splits:
        raise RuleViolation(
            "num-splits-divide",
            f"{SPLIT}: the dimension along axis must be evenly divisible by num_splits; "
            f"{dim} is not divisible by {num_splits}",
        )
    return Pieces.from_lengths(axis, equal_lengths(dim // num_splits, num_splits))


def variadic_split_1(request: SplitRequest) -> SpecAnswer:
    """VariadicSplit-1: lengths summing to dim, at most one -1 that takes what is left."""
    axis = _axis(request, VARIADIC, shape_one=True)
    graph = request.graph
    if graph.lengths_dtype not in dtypes.INTEGER:
        raise RuleViolation(
            "lengths-type",
            f"{VARIADIC}: split_lengths must be a 1D tensor of an integer type (T2); "
            f"got {graph.lengths_dtype}",
        )
    lengths = list(request.integers)
    outcome = outcome_of(inferred_lengths, axis, lengths, request.shape[axis], VARIADIC, "split_lengths")
    if graph.axis_dtype == graph.lengths_dtype or isinstance(outcome, Rejection):
        return SpecAnswer.of(outcome)  # a rejection either way is no ambiguity
    mismatch = Rejection(
        "type-mismatch",
        f"{VARIADIC}: axis and split_lengths share the type variable T2; got {graph.axis_dtype} and "
        f"{graph.lengths_dtype}",
    )
    return SpecAnswer(
        (Reading(mismatch, "T2 binds one type"), Reading(outcome, "T2 is any integer type per input")),
        ambiguity=(
            "the text types axis and split_lengths both as T2 ('any integer type'); it does not say "
            "whether one type variable forces the two inputs to the same type"
        ),
    )
