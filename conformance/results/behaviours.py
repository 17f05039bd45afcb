"""The behaviours: what a request exercises, read from the request itself (Split's here, Slice's
in :mod:`.slice_behaviours`).

The compatibility page and the report's ``behaviour`` filter group requests by behaviour ("a count
that does not divide"), so a reader moving a model between frameworks finds every request that
answers one question in one row; a request usually falls in several. :data:`BEHAVIOURS` is the
table (docs/compat.md prints it).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from conformance.corpus.case import GraphSpec
from conformance.corpus.catalogue import OPS
from conformance.oracle.reference.directional_ops import DSPLIT, HSPLIT, VSPLIT
from conformance.results import slice_behaviours
from conformance.results.records import FormParams, ParamsRecord

INT32_MAX = 2**31 - 1
#: The data's element types by family, a row each (float32, nearly every request's, has none).
DTYPE_FAMILIES: dict[str, tuple[str, ...]] = {
    "bool": ("bool",),
    "signed": ("int8", "int16", "int32", "int64"),
    "unsigned": ("uint8", "uint16", "uint32", "uint64"),
    "half": ("float16", "bfloat16"),
    "double": ("float64",),
    "complex": ("complex64", "complex128"),
    "string": ("string",),
}
_DIRECTIONS = {"hsplit": HSPLIT, "vsplit": VSPLIT, "dsplit": DSPLIT}
_GRAPH_DEFAULTS: dict[str, Any] = GraphSpec().as_dict()


@dataclass(frozen=True)
class Request:
    """What one op is asked, as the behaviour tests read it."""

    kind: str
    value: tuple[int, ...]  # the form's value; a one-element tuple for parts and size
    shape: tuple[int, ...]
    axis: int | None  # as written; None: the op's default
    dim: int | None  # the split dimension; None when the axis is outside the data's rank
    dtype: str
    tags: frozenset[str]
    graph: Mapping[str, Any]  # the graph options the case sets away from their defaults
    #: a Slice request as its case writes it (None: a Split request)
    slice: Mapping[str, Any] | None = None

    @property
    def count(self) -> int:
        """The single value of a parts or size request."""
        return self.value[0] if self.value else 0

    def minus_ones(self) -> int:
        return sum(1 for length in self.value if length == -1)

    def rest(self) -> int:
        """What a single -1 would take: the dim less the other lengths."""
        return (self.dim or 0) - sum(length for length in self.value if length != -1)

    def points(self) -> list[int]:
        """Split points as Python's slices place them: negatives from the end, clamped to the dim."""
        dim = self.dim or 0
        return [min(max(point + dim if point < 0 else point, 0), dim) for point in self.value]


@dataclass(frozen=True)
class Behaviour:
    """A row of the compatibility page."""

    slug: str
    title: str
    group: str
    test: Callable[[Request], bool]
    #: the cases shown as its examples when the results hold them, before the plainest others
    prefer: tuple[str, ...] = ()
    #: a request in this row is in no other: a malformed graph says nothing of the request's
    #: behaviour, and a backend's departure on it would read as one on uneven counts
    alone: bool = False


def _parts(test: Callable[[int, int], bool]) -> Callable[[Request], bool]:
    """A test of a piece count ``k`` on a dimension ``n``."""
    return lambda r: r.kind == "parts" and r.dim is not None and test(r.count, r.dim)


def _sizes(test: Callable[[int, int], bool]) -> Callable[[Request], bool]:
    """A test of a piece size ``s`` on a dimension ``n``."""
    return lambda r: r.kind == "size" and r.dim is not None and test(r.count, r.dim)


def _lengths(test: Callable[[Request, int], bool]) -> Callable[[Request], bool]:
    return lambda r: r.kind == "lengths" and r.dim is not None and test(r, r.dim)


def _points(test: Callable[[Request, int], bool]) -> Callable[[Request], bool]:
    return lambda r: r.kind == "indices" and r.dim is not None and test(r, r.dim)


def _no_negative(r: Request) -> bool:
    return min(r.value, default=0) >= 0


