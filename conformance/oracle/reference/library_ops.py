"""torch.split / tensor_split / chunk and numpy.split / array_split, from the PyTorch and NumPy API
documentation (the pages and statements relied on are listed in docs/specs.md).

One point the documentation leaves open gets an ambiguous answer rather than a guess: how many
pieces torch.split with an integer size gives for an empty dimension (none, or one empty piece).
torch.chunk of an empty dimension is not such a point: 0 is divisible by any count, and the
documentation gives divisible dimensions equal chunks, so it gives ``chunks`` empty pieces.
Where the pages say nothing at all (negative list entries, a zero count), docs/specs.md lists
the reading the reference takes.
"""

from __future__ import annotations

from conformance.oracle.reference.answer import Pieces, SpecAnswer, SplitRequest
from conformance.oracle.reference.rules import (
    RuleViolation,
    axis_and_dim,
    balanced_lengths,
    ceil_lengths,
    equal_lengths,
    exact_lengths,
    require_positive_count,
    slice_bounds,
)


def torch_split(request: SplitRequest) -> SpecAnswer | Pieces:
    spec = "torch.split"
    axis, dim = axis_and_dim(request, spec)
    if request.form.kind == "lengths":
        return exact_lengths(axis, request.integers, dim, spec)
    size = request.integer
    if size < 0 or (size == 0 and dim != 0):
        raise RuleViolation(
            "size-positive",
            f"{spec}: an integer split size must be positive (0 only on an empty dimension); got {size} "
            f"for a dimension of {dim}",
        )
    if dim == 0:
        return SpecAnswer.empty_dimension(
            axis, f"{spec} does not say how many chunks of size {size} an empty dimension gives"
        )
    return Pieces.from_lengths(axis, ceil_lengths(dim, size))


def torch_chunk(request: SplitRequest) -> Pieces:
    spec = "torch.chunk"
    axis, dim = axis_and_dim(request, spec)
    chunks = request.integer
    require_positive_count(chunks, "sections-positive", spec, "chunks")
    if dim == 0:
        return Pieces.from_lengths(axis, equal_lengths(0, chunks))
    piece = -(-dim // chunks)
    return Pieces.from_lengths(axis, ceil_lengths(dim, piece))


def sections_or_indices(request: SplitRequest, spec: str, *, must_divide: bool) -> Pieces:
    """NumPy's ``indices_or_sections``: a count of pieces (dividing the axis when ``must_divide``)
    or split points under Python's slice rules; the axis defaults to 0."""
    axis, _ = axis_and_dim(request, spec)
    return sections_or_indices_on(axis, request, spec, must_divide=must_divide)


def sections_or_indices_on(axis: int, request: SplitRequest, spec: str, *, must_divide: bool) -> Pieces:
    """:func:`sections_or_indices` on an axis already chosen (hsplit and its kin choose it by rank)."""
    dim = request.shape[axis]
    if request.form.kind == "indices":
        return slice_bounds(axis, request.integers, dim)
    sections = request.integer
    require_positive_count(sections, "sections-positive", spec, "the number of sections")
    if must_divide and dim % sections:
        raise RuleViolation(
            "sections-divide",
            f"{spec}: an integer number of sections must divide the axis evenly; {dim} into {sections}",
        )
    return Pieces.from_lengths(axis, balanced_lengths(dim, sections))


def torch_tensor_split(request: SplitRequest) -> Pieces:
    return sections_or_indices(request, "torch.tensor_split", must_divide=False)


def numpy_split(request: SplitRequest) -> Pieces:
    return sections_or_indices(request, "numpy.split", must_divide=True)


def numpy_array_split(request: SplitRequest) -> Pieces:
    return sections_or_indices(request, "numpy.array_split", must_divide=False)
