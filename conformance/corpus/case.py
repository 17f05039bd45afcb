"""The case model: one scenario from a YAML case file, resolved and immutable.

The dataclasses mirror the case format (docs/case-format.md) one to one, so a case can always be
written back as the YAML that produced it (reproducers and reports rely on that).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal, TypeAlias

FormKind: TypeAlias = Literal["lengths", "parts", "size", "indices"]
FORM_KINDS: tuple[FormKind, ...] = ("lengths", "parts", "size", "indices")

FillKind: TypeAlias = Literal["arange", "random", "special", "values"]

#: Where an input's value lives: baked into the model, or fed when the model runs.
Placement: TypeAlias = Literal["constant", "runtime"]
#: The inputs ``graph.inputs`` can place one by one: the axis, and the op's split-value input
#: (split lengths, ONNX ``split``, sections or indices where an op takes them as an input).
INPUT_NAMES: tuple[str, ...] = ("axis", "lengths")


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
    ``value`` is an int for ``parts`` and ``size``, a tuple for ``lengths`` and ``indices``."""

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
class SplitArguments:
    """What a Split-family case asks of the op, as written: the axis (None when the case leaves it
    to the op's default) and the form. An adapter's task carries it as ``task.request``."""

    axis: int | None
    form: Form


#: The request a task carries, by operator family: each family adds its own type here, so that
#: the task, the engine and the adapter contract stay as they are.
Request: TypeAlias = SplitArguments


@dataclass(frozen=True)
class DataSpec:
    """The input tensor: its shape, element type and how its elements are chosen."""

    shape: tuple[int, ...]
    dtype: str
    fill: FillKind = "arange"
    seed: int = 0
    values: Any = None  # nested lists as written, for fill: values


@dataclass(frozen=True)
class InputPlacement:
    """``graph.inputs`` given as a mapping: each input constant or runtime on its own. It asks more
    than the word ``runtime``: ``{axis: runtime}`` promises an axis *input*, which ONNX lacks."""

    axis: Placement = "constant"
    lengths: Placement = "constant"

    def runtime(self) -> frozenset[str]:
        """The inputs placed at run time."""
        return frozenset(name for name in INPUT_NAMES if getattr(self, name) == "runtime")

    def as_dict(self) -> dict[str, str]:
        return {name: getattr(self, name) for name in INPUT_NAMES}

    def __str__(self) -> str:
        return ", ".join(f"{name}: {getattr(self, name)}" for name in INPUT_NAMES)


@dataclass(frozen=True)
class GraphSpec:
    """How a backend must build the model; each field is a contract of the case format.

    ``num_outputs``: ``both`` and ``neither`` build Split-18's two forbidden graphs (it requires
    exactly one of ``split`` and ``num_outputs``). ``declared_outputs`` makes an ONNX node declare
    that many outputs whatever the request implies (malformed on purpose)."""

    axis_dtype: str = "int64"
    axis_shape: Literal["scalar", "[1]"] = "scalar"
    lengths_dtype: str = "int64"
    inputs: Placement | InputPlacement = "constant"
    data_shape: Literal["static", "dynamic"] = "static"
    num_outputs: Literal["auto", "both", "neither"] = "auto"
    declared_outputs: int | None = None
    #: ONNX SplitToSequence's ``keepdims`` attribute (it matters only without a ``split`` input)
    keepdims: Literal[0, 1] = 1
    #: ``omitted`` builds a SplitToSequence node without its optional ``split`` input: the op then
    #: reads a split of 1, which the case states as ``size: 1``
    split_input: Literal["given", "omitted"] = "given"

    def runtime(self, name: str) -> bool:
        """Whether input ``name`` (``axis`` or ``lengths``) is fed at run time, where the op has it."""
        if isinstance(self.inputs, InputPlacement):
            return name in self.inputs.runtime()
        return self.inputs == "runtime"

    def non_default(self) -> frozenset[str]:
        """Names of the options set away from their defaults (an op must express each of them)."""
        default = GraphSpec()
        return frozenset(f.name for f in fields(self) if getattr(self, f.name) != getattr(default, f.name))

    def as_dict(self) -> dict[str, Any]:
        """The options as plain data (the results file's ``params.graph``)."""
        plain = {f.name: getattr(self, f.name) for f in fields(self)}
        if isinstance(self.inputs, InputPlacement):
            plain["inputs"] = self.inputs.as_dict()
        return plain


@dataclass(frozen=True)
class OutputExpect:
    """Facts a spec document states about one case's result; the reference must agree.
    ``error`` is True, or the id of the rule that rejects the case."""

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
class CaseRun:
    """One further request on the model a case built and compiled once (the case's ``runs:``),
    resolved at load time; ``number`` counts from 2, the case's own request being run 1."""

    number: int
    data: DataSpec
    axis: int | None
    form: Form
    location: Location
    #: the keys the run gives, as written (``shape``, ``axis``, ``lengths`` ...), for messages
    changes: tuple[str, ...] = ()

    @property
    def request(self) -> Request:
        """What this run asks of the op: what its task carries."""
        return SplitArguments(self.axis, self.form)

    def describe(self) -> str:
        """``run 2 (shape [3, 4], lengths [1, 2])``: how messages name the run."""
        parts = []
        for key in self.changes:
            if key == "shape":
                parts.append(f"shape {list(self.data.shape)}")
            elif key == "axis":
                parts.append(f"axis {self.axis}")
            elif key == self.form.kind:
                shown = list(self.form.value) if isinstance(self.form.value, tuple) else self.form.value
                parts.append(f"{key} {shown}")
            elif key in ("fill", "values", "seed"):
                parts.append(f"{key}")
        return f"run {self.number}" + (f" ({', '.join(parts)})" if parts else "")


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
    #: further requests on the same compiled model (run 2, 3 ...); empty for most cases
    runs: tuple[CaseRun, ...] = ()

    @property
    def first_run(self) -> CaseRun:
        """The case's own request, as run 1."""
        return CaseRun(1, self.data, self.axis, self.form, self.location)

    @property
    def all_runs(self) -> tuple[CaseRun, ...]:
        """Every request the model is run with, the case's own first."""
        return (self.first_run, *self.runs)

    def runtime_changes(self) -> frozenset[str]:
        """The inputs some run gives new values (``axis``, ``lengths``): an op must feed them at run time."""
        fed = {"axis": "axis", self.form.kind: "lengths"}  # the input each changed key is fed through
        return frozenset(fed[key] for run in self.runs for key in run.changes if key in fed)
