"""Keras 3's ``keras.ops.split``, from its API page (docs/specs.md: ``keras-keras.ops.split``).

The page states: an integer N gives N equal sections along ``axis`` (so N must divide the
dimension: implied by "equal"), a 1-D array of *sorted* integers gives the indices to split at,
and the axis defaults to 0. Its note that a split need not divide evenly on the Torch backend is a
documented backend difference, not a second rule: the reference keeps "equal sections" (Keras
3.15's torch backend refuses an uneven count anyway, docs/specs.md).

Where the page is silent (an index past the end, a negative index) the reference reads NumPy's
``numpy.split`` text, which the ``keras.ops`` numpy namespace mirrors (our reading). Unsorted
indices break the page's own precondition and it says nothing of what they give: an ambiguous
point with two readings (an error, or NumPy's empty pieces).
"""

from __future__ import annotations

import itertools

from conformance.oracle.reference.answer import Pieces, Reading, Rejection, SpecAnswer, SplitRequest
from conformance.oracle.reference.library_ops import sections_or_indices

SPEC = "keras.ops.split"

#: Why unsorted indices are an open point (docs/specs.md, "Ambiguous points").
UNSORTED_AMBIGUITY = (
    "the keras.ops.split page asks for a 1-D array of sorted integers and does not say what unsorted "
    "ones give: an error, or NumPy's pieces (an empty piece where an index goes back)"
)


def split(request: SplitRequest) -> SpecAnswer | Pieces:
    """keras.ops.split: N equal sections, or sorted split indices read as NumPy reads them."""
    pieces = sections_or_indices(request, SPEC, must_divide=True)
    if request.form.kind == "indices" and not _sorted(request.form.values):
        indices = list(request.form.values)
        refused = Rejection("indices-sorted", f"{SPEC}: the indices must be sorted; got {indices}")
        return SpecAnswer(
            (Reading(refused, "sorted indices required"), Reading(pieces, "NumPy's slices")),
            ambiguity=UNSORTED_AMBIGUITY,
        )
    return pieces


def _sorted(indices: tuple[int, ...]) -> bool:
    """Sorted as written: the page speaks of the integers, not of where they land once negative
    ones count from the end."""
    return all(first <= second for first, second in itertools.pairwise(indices))
