"""The Slice family's parameter space as Hypothesis strategies that draw case documents.

As for Split (:mod:`conformance.explore.space`), a draw is a case's body and the space is the op's
interface, not its document: bounds past both ends and at the integer edges, omitted bounds,
negative, zero and huge steps, repeated and out-of-range axes, mask bits on any position, sizes of
-1 and past the dimension, index inputs fed at run time in any integer type, dynamic dims and
further runs. What an op's API cannot state at all (two axes for torch.narrow, steps for Slice-1)
the search rejects through the catalogue, as it does a Split request; the draws are shaped so that
most fit (one axis or full vectors for the sizes form, full vectors for the strided form).
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from conformance import dtypes
from conformance.corpus import catalogue, slice_ops
from conformance.corpus.case import MASK_NAMES, SLICE_INPUTS, GraphSpec, SliceArguments
from conformance.explore.limits import Limits
from conformance.explore.space import (
    EDGES,
    STRING_BYTES,
    Draw,
    dtype_order,
    fill,
    index_dtype,
    shape,
    weighted,
)


def _dim_of(shape_: list[int], axis: int | None, position: int) -> int:
    """The dim an entry bounds (its axis, else its position), or a scale when there is none."""
    rank = len(shape_)
    index = position if axis is None else axis
    return shape_[index] if -rank <= index < rank else max(shape_, default=4)


def _bound(draw: Draw, dim: int, omittable: bool) -> int | None:
    """A start or end: inside or a little past the dim either way, an integer edge, or omitted."""
    choices: list[tuple[int, st.SearchStrategy[Any]]] = [
        (10, st.integers(-dim - 2, dim + 2)),
        (2, st.sampled_from(EDGES)),
    ]
    if omittable:
        choices.append((2, st.none()))
    value = weighted(draw, choices)
    return None if value is None else int(value)


def _step(draw: Draw) -> int:
    return int(
        weighted(
            draw, [(8, st.sampled_from([1, 2, -1, 3, -2])), (1, st.just(0)), (1, st.sampled_from(EDGES))]
        )
    )


def _size(draw: Draw, dim: int) -> int:
    return int(
        weighted(
            draw, [(8, st.integers(0, dim + 1)), (2, st.sampled_from([-1, -2])), (1, st.sampled_from(EDGES))]
        )
    )


def _axes(draw: Draw, rank: int, count: int) -> list[int]:
    """``count`` axes: in range (positive or negative), now and then repeated or out of range."""
    top = max(rank, 1)
    inside = st.integers(0, top - 1) if draw(st.booleans()) else st.integers(-top, -1)
    return [
        int(
            weighted(
                draw, [(10, inside), (1, st.sampled_from([rank, -rank - 1])), (1, st.sampled_from(EDGES))]
            )
        )
        for _ in range(count)
    ]


def _bounds_form(draw: Draw, shape_: list[int], api: slice_ops.SliceApi) -> dict[str, Any]:
    rank = len(shape_)
    count = draw(st.integers(1, max(rank, 1) + 1))
    axes = _axes(draw, rank, count) if draw(st.booleans()) else None
    dims = [_dim_of(shape_, None if axes is None else axes[i], i) for i in range(count)]
    document: dict[str, Any] = {
        "starts": [_bound(draw, dim, api.omitted) for dim in dims],
        "ends": [_bound(draw, dim, api.omitted) for dim in dims],
    }
    if axes is not None:
        document["axes"] = axes
    if api.steps and draw(st.booleans()):
        document["steps"] = [_step(draw) for _ in dims]
    return document


def _states(op_id: str, **request: Any) -> bool:
    """Whether the op's API can state a request of this layout (the catalogue's own rule)."""
    arguments = SliceArguments(**{key: tuple(value) for key, value in request.items()})
    return slice_ops.why_not_expressible(op_id, arguments, GraphSpec()) is None


def _sizes_form(draw: Draw, op_id: str, shape_: list[int]) -> dict[str, Any]:
    """One axis (torch.narrow) or full vectors without axes (tf.slice): whichever the op states."""
    one_axis = _states(op_id, starts=[0], sizes=[1], axes=[0])
    full = _states(op_id, starts=[0, 0], sizes=[1, 1])
    if one_axis and (not full or draw(st.booleans())):
        (axis,) = _axes(draw, len(shape_), 1)
        dim = _dim_of(shape_, axis, 0)
        return {"starts": [_bound(draw, dim, False)], "sizes": [_size(draw, dim)], "axes": [axis]}
    dims = shape_ or [4]
    return {"starts": [_bound(draw, dim, False) for dim in dims], "sizes": [_size(draw, dim) for dim in dims]}


def _strided_form(draw: Draw, shape_: list[int]) -> dict[str, Any]:
    """Full vectors (a position per entry, one more than the rank now and then) and mask bits."""
    count = draw(st.integers(1, len(shape_) + 1))
    dims = [_dim_of(shape_, None, i) for i in range(count)]
    masks = {}
    for name in MASK_NAMES:
        if draw(st.integers(0, 3)) == 3:
            masks[name] = sorted(set(draw(st.lists(st.integers(0, count - 1), min_size=1, max_size=2))))
    return {
        "starts": [_bound(draw, dim, False) for dim in dims],
        "ends": [_bound(draw, dim, False) for dim in dims],
        "steps": [_step(draw) for _ in dims],
        "masks": masks,
    }


def _graph(draw: Draw, op: catalogue.OpEntry, given: list[str]) -> dict[str, Any]:
    api = slice_ops.APIS[op.id][0]
    graph: dict[str, Any] = {}
    fed = [name for name in given if name in api.runtime]
    if "inputs" in op.graph_options and fed:
        every = ["runtime"] if len(fed) == len(given) else []  # else `runtime` would feed one it cannot
        pick = draw(st.sampled_from(["constant", *every, *fed]))
        if pick != "constant":
            graph["inputs"] = pick if pick == "runtime" else {pick: "runtime"}
    if "data_shape" in op.graph_options and draw(st.booleans()):
        graph["data_shape"] = "dynamic"
    typed = api.typed == "always" or (api.typed == "runtime" and "inputs" in graph)
    if "index_dtype" in op.graph_options and typed:
        graph["index_dtype"] = index_dtype(draw)
    defaults = GraphSpec().as_dict()
    return {key: value for key, value in graph.items() if defaults.get(key) != value}


def _fed(graph: dict[str, Any], given: list[str]) -> list[str]:
    inputs = graph.get("inputs", "constant")
    if inputs == "runtime":
        return given
    return [name for name in given if isinstance(inputs, dict) and inputs.get(name) == "runtime"]


def _runs(draw: Draw, document: dict[str, Any], fed: list[str], limits: Limits) -> list[dict[str, Any]]:
    """Further runs on the model: new dims where they are dynamic, new values of fed inputs."""
    dynamic = document.get("graph", {}).get("data_shape") == "dynamic"
    if not (dynamic or fed):
        return []
    first = document["data"]["shape"]
    runs = []
    for _ in range(draw(st.integers(0, limits.runs))):
        run: dict[str, Any] = {}
        if dynamic and draw(st.booleans()):
            run["shape"] = shape(draw, rank=len(first))
        for name in fed:
            if draw(st.booleans()):
                scale = max(run.get("shape", first), default=4)
                run[name] = [int(draw(st.integers(-scale - 2, scale + 2))) for _ in document[name]]
        if run:
            runs.append(run)
    return runs


@st.composite
def case_documents(draw: Draw, op_id: str, limits: Limits = Limits()) -> dict[str, Any]:
    """One Slice request for ``op_id`` as the body of a case (without id, title and source)."""
    op = catalogue.get(op_id)
    api = slice_ops.APIS[op_id][0]
    dtype = draw(st.sampled_from(dtype_order(op)))
    shape_ = shape(draw)
    document: dict[str, Any] = {"data": {"shape": shape_, "dtype": dtype, **fill(draw, dtype)}}
    form = draw(st.sampled_from(sorted(api.forms)))
    if form == "bounds":
        document |= _bounds_form(draw, shape_, api)
    elif form == "sizes":
        document |= _sizes_form(draw, op_id, shape_)
    else:
        document |= _strided_form(draw, shape_)
    given = [name for name in SLICE_INPUTS if name in document]
    graph = _graph(draw, op, given)
    if graph:
        document["graph"] = graph
    runs = _runs(draw, document, _fed(graph, given), limits)
    if runs:
        document["runs"] = runs
    assume(within(document, limits))
    return document


def within(document: dict[str, Any], limits: Limits) -> bool:
    """Whether every run's data stays inside the data budget (a slice is never larger than its
    data) and inside what NumPy can shape."""
    data = document["data"]
    item = STRING_BYTES if data["dtype"] == "string" else dtypes.numpy_dtype(data["dtype"]).itemsize
    for shape_ in [data["shape"], *(run["shape"] for run in document.get("runs", []) if "shape" in run)]:
        if math.prod(shape_) * item > limits.data_bytes or math.prod(d for d in shape_ if d) >= 2**62:
            return False
    return True
