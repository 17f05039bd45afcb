"""What an accepted Slice-family request selects: per input dimension, the concrete indices
``start, start + step, ...`` strictly before ``stop`` in the step's direction, plus the axes a
strided slice inserts or removes.

Spans are stored in one canonical form (an empty span is ``(0, 0, 1)``, a span of one element has
step 1, and ``stop`` sits one step past the last index, ``-1`` for a backward span that reaches
index 0), so two readings that select the same elements compare equal. The module imports nothing
of the suite: the oracle's answer type names :class:`Window`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np

#: (start, stop, step) over concrete indices of one dimension
Span: TypeAlias = tuple[int, int, int]

EMPTY: Span = (0, 0, 1)


def span_of(start: int, step: int, count: int) -> Span:
    """The canonical span of ``count`` indices from ``start`` by ``step``."""
    if count <= 0:
        return EMPTY
    if count == 1:
        return (start, start + 1, 1)
    last = start + step * (count - 1)
    return (start, last + (1 if step > 0 else -1), step)


def span_length(span: Span) -> int:
    """How many indices ``start, start + step, ...`` lie strictly before ``stop``."""
    start, stop, step = span
    if step == 0:
        raise ValueError(f"a span has a non-zero step; got {span}")
    distance = stop - start if step > 0 else start - stop
    return max(0, -(-distance // abs(step)))


def full_span(dim: int) -> Span:
    """Every index of a dimension of ``dim`` elements, in order."""
    return span_of(0, 1, dim)


def compose(outer: Span, inner: Span) -> Span:
    """What slicing twice selects: ``inner`` indexes the positions 0, 1, ... of ``outer``'s indices."""
    count = span_length(inner)
    if count == 0:
        return EMPTY
    return span_of(outer[0] + outer[2] * inner[0], outer[2] * inner[2], count)


@dataclass(frozen=True)
class Window:
    """An accepted slice: ``spans`` one per input dimension; ``shrunk``: input dimensions removed
    from the output (their span holds exactly one index); ``new_axes``: output positions of
    inserted length-1 axes, ascending."""

    spans: tuple[Span, ...]
    shrunk: tuple[int, ...] = ()
    new_axes: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        canonical = tuple(span_of(span[0], span[2], span_length(span)) for span in self.spans)
        object.__setattr__(self, "spans", canonical)
        object.__setattr__(self, "shrunk", tuple(sorted(set(self.shrunk))))
        object.__setattr__(self, "new_axes", tuple(sorted(set(self.new_axes))))
        negative = [span for span in canonical if span[0] < 0 or span[1] < -1]  # stop -1: past index 0
        if negative:
            raise ValueError(f"a span selects concrete indices, 0 or more; {negative} reach below 0")
        wrong = [dim for dim in self.shrunk if not 0 <= dim < len(self.spans) or self.lengths[dim] != 1]
        if wrong:
            raise ValueError(f"a removed dimension keeps exactly one index; dimensions {wrong} do not")

    @classmethod
    def full(cls, shape: Sequence[int]) -> Window:
        """The whole input, unchanged."""
        return cls(tuple(full_span(dim) for dim in shape))

    @property
    def lengths(self) -> tuple[int, ...]:
        """The number of indices each input dimension keeps."""
        return tuple(span_length(span) for span in self.spans)

    def shapes(self, shape: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
        """The one output's shape: the kept lengths, with a 1 at each new axis."""
        if len(shape) != len(self.spans):
            raise ValueError(f"the window has {len(self.spans)} dimensions, the input shape is {shape}")
        out = [length for dim, length in enumerate(self.lengths) if dim not in self.shrunk]
        for position in self.new_axes:
            out.insert(position, 1)
        return (tuple(out),)

    def take(self, data: np.ndarray) -> tuple[np.ndarray, ...]:
        """The output, cut from ``data`` by basic indexing with the concrete bounds: a view, as
        :meth:`Pieces.take` gives, since a copy of a large input costs seconds."""
        if data.ndim != len(self.spans):
            raise ValueError(f"the window has {len(self.spans)} dimensions, the data has {data.ndim}")
        return (data[self.index()],)

    def index(self) -> tuple[Any, ...]:
        """The NumPy index tuple: an integer per removed dimension, a slice per kept one, None per
        new axis, and a trailing Ellipsis so that a result of rank 0 stays an array."""
        pending = list(range(len(self.spans)))
        items: list[Any] = []
        out_rank = len(self.spans) - len(self.shrunk) + len(self.new_axes)
        for position in range(out_rank):
            if position in self.new_axes:
                items.append(None)
                continue
            while pending[0] in self.shrunk:
                items.append(self.spans[pending.pop(0)][0])
            items.append(_slice(self.spans[pending.pop(0)]))
        items.extend(self.spans[dim][0] for dim in pending)  # only removed dimensions are left
        return (*items, Ellipsis)


def _slice(span: Span) -> slice:
    """A slice that selects exactly the span: a backward stop of -1 ("past index 0") must become
    None, since -1 in a slice means the last element."""
    start, stop, step = span
    return slice(start, None if stop < 0 else stop, step)
