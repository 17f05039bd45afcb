"""What the Slice reference reads: the data's shape and type, the request as the case writes it
(:class:`~conformance.corpus.case.SliceArguments`) and how the model is built."""

from __future__ import annotations

from dataclasses import dataclass, field

from conformance.corpus.case import GraphSpec, Masks, SliceArguments

__all__ = ["Masks", "SliceArguments", "SliceRequest"]


@dataclass(frozen=True)
class SliceRequest:
    """Everything the Slice reference looks at: the data's shape and type, the arguments, the graph."""

    shape: tuple[int, ...]
    dtype: str
    arguments: SliceArguments
    graph: GraphSpec = field(default_factory=GraphSpec)