def _exact(r: Request, n: int) -> bool:
    return _no_negative(r) and bool(r.value) and 0 not in r.value and sum(r.value) == n


def _zero_piece(r: Request, n: int) -> bool:
    return _no_negative(r) and 0 in r.value and sum(r.value) == n


def _one_minus_one(r: Request) -> bool:
    return r.minus_ones() == 1 and min(r.value) == -1


def _sorted_points(r: Request, n: int) -> bool:
    points = r.points()
    return bool(points) and all(0 <= p <= n for p in r.value) and points == sorted(set(points))


def _unsorted(r: Request, n: int) -> bool:
    points = r.points()
    return any(later < earlier for earlier, later in itertools.pairwise(points))


def _dtype(family: str) -> Callable[[Request], bool]:
    return lambda r: r.dtype in DTYPE_FAMILIES[family]


def _tag(name: str) -> Callable[[Request], bool]:
    return lambda r: name in r.tags


def _graph(*options: str) -> Callable[[Request], bool]:
    """Any of the graph ``options`` set away from its default."""
    return lambda r: any(option in r.graph for option in options)


def _runtime(r: Request) -> bool:
    inputs = r.graph.get("inputs")
    return inputs == "runtime" or (isinstance(inputs, Mapping) and "runtime" in inputs.values())


def _wide_values(r: Request) -> bool:
    wide = any(abs(v) > INT32_MAX for v in r.value) or abs(r.axis or 0) > INT32_MAX
    return wide or "int-edges" in r.tags


def _empty_other(r: Request) -> bool:
    return bool(r.dim) and 0 in r.shape


def _wide_dims(r: Request) -> bool:
    return max(r.shape, default=0) > INT32_MAX


def _sliced(test: slice_behaviours.Test) -> Callable[[Request], bool]:
    """A Slice row's test on a request (never true of a Split request)."""
    return lambda r: r.slice is not None and test(r.slice, r.shape)


def _row(slug: str, title: str, group: str, test: Callable[[Request], bool], *prefer: str) -> Behaviour:
    return Behaviour(slug, title, group, test, prefer)


