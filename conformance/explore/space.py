"""The Split family's parameter space as Hypothesis strategies that draw case documents, and the
draws every family's space shares (dims, shapes, fills, integer edges, index types).

A draw is the mapping a case of a YAML case file holds, so it passes the same rules as a written
case and a finding is written back without translation. The space is the op's interface, not its
spec: invalid values included. Choices are ordered so that Hypothesis shrinks towards the plain
request. A request stays inside what one item may cost (:func:`within`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from conformance import dtypes
from conformance.corpus import catalogue
from conformance.corpus.case import FORM_KINDS, FormKind, GraphSpec
from conformance.corpus.catalogue import OpEntry
from conformance.explore.limits import Limits

#: Values at the edges of 32- and 64-bit integers, and past them by a little: where a backend
#: that narrows, wraps or saturates a count, a length or an axis gives itself away.
EDGES: tuple[int, ...] = (2**31 - 1, 2**31, 2**32, 2**32 + 2, -(2**31), -(2**31) - 1, 2**63 - 1, -(2**63))
#: Dims beyond the small ones: odd and power-of-two sizes, and sizes past int32 that only an
#: empty tensor (another dim of 0) can hold within the data budget.
LARGE_DIMS: tuple[int, ...] = (17, 64, 255, 256, 1000, 4097, 65537, 2**20, 2**31 - 1, 2**31 + 8, 2**32 + 2)
#: Bytes per element charged for a string tensor (its Python objects, not its characters).
STRING_BYTES = 64

Draw = Any  # Hypothesis's draw function (its type is private to Hypothesis)


def weighted(draw: Draw, choices: Sequence[tuple[int, st.SearchStrategy[Any]]]) -> Any:
    """Draw from one of ``choices`` picked with the given weights; shrinks towards the first."""
    total = sum(weight for weight, _ in choices)
    pick = draw(st.integers(0, total - 1))
    for weight, strategy in choices:
        if pick < weight:
            return draw(strategy)
        pick -= weight
    raise AssertionError("unreachable")


def dtype_order(op: OpEntry) -> list[str]:
    """The op's dtypes with float32 first, the rest in the suite's order (shrinks to float32)."""
    rest = [name for name in dtypes.ALL if name in op.dtypes and name != "float32"]
    return (["float32"] if "float32" in op.dtypes else []) + rest


def _dim(draw: Draw) -> int:
    return int(weighted(draw, [(14, st.integers(1, 8)), (3, st.just(0)), (2, st.sampled_from(LARGE_DIMS))]))


def shape(draw: Draw, rank: int | None = None) -> list[int]:
    """A data shape of rank 0 to 5 (shrinking towards rank 1), or of the given rank."""
    rank = draw(st.sampled_from([1, 2, 3, 0, 4, 5])) if rank is None else rank
    return [_dim(draw) for _ in range(rank)]


def _axis(draw: Draw, rank: int, required: bool) -> int | None:
    choices: list[tuple[int, st.SearchStrategy[Any]]] = []
    if rank:
        choices += [(10, st.integers(0, rank - 1)), (4, st.integers(-rank, -1))]
    if not required:
        choices.append((2, st.none()))
    choices += [(2, st.sampled_from([rank, -rank - 1, rank + 3])), (1, st.sampled_from(EDGES))]
    value = weighted(draw, choices)
    return None if value is None else int(value)


def along(shape: Sequence[int], axis: int | None) -> int:
    """The dim a request splits, or the largest dim when its axis is out of range (the value
    strategies still need a scale; the reference rejects the axis first)."""
    rank = len(shape)
    index = 0 if axis is None else axis
    if rank and -rank <= index < rank:
        return shape[index]
    return max(shape, default=6)


def _parts(draw: Draw, dim: int, limits: Limits) -> int:
    top = max(2, min(dim + 2, 16))
    divisors = [n for n in range(1, min(dim, limits.pieces) + 1) if dim % n == 0][:12] or [1]
    return int(
        weighted(
            draw,
            [
                (8, st.integers(1, top)),
                (3, st.sampled_from(divisors)),
                (2, st.sampled_from([0, -1, -2, -(2**31), -(2**63)])),
                (1, st.integers(top, limits.pieces)),
            ],
        )
    )


def _size(draw: Draw, dim: int) -> int:
    return int(
        weighted(
            draw,
            [
                (8, st.integers(1, max(1, min(dim, 2**20)) + 2)),
                (2, st.sampled_from([0, -1, dim, dim + 1])),
                (2, st.sampled_from(EDGES)),
            ],
        )
    )


def _composition(draw: Draw, total: int, count: int) -> list[int]:
    """``count`` non-negative lengths summing to ``total``."""
    cuts = sorted(draw(st.integers(0, total)) for _ in range(count - 1))
    bounds = [0, *cuts, total]
    return [b - a for a, b in itertools.pairwise(bounds)]


#: How a drawn valid list of lengths is bent: not at all, the spec's -1, near misses of the sum,
#: negative entries, the integer edges and sums that wrap or narrow back to the dim.
_LENGTH_BENDS = (
    "none",
    "minus-one",
    "sum-plus-one",
    "sum-minus-one",
    "two-minus-one",
    "negative",
    "edge",
    "narrow-32",
    "wrap-64",
)


def _lengths(draw: Draw, dim: int, count: int | None = None) -> list[int]:
    """Lengths for ``dim``; with ``count`` (a run's new lengths) exactly that many of them."""
    fixed = count is not None
    count = count or draw(st.integers(1, 6))
    lengths = _composition(draw, dim, count)
    bend = draw(st.sampled_from(_LENGTH_BENDS))
    where = draw(st.integers(0, count - 1))
    if bend == "minus-one":
        lengths[where] = -1
    elif bend == "sum-plus-one":
        lengths[where] += 1
    elif bend == "sum-minus-one":
        lengths[where] -= 1
    elif bend == "two-minus-one" and count > 1:
        lengths[where] = lengths[(where + 1) % count] = -1
    elif bend == "negative":
        lengths[where] = -draw(st.integers(1, 3))
    elif bend == "edge":
        lengths[where] = draw(st.sampled_from(EDGES))
    elif bend == "narrow-32":
        lengths[where] += 2**32
    elif bend == "wrap-64" and not fixed and lengths[where] < 2**61:
        # four entries of 2^62 sum to 2^64, which wraps to 0 in 64 bits: the sum still looks right
        lengths[where] += 2**62
        lengths += [2**62] * 3
    return lengths


def _indices(draw: Draw, dim: int, count: int | None = None) -> list[int]:
    """Split points for ``dim``; with ``count`` (a run's new points) exactly that many, none
    included: the count of points fixes the model's outputs."""
    count = draw(st.integers(0, 5)) if count is None else count
    scale = min(dim, 2**40) + 2
    points = [
        int(weighted(draw, [(8, st.integers(-scale, scale)), (1, st.sampled_from(EDGES))]))
        for _ in range(count)
    ]
    return sorted(points) if draw(st.booleans()) is False else points


def form_value(draw: Draw, kind: FormKind, dim: int, limits: Limits, count: int | None = None) -> Any:
    """A value of one form for a dim of ``dim`` (``count`` keeps a list's length, for a run)."""
    if kind == "parts":
        return _parts(draw, dim, limits)
    if kind == "size":
        return _size(draw, dim)
    if kind == "lengths":
        return _lengths(draw, dim, count)
    return _indices(draw, dim, count)


def _inputs_choices(op: OpEntry, kind: FormKind) -> list[Any]:
    fed = op.inputs_for(kind)
    if "inputs" not in op.graph_options or not fed:
        return ["constant"]
    return ["constant", "runtime", *({name: "runtime"} for name in sorted(fed) if len(fed) > 1)]


def _graph(draw: Draw, op: OpEntry, kind: FormKind) -> dict[str, Any]:
    options = op.graph_options
    graph: dict[str, Any] = {}
    pick = draw(st.sampled_from(_inputs_choices(op, kind)))
    if pick != "constant":
        graph["inputs"] = pick
    if "data_shape" in options and draw(st.booleans()):
        graph["data_shape"] = "dynamic"
    if "axis_dtype" in options:
        graph["axis_dtype"] = index_dtype(draw)
    if "axis_shape" in options:  # an op may type its axis input without taking it as [1]
        graph["axis_shape"] = draw(st.sampled_from(["scalar", "[1]"]))
    if "lengths_dtype" in options and kind == "lengths":
        graph["lengths_dtype"] = index_dtype(draw)
    if "num_outputs" in options:
        forbidden = {"lengths": "both", "parts": "neither"}.get(kind)
        graph["num_outputs"] = draw(st.sampled_from(["auto", *([forbidden] if forbidden else [])]))
    declares = kind == "lengths" or (op.id == "onnx.Split-18" and graph.get("num_outputs") != "neither")
    if "keepdims" in options:
        graph["keepdims"] = draw(st.sampled_from([1, 0]))
    if "split_input" in options and kind == "size" and pick == "constant" and draw(st.booleans()):
        graph["split_input"] = "omitted"
    if "declared_outputs" in options and declares and draw(st.integers(0, 5)) == 5:
        graph["declared_outputs"] = draw(st.integers(0, 6))
    defaults = GraphSpec().as_dict()
    return {key: value for key, value in graph.items() if defaults[key] != value}


def index_dtype(draw: Draw) -> str:
    """The element type of an axis or lengths input: mostly int64, often int32, sometimes any
    other type (which most specs refuse, and some backends take)."""
    others = [name for name in dtypes.ALL if name not in ("int64", "int32")]
    return str(weighted(draw, [(12, st.just("int64")), (4, st.just("int32")), (3, st.sampled_from(others))]))


def _runtime(graph: dict[str, Any], name: str) -> bool:
    inputs = graph.get("inputs", "constant")
    return inputs == "runtime" or (isinstance(inputs, dict) and inputs.get(name) == "runtime")


def fill(draw: Draw, dtype: str) -> dict[str, Any]:
    kinds = ["arange", "random"] + (["special"] if dtype in dtypes.FLOATING + dtypes.COMPLEX else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "arange":
        return {}
    if kind == "random":
        return {"fill": "random", "seed": draw(st.integers(0, 2**16))}
    return {"fill": kind}


def _runs(
    draw: Draw, op: OpEntry, document: dict[str, Any], kind: FormKind, limits: Limits
) -> list[dict[str, Any]]:
    graph = document.get("graph", {})
    dynamic = graph.get("data_shape") == "dynamic"
    axis_fed = _runtime(graph, "axis") and "axis" in op.inputs_for(kind)
    lengths_fed = _runtime(graph, "lengths") and "lengths" in op.inputs_for(kind)
    if not (dynamic or axis_fed or lengths_fed):
        return []
    shape = document["data"]["shape"]
    runs = []
    for _ in range(draw(st.integers(0, limits.runs))):
        run: dict[str, Any] = {}
        run_shape = [_dim(draw) for _ in shape] if dynamic and draw(st.booleans()) else shape
        if run_shape != shape:
            run["shape"] = run_shape
        axis = document.get("axis")
        if axis_fed and draw(st.booleans()):
            axis = run["axis"] = _axis(draw, len(shape), required=True)
        if lengths_fed and (draw(st.booleans()) or not run):
            value = document[kind]
            count = len(value) if isinstance(value, list) else None
            run[kind] = form_value(draw, kind, along(run_shape, axis), limits, count)
        if run:
            runs.append(run)
    return runs


@st.composite
def case_documents(draw: Draw, op_id: str, limits: Limits = Limits()) -> dict[str, Any]:
    """One Split request for ``op_id`` as the body of a case (without id, title and source)."""
    op = catalogue.get(op_id)
    kind: FormKind = draw(st.sampled_from([k for k in FORM_KINDS if k in op.forms]))
    dtype = draw(st.sampled_from(dtype_order(op)))
    data_shape = shape(draw)
    axis = _axis(draw, len(data_shape), op.axis_required) if op.takes_axis else None
    document: dict[str, Any] = {"data": {"shape": data_shape, "dtype": dtype, **fill(draw, dtype)}}
    if axis is not None:
        document["axis"] = axis
    document[kind] = form_value(draw, kind, along(data_shape, axis), limits)
    graph = _graph(draw, op, kind)
    if graph.get("split_input") == "omitted":  # no split input: the op reads a split of 1
        document[kind] = 1
    if graph:
        document["graph"] = graph
    runs = _runs(draw, op, document, kind, limits)
    if runs:
        document["runs"] = runs
    assume(within(document, kind, limits))
    return document


def within(document: dict[str, Any], kind: FormKind, limits: Limits) -> bool:
    """Whether every run of the request stays inside the data and piece budgets (and inside what
    NumPy, which holds every input, can shape: the product of the non-zero dims below 2^62)."""
    data = document["data"]
    item = STRING_BYTES if data["dtype"] == "string" else dtypes.numpy_dtype(data["dtype"]).itemsize
    requests = [(document["data"]["shape"], document.get("axis"), document[kind])]
    for run in document.get("runs", []):
        requests.append(
            (run.get("shape", requests[0][0]), run.get("axis", requests[0][1]), run.get(kind, requests[0][2]))
        )
    declared = document.get("graph", {}).get("declared_outputs") or 0
    for shape, axis, value in requests:
        if math.prod(shape) * item > limits.data_bytes:
            return False
        if math.prod(dim for dim in shape if dim) >= 2**62:  # NumPy cannot shape even an empty array so
            return False
        if max(declared, implied_pieces(kind, value, along(shape, axis))) > limits.pieces:
            return False
    return True


def implied_pieces(kind: FormKind, value: Any, dim: int) -> int:
    """An upper bound of the pieces a request asks for (0 when its value is itself invalid)."""
    if kind == "parts":
        return max(int(value), 0)
    if kind == "size":
        return math.ceil(dim / value) if value > 0 else 0
    return len(value) + (1 if kind == "indices" else 0)
