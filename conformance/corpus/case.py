"""The case model: one scenario from a YAML case file, resolved and immutable.

These dataclasses are what the loader produces and what the reference, the executor and the
adapters consume. They mirror the case format (docs/case-format.md) one to one, so a case can always be
written back as the YAML that produced it (reproducers and reports rely on that).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal, TypeAlias

FormKind: TypeAlias = Literal["lengths", "parts", "size", "indices"]
FORM_KINDS: tuple[FormKind, ...] = ("lengths", "parts", "size", "indices")

FillKind: TypeAlias = Literal["arange", "random", "special", "values"]

#: Tags with a fixed meaning; cases may carry others.
WELL_KNOWN_TAGS = ("doc-example", "edge", "invalid", "dtype", "dynamic", "ambiguous", "regression")


@dataclass(frozen=True)
class Location:
    """Where a case was written, so every message about it can point there."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Form:
    """How the split is requested: piece lengths, a piece count, a piece size or split points.

    ``value`` is an int for ``parts`` and ``size`` and a tuple of ints for ``lengths`` and
    ``indices``. Values are kept exactly as written, invalid ones included: rejecting them is the
    reference's job, not the loader's.
    """

    kind: FormKind
    value: int | tuple[int, ...]

    @property
    def values(self) -> tuple[int, ...]:
        """The value as a tuple, whatever the kind (a count or size gives one element)."""
        return self.value if isinstance(self.value, tuple) else (self.value,)

    def __str__(self) -> str:
        shown = list(self.value) if isinstance(self.value, tuple) else self.value
        return f"{self.kind}={shown}"


@dataclass(frozen=True)
class DataSpec:
    """The input tensor: its shape, element type and how its elements are chosen."""

    shape: tuple[int, ...]
    dtype: str
    fill: FillKind = "arange"
    seed: int = 0
    values: Any = None  # nested lists as written in the file, when fill == "values"


@dataclass(frozen=True)
class GraphSpec:
    """How a backend must build the model; each field is a contract of the case format.

    ``num_outputs`` exists for ONNX Split-18 alone, whose spec requires exactly one of the
    ``split`` input and the ``num_outputs`` attribute: ``both`` and ``neither`` build the two
    forbidden graphs so that the rule itself can be tested.
    """

    axis_dtype: str = "int64"
    axis_shape: Literal["scalar", "[1]"] = "scalar"
    lengths_dtype: str = "int64"
    inputs: Literal["constant", "runtime"] = "constant"
    data_shape: Literal["static", "dynamic"] = "static"
    num_outputs: Literal["auto", "both", "neither"] = "auto"

    def non_default(self) -> frozenset[str]:
        """Names of the options this case sets away from their defaults.

        An op that cannot express one of them is not applicable to the case.
        """
        default = GraphSpec()
        return frozenset(f.name for f in fields(self) if getattr(self, f.name) != getattr(default, f.name))

    def as_dict(self) -> dict[str, str]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class OutputExpect:
    """Facts a spec document states about one case's result; the reference must agree.

    ``error`` is True, or the id of the rule the reference must apply, when the case is to be
    rejected.
    """

    shapes: tuple[tuple[int, ...], ...] | None = None
    values: tuple[Any, ...] | None = None
    error: bool | str = False


@dataclass(frozen=True)
class Expect(OutputExpect):
    """Expectations for every targeted op, with per-op overrides in ``by_op``."""

    by_op: Mapping[str, OutputExpect] = field(default_factory=dict)

    def for_op(self, op: str) -> OutputExpect:
        """The expectation that applies to one op: its own entry, else the shared one."""
        return self.by_op.get(op, self)


@dataclass(frozen=True)
class Case:
    """One scenario. ``ops`` holds op ids or glob patterns as written; None means every op
    that can express the case (see :func:`conformance.corpus.catalogue.applicable_ops`)."""

    id: str
    title: str
    source: str
    data: DataSpec
    form: Form
    location: Location
    axis: int | None = None
    tags: tuple[str, ...] = ()
    ops: tuple[str, ...] | None = None
    graph: GraphSpec = GraphSpec()
    expect: Expect | None = None
    note: str | None = None
