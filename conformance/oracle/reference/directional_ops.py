"""hsplit, vsplit and dsplit of NumPy and PyTorch, from their API pages (docs/specs.md:
``numpy-numpy.hsplit``, ``pytorch-torch.hsplit`` and their vsplit/dsplit siblings).

These functions take no axis: each page names the axis it splits along, chosen by the data's rank,
and then defers to a general function for the request (NumPy's to ``numpy.split``, so an integer
must divide; PyTorch's to ``torch.tensor_split``, with the added rule that an integer must divide).

Where the pages differ they are taken at their word:
- NumPy's vsplit page says the split is along the first axis "regardless of the array dimension"
  and states no minimum rank, so 1-D data splits along axis 0 (NumPy's own function refuses it:
  a finding against NumPy's text, not a rule here); its dsplit page asks for 3 or more dims, and
  its hsplit page gives 1-D data axis 0 and every other rank axis 1.
- PyTorch's pages state the ranks: hsplit one or more dims, vsplit two or more, dsplit three or more.
A rank-0 tensor has no axis at all, so every one of them rejects it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from conformance.oracle.reference.answer import Pieces, SplitRequest
from conformance.oracle.reference.library_ops import sections_or_indices_on
from conformance.oracle.reference.rules import RuleViolation


@dataclass(frozen=True)
class Direction:
    """Which axis a function splits along for a given rank, and the least rank its page allows."""

    name: str
    min_rank: int
    axis_for_rank: Callable[[int], int]


HSPLIT = Direction("hsplit", 1, lambda rank: 0 if rank == 1 else 1)
VSPLIT = Direction("vsplit", 1, lambda rank: 0)
DSPLIT = Direction("dsplit", 3, lambda rank: 2)
DIRECTIONS = (HSPLIT, VSPLIT, DSPLIT)
#: PyTorch's pages state their own least ranks: vsplit needs two dims where NumPy's page asks for one.
TORCH_MIN_RANK = {"hsplit": 1, "vsplit": 2, "dsplit": 3}


def _axis(direction: Direction, rank: int, min_rank: int, spec: str) -> int:
    if rank < min_rank:
        raise RuleViolation(
            "data-rank",
            f"{spec} splits data of {min_rank} or more dimensions (along axis "
            f"{direction.axis_for_rank(min_rank)} at that rank); got rank {rank}",
        )
    return direction.axis_for_rank(rank)


def numpy_directional(direction: Direction, request: SplitRequest, spec: str | None = None) -> Pieces:
    """NumPy's hsplit/vsplit/dsplit: ``numpy.split`` (a count must divide) on the page's axis.
    ``spec`` names the function judged when another library claims NumPy's (jax.numpy)."""
    name = spec or f"numpy.{direction.name}"
    axis = _axis(direction, len(request.shape), direction.min_rank, name)
    return sections_or_indices_on(axis, request, name, must_divide=True)


def torch_directional(direction: Direction, request: SplitRequest) -> Pieces:
    """PyTorch's hsplit/vsplit/dsplit: ``torch.tensor_split`` on the page's axis, an integer dividing."""
    spec = f"torch.{direction.name}"
    axis = _axis(direction, len(request.shape), TORCH_MIN_RANK[direction.name], spec)
    return sections_or_indices_on(axis, request, spec, must_divide=True)
