"""JAX's split functions (docs/specs.md: ``jax-jax.numpy.split`` and its siblings, ``jax-jax.lax.split``).

``jax.numpy``'s pages present each function as JAX's implementation of the NumPy function of the
same name, so each is judged by NumPy's text (:mod:`numpy_namesakes`), as
tf.experimental.numpy.split is.

``jax.lax.split`` is JAX's own primitive: ``sizes`` (no ``-1`` to infer) summing to the dimension.
Its page says nothing of negative axes; docs/specs.md lists that as an ambiguous point.
"""

from __future__ import annotations

from conformance.oracle.reference.answer import Pieces, Reading, Rejection, SpecAnswer, SplitRequest
from conformance.oracle.reference.rules import exact_lengths, normalize_axis, outcome_of

LAX_SPLIT = "jax.lax.split"

#: Why a negative axis is an open point for jax.lax.split (docs/specs.md, "Ambiguous points").
LAX_NEGATIVE_AXIS_AMBIGUITY = (
    "the jax.lax.split page calls axis 'the axis along which to split' and neither defines nor forbids "
    "negative values, where the jax.numpy pages count them from the back as NumPy does"
)


def lax_split(request: SplitRequest) -> SpecAnswer | Pieces:
    """jax.lax.split: ``sizes`` of the pieces, each a size (>= 0), summing to the dimension."""
    axis_value = 0 if request.axis is None else request.axis
    rank = len(request.shape)
    if axis_value < 0 and -rank <= axis_value:
        return _negative_axis(request, axis_value)
    axis = normalize_axis(axis_value, rank, LAX_SPLIT, negative=False)
    return _sizes(axis, request)


def _sizes(axis: int, request: SplitRequest) -> Pieces:
    return exact_lengths(axis, request.integers, request.shape[axis], LAX_SPLIT)


def _negative_axis(request: SplitRequest, axis_value: int) -> SpecAnswer:
    """A negative axis in range: refused by one reading, counted from the back by the other."""
    refused = Rejection("axis-negative", f"{LAX_SPLIT} defines no negative axis; got {axis_value}")
    counted = outcome_of(_sizes, axis_value + len(request.shape), request)
    return SpecAnswer(
        (Reading(refused, "no negative axis"), Reading(counted, "counted from the back")),
        ambiguity=LAX_NEGATIVE_AXIS_AMBIGUITY,
    )
