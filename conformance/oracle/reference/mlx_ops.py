"""MLX's ``mlx.core.split``, from its API page (docs/specs.md: ``mlx-mlx.core.split``).

The page does not present the function as NumPy's, so it is judged by its own text: an integer
splits the axis into that many equal sections and is an error where that is not possible (a count
below 1, or one that does not divide the axis), and a list gives the split points, making one more
array than it has points. The page does not say how a point that is negative, past the end or
smaller than the one before cuts; the reference reads the points as slice bounds, as NumPy's
``numpy.split`` does (our reading, recorded in docs/specs.md): every such point still gives its
``len + 1`` arrays, which is all the page promises.
"""

from __future__ import annotations

from conformance.oracle.reference.answer import Pieces, SplitRequest
from conformance.oracle.reference.library_ops import sections_or_indices

MLX_SPLIT = "mlx.core.split"


def split(request: SplitRequest) -> Pieces:
    """mlx.core.split: ``indices_or_sections`` a count that divides the axis, or split points."""
    return sections_or_indices(request, MLX_SPLIT, must_divide=True)
