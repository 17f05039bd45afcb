"""TensorFlow.js's ``tf.split``, from its API page (docs/specs.md: ``tfjs-tf.split``).

``numOrSizeSplits`` is a number of pieces, which must divide the axis, or the size of every piece,
the sizes summing to the axis and one of them possibly ``-1`` for the size to infer. The page is
TF.js's own: it does not send the reader to TensorFlow's raw ops, so nothing of raw ``SplitV``
that the page does not state (its types for the sizes) applies.
"""

from __future__ import annotations

from conformance.oracle.reference.answer import Pieces, SplitRequest
from conformance.oracle.reference.rules import axis_and_dim, even_split, inferred_lengths

TFJS_SPLIT = "tf.split (TensorFlow.js)"
PARAMETER = "numOrSizeSplits"


def split(request: SplitRequest) -> Pieces:
    """tf.split of TF.js: a count that divides the axis, or sizes with at most one ``-1``."""
    axis, dim = axis_and_dim(request, TFJS_SPLIT)
    if request.form.kind == "lengths":
        return inferred_lengths(axis, request.integers, dim, TFJS_SPLIT, PARAMETER)
    return even_split(axis, dim, request.integer, TFJS_SPLIT, PARAMETER)