COUNTS, SIZES, LENGTHS, POINTS = "Counts", "Piece sizes", "Lengths", "Split points"
AXIS, DATA, TYPES, GRAPHS, DOCUMENTS = "Axis", "Data", "Element types", "Graphs", "The documents"
_DTYPE_TITLES = {
    "bool": "bool data",
    "signed": "Signed integer data (int8 to int64)",
    "unsigned": "Unsigned integer data (uint8 to uint64)",
    "half": "16-bit float data (float16, bfloat16)",
    "double": "float64 data",
    "complex": "Complex data",
    "string": "String data",
}
_DIVIDES = _parts(lambda k, n: 1 <= k <= n and n % k == 0)
_UNEVEN = _parts(lambda k, n: 1 <= k < n and n % k != 0)
_PAST_DIM = _parts(lambda k, n: k > n >= 1)
_SIZE_DIVIDES = _sizes(lambda s, n: s >= 1 and n > 0 and n % s == 0)
_SIZE_UNEVEN = _sizes(lambda s, n: s >= 1 and n % s != 0)
_REST = _lengths(lambda r, n: _one_minus_one(r) and r.rest() > 0)
_REST_ZERO = _lengths(lambda r, n: _one_minus_one(r) and r.rest() == 0)
_NEG = _lengths(lambda r, n: _one_minus_one(r) and r.rest() < 0)
_SHORT = _lengths(lambda r, n: _no_negative(r) and bool(r.value) and sum(r.value) < n)
_OVER = _lengths(lambda r, n: _no_negative(r) and sum(r.value) > n)
_PAST_END = _points(lambda r, n: any(p > n for p in r.value))
_NEGATIVE_POINT = _points(lambda r, n: any(-n <= p < 0 for p in r.value))
_BEFORE = _points(lambda r, n: any(p < -n for p in r.value))
_REPEATED = _points(lambda r, n: len(set(r.points())) < len(r.value))
_DECLARED = _graph("declared_outputs", "num_outputs")
_SEQUENCE = _graph("keepdims", "split_input")
#: Every row of the page, in its order. Each test reads the request one op is given.
BEHAVIOURS: tuple[Behaviour, ...] = (
    _row("count-divides", "A count that divides the dimension", COUNTS, _DIVIDES),
    _row("count-uneven", "A count that does not divide", COUNTS, _UNEVEN, "count-7-into-3"),
    _row("count-past-dim", "More pieces than elements", COUNTS, _PAST_DIM, "count-7-into-8"),
    _row("count-zero", "A count of 0", COUNTS, _parts(lambda k, n: k == 0), "count-0"),
    _row("count-negative", "A negative count", COUNTS, _parts(lambda k, n: k < 0), "count-minus1"),
    _row("size-divides", "A piece size that divides the dimension", SIZES, _SIZE_DIVIDES),
    _row("size-uneven", "A piece size that leaves a shorter last piece", SIZES, _SIZE_UNEVEN),
    _row("size-not-positive", "A piece size of 0 or less", SIZES, _sizes(lambda s, n: s <= 0)),
    _row("lengths-exact", "Lengths that sum to the dimension", LENGTHS, _lengths(_exact)),
    _row("lengths-zero-piece", "Zero-length pieces", LENGTHS, _lengths(_zero_piece), "lengths-zero-3-0-4"),
    _row("minus-one", "A -1 size that takes the rest", LENGTHS, _REST, "lengths-minus1-pos1"),
    _row("minus-one-zero", "A -1 size that would be 0", LENGTHS, _REST_ZERO, "lengths-minus1-zero-pos1"),
    _row(
        "minus-one-negative",
        "A -1 size that would be negative",
        LENGTHS,
        _NEG,
        "lengths-2-minus1-4-on-5",
        "tf-sizes-minus1-past-dim",
    ),
    _row("two-minus-ones", "Two or more -1 sizes", LENGTHS, _lengths(lambda r, n: r.minus_ones() >= 2)),
    _row("below-minus-one", "A size below -1", LENGTHS, _lengths(lambda r, n: min(r.value, default=0) < -1)),
    _row("lengths-short", "Lengths that sum short of the dimension", LENGTHS, _SHORT),
    _row("lengths-over", "Lengths that sum past the dimension", LENGTHS, _OVER),
    _row("lengths-empty", "An empty list of lengths", LENGTHS, _lengths(lambda r, n: not r.value)),
    _row("points-sorted", "Split points in order, within the dimension", POINTS, _points(_sorted_points)),
    _row(
        "points-past-end",
        "A split point past the end",
        POINTS,
        _PAST_END,
        "indices-1-9-on-7",
        "indices-past-end",
    ),
    _row("points-negative", "A negative split point", POINTS, _NEGATIVE_POINT, "indices-negative"),
    _row("points-before-start", "A split point below -n", POINTS, _BEFORE, "indices-negative-past-start"),
    _row("points-unsorted", "Unsorted split points", POINTS, _points(_unsorted), "indices-unsorted"),
    _row("points-repeated", "A split point repeated", POINTS, _REPEATED, "indices-duplicates"),
    _row("points-empty", "An empty list of split points", POINTS, _points(lambda r, n: not r.value)),
    _row("axis-negative", "A negative axis", AXIS, lambda r: (r.axis or 0) < 0 and r.dim is not None),
    _row(
        "axis-out-of-range",
        "An axis out of range",
        AXIS,
        lambda r: r.slice is None and r.dim is None and len(r.shape) > 0,
    ),
    _row("axis-default", "No axis: the op's default", AXIS, lambda r: r.axis is None and r.dim is not None),
    *(_row(slug, title, group, _sliced(test)) for slug, title, group, test in slice_behaviours.ROWS),
    _row("rank-0", "A rank-0 tensor", DATA, lambda r: not r.shape),
    _row("empty-dim", "An empty split dimension", DATA, lambda r: r.dim == 0),
    _row("empty-other-dim", "An empty dimension beside the split one", DATA, _empty_other),
    _row("high-rank", "Data of rank 4 or more", DATA, lambda r: len(r.shape) >= 4),
    _row("dims-past-int32", "Dims past 2^31 (tensors of 2 GiB)", DATA, _wide_dims),
    _row("values-past-int32", "Sizes, counts or points at the edges of 32 and 64 bits", DATA, _wide_values),
    _row("special-values", "NaN, infinities, signed zeros, integer extremes", DATA, _tag("special-values")),
    *(_row(f"dtype-{family}", title, TYPES, _dtype(family)) for family, title in _DTYPE_TITLES.items()),
    _row("dynamic", "Dynamic dims: the shape known at run time", GRAPHS, lambda r: "data_shape" in r.graph),
    _row("runtime", "Sizes or axis fed at run time", GRAPHS, _runtime, "graph-runtime-lengths"),
    _row("lengths-type", "Sizes of another integer type than int64", GRAPHS, _graph("lengths_dtype")),
    _row("axis-input", "An axis input of another type or shape", GRAPHS, _graph("axis_dtype", "axis_shape")),
    Behaviour("declared-outputs", "A node declaring another output count", GRAPHS, _DECLARED, alone=True),
    _row("sequence-options", "SplitToSequence without split, or keepdims 0", GRAPHS, _SEQUENCE),
    _row("runs", "One model run on several inputs", GRAPHS, _tag("runs")),
    _row("doc-example", "The documents' own examples", DOCUMENTS, _tag("doc-example")),
    _row("ambiguous", "Where a text admits two readings", DOCUMENTS, _tag("ambiguous")),
)


