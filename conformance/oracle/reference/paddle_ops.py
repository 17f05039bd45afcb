"""PaddlePaddle's split functions, from their API pages (docs/specs.md: ``paddle-paddle.split`` and
its siblings).

- ``paddle.split``: a count of equal pieces, or the sizes of the pieces with at most one ``-1``
  inferred from the rest; the list may not be longer than the dimension it splits.
- ``paddle.chunk``: a count of equal pieces (``paddle.split`` with an integer).
- ``paddle.tensor_split``: a count of pieces that need not divide (the first ``dim % n`` one longer),
  or split indices read as the slices ``x[:i0]``, ``x[i0:i1]`` ... the page writes them as.
- ``paddle.hsplit`` / ``vsplit`` / ``dsplit``: each page defines the function as ``paddle.tensor_split``
  on a fixed axis, so a count need not divide, unlike NumPy's namesakes (a difference the pages state).

Every page lists the data types it takes; the axis may be a Tensor of int32 or int64.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from conformance.oracle.reference.answer import Pieces, SplitRequest
from conformance.oracle.reference.directional_ops import DIRECTIONS, Direction
from conformance.oracle.reference.library_ops import sections_or_indices_on
from conformance.oracle.reference.rules import (
    RuleViolation,
    axis_and_dim,
    equal_lengths,
    inferred_lengths,
    require_positive_count,
)

#: The data types each page lists. The English tensor_split, hsplit, vsplit and dsplit pages leave out
#: int8, which the Chinese pages of the same functions list: read as a slip (docs/specs.md).
_SPLIT_TYPES = ("bool", "bfloat16", "float16", "float32", "float64", "uint8", "int8", "int32", "int64")
_CHUNK_TYPES = ("bool", "float16", "float32", "float64", "int32", "int64")
#: The axis may be a Tensor of one of these types (the split, tensor_split and chunk pages).
AXIS_TYPES = ("int32", "int64")
#: The least rank each page allows: tensor_split and hsplit more than 0 dims, vsplit more than 1,
#: dsplit more than 2.
MIN_RANK = {"tensor_split": 1, "hsplit": 1, "vsplit": 2, "dsplit": 3}


def _data_type(request: SplitRequest, spec: str, types: tuple[str, ...]) -> None:
    if request.dtype not in types:
        raise RuleViolation("data-type", f"{spec}: x must be one of {', '.join(types)}; got {request.dtype}")


def _axis(request: SplitRequest, spec: str) -> tuple[int, int]:
    """The axis (default 0; a Tensor of int32 or int64 when the graph types it), and its dimension."""
    if request.axis is not None and request.graph.axis_dtype not in AXIS_TYPES:
        raise RuleViolation(
            "axis-type",
            f"{spec}: an axis Tensor has data type {' or '.join(AXIS_TYPES)}; got {request.graph.axis_dtype}",
        )
    return axis_and_dim(request, spec)


def _rank(request: SplitRequest, spec: str, least: int) -> None:
    if len(request.shape) < least:
        raise RuleViolation(
            "data-rank",
            f"{spec}: x must have more than {least - 1} dimensions; got rank {len(request.shape)}",
        )


def _equal(axis: int, dim: int, count: int, spec: str, name: str) -> Pieces:
    """``count`` sub-Tensors of equal size: at least one, and dividing the dimension."""
    require_positive_count(count, "sections-positive", spec, name)
    if dim % count:
        raise RuleViolation(
            "sections-divide", f"{spec}: {name} equal pieces must divide the dimension; {dim} into {count}"
        )
    return Pieces.from_lengths(axis, equal_lengths(dim // count, count))


def split(request: SplitRequest) -> Pieces:
    """paddle.split: ``num_or_sections`` a count of equal pieces, or sizes with at most one ``-1``."""
    spec = "paddle.split"
    _data_type(request, spec, _SPLIT_TYPES)
    axis, dim = _axis(request, spec)
    if request.form.kind == "parts":
        return _equal(axis, dim, request.integer, spec, "num_or_sections")
    sizes = request.integers
    if len(sizes) > dim:
        raise RuleViolation(
            "lengths-count",
            f"{spec}: the list may not be longer than the dimension it splits; {len(sizes)} sizes for {dim}",
        )
    return inferred_lengths(axis, sizes, dim, spec, "num_or_sections")


def chunk(request: SplitRequest) -> Pieces:
    """paddle.chunk: ``chunks`` sub-Tensors of equal size."""
    spec = "paddle.chunk"
    _data_type(request, spec, _CHUNK_TYPES)
    axis, dim = _axis(request, spec)
    return _equal(axis, dim, request.integer, spec, "chunks")


def tensor_split(request: SplitRequest) -> Pieces:
    """paddle.tensor_split: a count that need not divide, or indices read as slices."""
    spec = "paddle.tensor_split"
    _data_type(request, spec, _SPLIT_TYPES)
    _rank(request, spec, MIN_RANK["tensor_split"])
    axis, _ = _axis(request, spec)
    return sections_or_indices_on(axis, request, spec, must_divide=False)


def directional(direction: Direction, request: SplitRequest) -> Pieces:
    """paddle.hsplit/vsplit/dsplit: paddle.tensor_split on the axis the page names for the rank."""
    spec = f"paddle.{direction.name}"
    _data_type(request, spec, _SPLIT_TYPES)
    _rank(request, spec, MIN_RANK[direction.name])
    axis = direction.axis_for_rank(len(request.shape))
    return sections_or_indices_on(axis, request, spec, must_divide=False)


RULES: dict[str, Callable[[SplitRequest], Pieces]] = {
    "paddle.split": split,
    "paddle.tensor_split": tensor_split,
    "paddle.chunk": chunk,
    **{f"paddle.{d.name}": partial(directional, d) for d in DIRECTIONS},
}
