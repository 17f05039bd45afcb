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
#: The inputs ``graph.inputs`` can place one by one. Split: the axis, and the op's split-value
#: input (split lengths, ONNX ``split``, sections or indices where an op takes them as an input).
SPLIT_INPUTS: tuple[str, ...] = ("axis", "lengths")
#: Slice: the index inputs (ONNX Slice's starts, ends, axes, steps; tf.slice's sizes).
SLICE_INPUTS: tuple[str, ...] = ("starts", "ends", "axes", "steps", "sizes")
INPUT_NAMES: tuple[str, ...] = (*SPLIT_INPUTS, *SLICE_INPUTS)

#: The operator families and the case keys that make a case one of theirs (docs/families.md).
Family: TypeAlias = Literal["split", "slice"]
SliceForm: TypeAlias = Literal["bounds", "sizes", "strided"]
MASK_NAMES: tuple[str, ...] = ("begin", "end", "ellipsis", "new_axis", "shrink_axis")


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


@dataclass(frozen=True)
class Masks:
    """The strided-slice masks, each as the positions (of the index vectors) whose bit is set. A set
    ``begin`` or ``end`` bit means that bound is ignored and the fullest range taken, as both
    TensorFlow's and OpenVINO's documents define it."""

    begin: tuple[int, ...] = ()
    end: tuple[int, ...] = ()
    ellipsis: tuple[int, ...] = ()
    new_axis: tuple[int, ...] = ()
    shrink_axis: tuple[int, ...] = ()

    def bits(self, name: str) -> int:
        """The mask as the integer TensorFlow takes (bit i set for position i)."""
        return sum(1 << position for position in getattr(self, name))

    def vector(self, name: str, length: int) -> list[int]:
        """The mask as the 0/1 list OpenVINO takes, ``length`` long."""
        return [int(position in getattr(self, name)) for position in range(length)]

    def as_dict(self) -> dict[str, list[int]]:
        """The masks set, as the case file writes them."""
        return {name: list(getattr(self, name)) for name in MASK_NAMES if getattr(self, name)}


@dataclass(frozen=True)
class SliceArguments:
    """What a Slice-family case asks, as written (keys ``starts``, ``ends``, ``axes``, ``steps``,
    ``sizes``, ``masks``): an entry of ``starts`` or ``ends`` is None where the bound is omitted
    (``x[:e]``). Three forms, by the keys given: ``bounds`` (starts and ends), ``sizes`` (starts
    and sizes: tf.slice, torch.narrow), ``strided`` (masks, with full index vectors and no axes)."""

    starts: tuple[int | None, ...]
    ends: tuple[int | None, ...] | None = None
    axes: tuple[int, ...] | None = None
    steps: tuple[int, ...] | None = None
    sizes: tuple[int, ...] | None = None
    masks: Masks | None = None

    @property
    def form(self) -> SliceForm:
        if self.masks is not None:
            return "strided"
        return "sizes" if self.sizes is not None else "bounds"

    def as_dict(self) -> dict[str, object]:
        """The keys given, as the case file writes them."""
        plain: dict[str, object] = {}
        for name in SLICE_INPUTS:
            value = getattr(self, name)
            if value is not None:
                plain[name] = list(value)
        if self.masks is not None:
            plain["masks"] = self.masks.as_dict()
        return plain

    def __str__(self) -> str:
        return ", ".join(f"{key}={value}" for key, value in self.as_dict().items())


#: The request a task carries, by operator family: each family adds its own type here, so that
#: the task, the engine and the adapter contract stay as they are.
Request: TypeAlias = SplitArguments | SliceArguments


def family_of(arguments: Request) -> Family:
    """The family a request belongs to."""
    return "slice" if isinstance(arguments, SliceArguments) else "split"


