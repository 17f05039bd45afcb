"""ONNX SplitToSequence-11, from the ONNX operator documentation (docs/specs.md:
``onnx-SplitToSequence``, section SplitToSequence-11).

The op's one output is a sequence of tensors; the reference answers with its elements in order.
Its rules, as the text gives them:
- ``split`` is optional: absent, it is read as a scalar 1 (``graph.split_input: omitted``, a case
  stating ``size: 1``), and only then does ``keepdims=0`` drop the split axis from every piece;
- a scalar ``split`` cuts pieces of that size with a smaller last one; a 1-D ``split`` gives the
  length of every piece, and its entries must sum to the dimension;
- ``split`` is int32 or int64, the data any type but bfloat16 (which version 24 adds); the axis
  lies in [-rank, rank-1].
Two points read both ways (docs/specs.md, "Ambiguous points"): a zero in a 1-D ``split`` (the
summary asks for positive numbers, the input's description for values >= 0; negative values and
a scalar 0 break both), and what a scalar ``split`` gives on an empty dimension (no piece, or one
empty piece), as for torch.split.
"""

from __future__ import annotations

from conformance import dtypes
from conformance.oracle.reference.answer import (
    Pieces,
    Reading,
    Rejection,
    SpecAnswer,
    SpecOutcome,
    SplitRequest,
)
from conformance.oracle.reference.rules import RuleViolation, axis_and_dim, ceil_lengths

SPEC = "ONNX SplitToSequence-11"
#: The element types the text's constraint ``I`` lists for ``split``.
SPLIT_TYPES = ("int32", "int64")
#: The data types the version-11 constraint ``T`` lists: every type but bfloat16 (added by version 24).
DATA_TYPES = frozenset(dtypes.ALL) - {"bfloat16"}

ZERO_LENGTH_AMBIGUITY = (
    "the SplitToSequence summary asks for positive numbers in split, while its description of the split "
    "input allows every value >= 0; a zero in a 1-D split is refused by one and an empty piece by the other"
)
EMPTY_DIMENSION_AMBIGUITY = (
    "SplitToSequence cuts 'chunks all of size split if possible' with a smaller last one, and does not "
    "say whether an empty dimension gives no chunk or one empty chunk"
)


def split_to_sequence(request: SplitRequest) -> SpecAnswer | Pieces:
    """The tensors of the output sequence, in order."""
    if request.dtype not in DATA_TYPES:
        raise RuleViolation(
            "data-type", f"{SPEC}: T lists every tensor type but bfloat16; got tensor({request.dtype})"
        )
    axis, dim = axis_and_dim(request, SPEC)
    omitted = request.graph.split_input == "omitted"
    if not omitted and request.graph.lengths_dtype not in SPLIT_TYPES:
        raise RuleViolation(
            "lengths-type",
            f"{SPEC}: split is constrained to {' or '.join(SPLIT_TYPES)}; got {request.graph.lengths_dtype}",
        )
    values = request.form.values
    if any(value < 0 for value in values) or (request.form.kind == "size" and values[0] == 0):
        raise RuleViolation(
            "lengths-positive", f"{SPEC}: split must hold positive numbers only; got {list(values)}"
        )
    if request.form.kind == "lengths":
        return _lengths(axis, values, dim)
    squeeze = omitted and request.graph.keepdims == 0
    if dim == 0 and squeeze:  # an empty piece has no axis of length 1 to drop: no piece (our reading)
        return Pieces(axis, (), squeeze)
    if dim == 0:
        return SpecAnswer.empty_dimension(axis, EMPTY_DIMENSION_AMBIGUITY)
    return Pieces.from_lengths(axis, ceil_lengths(dim, values[0]), squeeze=squeeze)


def _lengths(axis: int, values: tuple[int, ...], dim: int) -> SpecAnswer | Pieces:
    """A 1-D split: one piece per entry, the entries summing to the dimension; a zero entry reads
    both ways (see ZERO_LENGTH_AMBIGUITY)."""
    total = sum(values)
    summed: SpecOutcome = Pieces.from_lengths(axis, values)
    if total != dim:
        summed = Rejection(
            "lengths-sum",
            f"{SPEC}: the entries of a 1-D split must sum to the dimension along the axis; "
            f"{list(values)} sums to {total}, the dimension is {dim}",
        )
    if 0 not in values:
        return SpecAnswer.of(summed)
    refused = Rejection(
        "lengths-positive", f"{SPEC}: split must hold positive numbers only; got {list(values)}"
    )
    return SpecAnswer(
        (Reading(refused, "positive lengths only"), Reading(summed, "lengths >= 0")),
        ambiguity=ZERO_LENGTH_AMBIGUITY,
    )
