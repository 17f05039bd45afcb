"""What the reference answers: the pieces a valid request yields, or the rule that rejects it.

It decides on shapes alone (Split's validity never depends on element values) and returns piece
bounds, not arrays, so one answer judges any fill; :meth:`Pieces.take` cuts the data.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import numpy as np

from conformance.corpus.case import Case, CaseRun, Form, GraphSpec
from conformance.oracle.slicing.window import Window


@dataclass(frozen=True)
class SplitRequest:
    """Everything the reference looks at: the data's shape and type and the split asked for."""

    shape: tuple[int, ...]
    dtype: str
    axis: int | None
    form: Form
    graph: GraphSpec = field(default_factory=GraphSpec)

    @classmethod
    def of(cls, case: Case) -> SplitRequest:
        """The case's own request (its first run)."""
        return cls.of_run(case, case.first_run)

    @classmethod
    def of_run(cls, case: Case, run: CaseRun) -> SplitRequest:
        """One run's request on the model the case builds (the graph is the case's)."""
        return cls(run.data.shape, run.data.dtype, run.axis, run.form, case.graph)

    @property
    def integer(self) -> int:
        """The value of a ``parts`` or ``size`` request: a piece count or size."""
        assert isinstance(self.form.value, int)
        return self.form.value

    @property
    def integers(self) -> tuple[int, ...]:
        """The value of a ``lengths`` or ``indices`` request: piece lengths or split points."""
        assert isinstance(self.form.value, tuple)
        return self.form.value


@dataclass(frozen=True)
class Pieces:
    """An accepted split: the normalized axis and each output's [start, stop) along it. ``squeeze``:
    pieces of length 1 whose axis is dropped (ONNX SplitToSequence, ``keepdims=0``, no ``split``)."""

    axis: int
    bounds: tuple[tuple[int, int], ...]
    squeeze: bool = False

    @classmethod
    def from_lengths(cls, axis: int, lengths: Sequence[int], *, squeeze: bool = False) -> Pieces:
        """Consecutive pieces of the given lengths, the first starting at offset 0."""
        return cls(axis, tuple(itertools.pairwise((0, *itertools.accumulate(lengths)))), squeeze)

    @property
    def lengths(self) -> tuple[int, ...]:
        return tuple(stop - start for start, stop in self.bounds)

    def shapes(self, shape: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
        """Output shapes: the input shape with the axis dimension replaced by each length (or
        removed, for squeezed pieces)."""
        kept: tuple[int, ...] = ()
        return tuple(
            (*shape[: self.axis], *(kept if self.squeeze else (length,)), *shape[self.axis + 1 :])
            for length in self.lengths
        )

    def take(self, data: np.ndarray) -> tuple[np.ndarray, ...]:
        """The outputs, cut from ``data`` by explicit offsets: views, since a copy of a multi-GiB
        input (the ``large`` cases) costs seconds and nothing keeps them."""
        lead: tuple[Any, ...] = (slice(None),) * self.axis
        if self.squeeze:  # pieces of length 1: an index drops the axis (``...`` keeps 0-d arrays arrays)
            return tuple(data[(*lead, start, Ellipsis)] for start, _ in self.bounds)
        return tuple(data[(*lead, slice(start, stop))] for start, stop in self.bounds)


@dataclass(frozen=True)
class Rejection:
    """A request the spec says must be refused: a stable rule id and a sentence citing the spec."""

    rule: str
    reason: str


SpecOutcome: TypeAlias = Pieces | Window | Rejection


@dataclass(frozen=True)
class Reading:
    """One way of reading the spec, and what it gives."""

    outcome: SpecOutcome
    label: str = "spec"


@dataclass(frozen=True)
class SpecAnswer:
    """The reference's answer: one reading, or several when the spec admits more than one, with
    ``ambiguity``, the reason the text allows them."""

    readings: tuple[Reading, ...]
    ambiguity: str | None = None

    @classmethod
    def of(cls, outcome: SpecOutcome) -> SpecAnswer:
        return cls((Reading(outcome),))

    @classmethod
    def empty_dimension(cls, axis: int, ambiguity: str) -> SpecAnswer:
        """The two readings of a piece size on an empty dimension, which the texts leave open."""
        return cls(
            (Reading(Pieces(axis, ()), "no pieces"), Reading(Pieces(axis, ((0, 0),)), "one empty piece")),
            ambiguity=ambiguity,
        )

    @classmethod
    def wrap(cls, answer: SpecAnswer | SpecOutcome) -> SpecAnswer:
        """An answer from what an op's rules return: a plain outcome, or an answer already."""
        return answer if isinstance(answer, SpecAnswer) else cls.of(answer)

    @property
    def ambiguous(self) -> bool:
        return self.ambiguity is not None

    @property
    def outcome(self) -> SpecOutcome:
        """The first reading's outcome: the only one unless the answer is ambiguous."""
        return self.readings[0].outcome