def split_arguments(arguments: Request) -> SplitArguments:
    """The Split request of a Split-family case or run; any other family's is a caller's bug (a
    Split op is never applicable to it, see conformance.corpus.catalogue)."""
    if not isinstance(arguments, SplitArguments):
        raise TypeError(f"a {family_of(arguments)}-family request has no split axis or form")
    return arguments


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
    starts: Placement = "constant"
    ends: Placement = "constant"
    axes: Placement = "constant"
    steps: Placement = "constant"
    sizes: Placement = "constant"

    def runtime(self) -> frozenset[str]:
        """The inputs placed at run time."""
        return frozenset(name for name in INPUT_NAMES if getattr(self, name) == "runtime")

    def as_dict(self) -> dict[str, str]:
        """The inputs placed at run time, and the family's others (constant), as written."""
        names = SLICE_INPUTS if set(self.runtime()) & set(SLICE_INPUTS) else SPLIT_INPUTS
        return {name: getattr(self, name) for name in names}

    def __str__(self) -> str:
        return ", ".join(f"{name}: {value}" for name, value in self.as_dict().items())


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
    #: the integer type of a Slice op's index inputs (starts, ends, axes, steps, sizes)
    index_dtype: str = "int64"

    def runtime(self, name: str) -> bool:
        """Whether input ``name`` (one of INPUT_NAMES) is fed at run time, where the op has it."""
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


class SplitView:
    """A Split case's or run's axis and form, read through its request (see split_arguments)."""

    request: Request

    @property
    def axis(self) -> int | None:
        return split_arguments(self.request).axis

    @property
    def form(self) -> Form:
        return split_arguments(self.request).form


@dataclass(frozen=True)
class CaseRun(SplitView):
    """One further request on the model a case built and compiled once (the case's ``runs:``),
    resolved at load time; ``number`` counts from 2, the case's own request being run 1."""

    number: int
    data: DataSpec
    #: what this run asks of the op (its family's request): what its task carries
    request: Request
    location: Location
    #: the keys the run gives, as written (``shape``, ``axis``, ``lengths`` ...), for messages
    changes: tuple[str, ...] = ()

    def describe(self) -> str:
        """``run 2 (shape [3, 4], lengths [1, 2])``: how messages name the run."""
        given = self.request.as_dict() if isinstance(self.request, SliceArguments) else {}
        parts = []
        for key in self.changes:
            if key == "shape":
                parts.append(f"shape {list(self.data.shape)}")
            elif key == "axis":
                parts.append(f"axis {self.axis}")
            elif isinstance(self.request, SplitArguments) and key == self.form.kind:
                shown = list(self.form.value) if isinstance(self.form.value, tuple) else self.form.value
                parts.append(f"{key} {shown}")
            elif key in given:
                parts.append(f"{key} {given[key]}")
            elif key in ("fill", "values", "seed"):
                parts.append(f"{key}")
        return f"run {self.number}" + (f" ({', '.join(parts)})" if parts else "")


@dataclass(frozen=True)
class Case(SplitView):
    """One scenario. ``ops`` holds op ids or glob patterns as written; None means every op
    that can express the case (see :func:`conformance.corpus.catalogue.applicable_ops`)."""

    id: str
    title: str
    source: str
    data: DataSpec
    #: what the case asks of the op, as its family writes it (see Request)
    request: Request
    location: Location
    tags: tuple[str, ...] = ()
    ops: tuple[str, ...] | None = None
    graph: GraphSpec = GraphSpec()
    expect: Expect | None = None
    note: str | None = None
    #: further requests on the same compiled model (run 2, 3 ...); empty for most cases
    runs: tuple[CaseRun, ...] = ()

    @property
    def family(self) -> Family:
        return family_of(self.request)

    @property
    def kind(self) -> str:
        """The form of its request: Split's ``lengths``, ``parts`` ...; Slice's ``bounds``, ``sizes``,
        ``strided`` (what ``-k`` and ``conformance list --totals`` name)."""
        return self.request.form if isinstance(self.request, SliceArguments) else self.form.kind

    @property
    def first_run(self) -> CaseRun:
        """The case's own request, as run 1."""
        return CaseRun(1, self.data, self.request, self.location)

    @property
    def all_runs(self) -> tuple[CaseRun, ...]:
        """Every request the model is run with, the case's own first."""
        return (self.first_run, *self.runs)

    def runtime_changes(self) -> frozenset[str]:
        """The inputs some run gives new values (``axis``, ``lengths``, ``starts`` ...): an op must
        feed them at run time."""
        if isinstance(self.request, SliceArguments):
            return frozenset(key for run in self.runs for key in run.changes if key in SLICE_INPUTS)
        fed = {"axis": "axis", self.form.kind: "lengths"}  # the input each changed key is fed through
        return frozenset(fed[key] for run in self.runs for key in run.changes if key in fed)