def default_axis(op: str, rank: int) -> int:
    """The axis an op splits when the request names none: hsplit, vsplit and dsplit choose by
    rank (their documents' rule), every other op splits axis 0."""
    entry = OPS.get(op)
    if entry is None or entry.takes_axis:
        return 0
    return _DIRECTIONS[op.rpartition(".")[2]].axis_for_rank(rank)


def request_of(params: ParamsRecord, op: str) -> Request:
    """The request ``op`` is given by a result's resolved case."""
    data = params.get("data", {})
    shape = tuple(int(size) for size in data.get("shape", []))
    graph = params.get("graph") or {}
    set_graph = {key: value for key, value in graph.items() if _GRAPH_DEFAULTS.get(key) != value}
    tags = frozenset(params.get("tags") or ())
    if "slice" in params:  # no axis, no dim: Split's rows read neither
        return Request(
            "slice", (), shape, None, None, str(data.get("dtype")), tags, set_graph, params["slice"]
        )
    empty: FormParams = {"kind": "", "value": []}
    form = params.get("form", empty)
    raw = form["value"]
    value = tuple(int(v) for v in raw) if isinstance(raw, list) else (int(raw),)
    written = params.get("axis")
    axis = default_axis(op, len(shape)) if written is None else written
    rank = len(shape)
    dim = shape[axis % rank] if rank and -rank <= axis < rank else None
    return Request(
        kind=form["kind"],
        value=value,
        shape=shape,
        axis=written,
        dim=dim,
        dtype=str(data.get("dtype")),
        tags=tags,
        graph=set_graph,
    )


def behaviours_of(request: Request) -> list[int]:
    """The rows (indices into :data:`BEHAVIOURS`) a request falls in."""
    found = [number for number, behaviour in enumerate(BEHAVIOURS) if behaviour.test(request)]
    alone = [number for number in found if BEHAVIOURS[number].alone]
    return alone[:1] or found


class Classifier:
    """The rows of each (case, op), computed once per distinct request."""

    def __init__(self) -> None:
        self._rows: dict[tuple[str, int | None], tuple[int, ...]] = {}

    def rows(self, case: str, op: str, params: ParamsRecord) -> tuple[int, ...]:
        """The behaviours of ``case`` under ``op``."""
        shape = params.get("data", {}).get("shape", [])
        key = (case, default_axis(op, len(shape)) if params.get("axis") is None else None)
        found = self._rows.get(key)
        if found is None:
            found = self._rows[key] = tuple(behaviours_of(request_of(params, op)))
        return found
