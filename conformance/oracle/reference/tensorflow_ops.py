"""TensorFlow's ``tf.split`` and ``tf.experimental.numpy.split``, from their API pages
(docs/specs.md: ``tensorflow-tf.split``, ``tensorflow-tf.experimental.numpy.split``).

``tf.split`` is two raw ops behind one function: an integer is raw ``Split`` (``num_split`` of at
least 1, dividing the axis), a list is raw ``SplitV`` (sizes that sum to the axis, one ``-1``
inferred, typed int8, int32 or int64). Both take an axis in ``[-rank, rank)``, 0 by default. The
sizes are judged as the integers the case states: a backend that sums them in their own narrow
type (int8 sizes whose sum wraps to the dimension) departs from the text, which asks for the sum.

TensorFlow's NumPy page says only that its ``split`` is the NumPy function and points to NumPy's
page, so it is judged by NumPy's text, as ``numpy.split`` is.
"""

from __future__ import annotations

from conformance.oracle.reference.answer import Pieces, SplitRequest
from conformance.oracle.reference.library_ops import sections_or_indices
from conformance.oracle.reference.rules import RuleViolation, axis_and_dim, even_split, inferred_lengths

TF_SPLIT = "tf.split"
TNP_SPLIT = "tf.experimental.numpy.split"
#: The element types raw SplitV's ``Tlen`` lists for ``size_splits``.
SIZE_TYPES = ("int8", "int32", "int64")


def split(request: SplitRequest) -> Pieces:
    """tf.split: ``num_or_size_splits`` a count (raw Split) or sizes (raw SplitV)."""
    axis, dim = axis_and_dim(request, TF_SPLIT)
    if request.form.kind == "lengths":
        return _sizes(axis, request.integers, dim, request.graph.lengths_dtype)
    return even_split(axis, dim, request.integer, TF_SPLIT, "num_split")


def _sizes(axis: int, sizes: tuple[int, ...], dim: int, size_type: str) -> Pieces:
    if size_type not in SIZE_TYPES:
        raise RuleViolation(
            "lengths-type",
            f"{TF_SPLIT}: size_splits must be one of {', '.join(SIZE_TYPES)} (SplitV Tlen); got {size_type}",
        )
    if not sizes:
        raise RuleViolation(
            "num-split-positive",
            f"{TF_SPLIT}: SplitV's num_split (the number of sizes) is an int >= 1; got 0",
        )
    return inferred_lengths(axis, sizes, dim, TF_SPLIT, "size_splits")


def numpy_split(request: SplitRequest) -> Pieces:
    """tf.experimental.numpy.split: NumPy's numpy.split, which its page refers to."""
    return sections_or_indices(request, TNP_SPLIT, must_divide=True)
