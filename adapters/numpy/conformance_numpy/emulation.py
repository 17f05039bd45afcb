"""A second, independent reading of the spec texts, executed with NumPy: the "emulated" route.

It covers the ops in :data:`OPS` and no others: OpenVINO Split-1 and VariadicSplit-1, ONNX Split
(every version) and torch.split / tensor_split / chunk. An op the catalogue gains later (ONNX
SplitToSequence, the hsplit family, JAX's and Keras's splits) is not routed here until this module
has a reading of its text.

Written from the spec documents listed in docs/specs.md without looking at
``conformance.oracle.reference``, so that running it through the suite cross-checks the reference:
where the two disagree, one of them misread a spec. Each op family has one function, which raises
:class:`SpecViolation` (its message starts with the rule) for what its spec rejects and otherwise
cuts the data with NumPy slicing. Graph options matter only where a spec makes them rules (the type
of the axis and lengths inputs, the shape of the axis, Split-18's split/num_outputs exclusivity).

Where a text admits two readings this module picks one:

* ONNX Split-1 with no ``axis``: the attribute has no stated default; read as axis 0, the default
  every later version states.
* ONNX Split-18 ``num_outputs`` whose ceil-sized pieces overrun the dimension: the text only
  allows "the last chunk" to be smaller, so no piece sizes satisfy it; read as a rejection.
* torch.split with an int size on an empty dimension: "the last piece is smaller" could give no
  piece at all; read as one empty piece, the piece the size-0 rule also implies.
* ONNX Split-18 whose node declares fewer outputs than ``num_outputs``: "number of outputs" read
  strictly, so the node is refused (ONNX's convention of leaving out trailing outputs not applied).
* OpenVINO VariadicSplit with axis and split_lengths of different integer types: both are
  "of type T2", read as one type variable, so the two types must be the same.

Other readings taken where the texts are silent, all reached from the wording:

* ONNX Split-1 and Split-2 state no negative axes (counting from the back is introduced with
  Split-11), so a negative axis is out of range there.
* ONNX lengths must be non-negative and sum to the dimension in every version: the parts "split
  a tensor", and Split-11 onwards spell it out.
* ONNX states "Between 1 and 2147483647 outputs", so an empty split list is rejected; OpenVINO
  and torch state no minimum, so an empty list on an empty dimension gives zero pieces.
* OpenVINO Split-1 num_splits must lie in [1, data.shape[axis]] ("Range of values") as well as
  divide the dimension evenly.
* torch.chunk on an empty dimension: a piece size of ceil(0 / chunks) = 0, read as ``chunks``
  empty pieces (the documented "attempts to split into the specified number of chunks").
* A value its declared element type cannot hold (an axis of -1 declared uint16, a Split-1 split
  input of type T that T cannot represent exactly) is rejected: no model can carry it.
"""

from __future__ import annotations

import fnmatch
import functools
import itertools
import math
from collections.abc import Sequence

import numpy as np

from conformance import dtypes
from conformance.corpus.case import Form, GraphSpec
from conformance.plugin import BackendRefusal, Route, Target, Task

Pieces = list[np.ndarray]

#: The op ids (and globs) this module has a reading for: the route's ``ops``. ``onnx.Split-*``
#: matches the Split versions only (not ``onnx.SplitToSequence-11``).
OPS: tuple[str, ...] = (
    "openvino.*Split-*",
    "onnx.Split-*",
    "torch.split",
    "torch.tensor_split",
    "torch.chunk",
)

_INTEGER = frozenset(dtypes.INTEGER)
#: Element types each ONNX Split version's type constraint T admits.
_ONNX_TYPES = {
    1: frozenset({"float16", "float32", "float64"}),
    2: frozenset(dtypes.ALL) - {"bfloat16"},
    11: frozenset(dtypes.ALL) - {"bfloat16"},
    13: frozenset(dtypes.ALL),
    18: frozenset(dtypes.ALL),
}


class SpecViolation(BackendRefusal, ValueError):
    """The request breaks a rule of the op's spec (the message names the rule first): a refusal by
    the ``emulated`` route's backend, although raised in the adapter's package."""

    def __init__(self, rule: str, detail: str) -> None:
        super().__init__(f"{rule}: {detail}")
        self.rule = rule


# --- shared arithmetic ----------------------------------------------------------------------------


def _axis(data: np.ndarray, axis: int, op: str, *, negative: bool = True) -> int:
    """The axis as a non-negative index, or a rejection when outside the spec's range."""
    rank = data.ndim
    low = -rank if negative else 0
    if not low <= axis <= rank - 1:
        raise SpecViolation(f"{op} axis range", f"axis {axis} is outside [{low}, {rank - 1}] for rank {rank}")
    return axis + rank if axis < 0 else axis


def _fits(values: Sequence[int], dtype: str, what: str, op: str) -> None:
    """Rejects a value its declared element type cannot hold (the model could not carry it)."""
    target = dtypes.numpy_dtype(dtype)
    if target.kind in "iu":
        info = np.iinfo(target)
        bad = [v for v in values if not info.min <= v <= info.max]
    else:
        bad = [v for v in values if float(np.array(v, dtype=np.float64).astype(target)) != v]
    if bad:
        raise SpecViolation(f"{op} {what} type", f"{bad[0]} is not representable as {dtype}")


def _at_points(data: np.ndarray, axis: int, points: Sequence[int]) -> Pieces:
    """Pieces between split points with Python slice semantics (negative points count from the end,
    points past the end clamp, a point before its predecessor gives an empty piece)."""
    before = (slice(None),) * axis
    bounds: list[int | None] = [None, *points, None]
    return [data[(*before, slice(start, stop))] for start, stop in itertools.pairwise(bounds)]


def _cut(data: np.ndarray, axis: int, lengths: Sequence[int]) -> Pieces:
    """Consecutive pieces of the given lengths along ``axis`` (already checked to tile it)."""
    return _at_points(data, axis, list(itertools.accumulate(lengths))[:-1]) if lengths else []


def _chunks(data: np.ndarray, axis: int, size: int) -> Pieces:
    """Pieces of ``size`` along ``axis``, the last one smaller where it must be; one empty piece
    for an empty dimension."""
    return _at_points(data, axis, range(size, data.shape[axis], size)) if data.shape[axis] else [data]


def _lengths_tiling(lengths: Sequence[int], dim: int, op: str) -> None:
    """Non-negative lengths that sum exactly to the dimension."""
    if any(v < 0 for v in lengths):
        raise SpecViolation(f"{op} lengths non-negative", f"lengths {list(lengths)} hold a negative value")
    if sum(lengths) != dim:
        raise SpecViolation(
            f"{op} lengths sum", f"lengths {list(lengths)} sum to {sum(lengths)}, not the dim {dim}"
        )


# --- OpenVINO ------------------------------------------------------------------------------------


def openvino(op: str, data: np.ndarray, axis: int | None, form: Form, graph: GraphSpec) -> Pieces:
    """Split-1 (equal pieces) and VariadicSplit-1 (lengths with at most one -1)."""
    if axis is None:
        raise SpecViolation(f"{op} axis required", "the axis input is required")
    if graph.axis_dtype not in _INTEGER:
        raise SpecViolation(f"{op} axis type", f"the axis must be of an integer type, not {graph.axis_dtype}")
    _fits([axis], graph.axis_dtype, "axis", op)
    if op == "openvino.Split-1":
        if graph.axis_shape != "scalar":
            raise SpecViolation(
                f"{op} axis shape", f"the axis must be a scalar, not shape {graph.axis_shape}"
            )
        a = _axis(data, axis, op)
        dim, count = data.shape[a], form.values[0]
        if not 1 <= count <= dim:
            raise SpecViolation(f"{op} num_splits range", f"num_splits {count} is outside [1, {dim}]")
        if dim % count:
            raise SpecViolation(f"{op} even division", f"{dim} is not evenly divisible by num_splits {count}")
        return _cut(data, a, [dim // count] * count)
    if graph.lengths_dtype not in _INTEGER:
        raise SpecViolation(
            f"{op} split_lengths type", f"split_lengths must be integers, not {graph.lengths_dtype}"
        )
    if graph.lengths_dtype != graph.axis_dtype:
        raise SpecViolation(
            f"{op} T2",
            f"axis ({graph.axis_dtype}) and split_lengths ({graph.lengths_dtype}) share the type T2",
        )
    lengths = list(form.values)
    _fits(lengths, graph.lengths_dtype, "split_lengths", op)
    a = _axis(data, axis, op)
    dim = data.shape[a]
    if lengths.count(-1) > 1:
        raise SpecViolation(f"{op} single -1", f"lengths {lengths} hold more than one -1")
    if any(v < -1 for v in lengths):
        raise SpecViolation(
            f"{op} lengths non-negative", f"lengths {lengths} hold a negative dimension value"
        )
    known = sum(v for v in lengths if v != -1)
    if -1 in lengths:
        if known > dim:
            raise SpecViolation(f"{op} lengths sum", f"lengths {lengths} leave {dim - known} for the -1")
        lengths[lengths.index(-1)] = dim - known
    _lengths_tiling(lengths, dim, op)
    return _cut(data, a, lengths)


# --- ONNX ----------------------------------------------------------------------------------------


def onnx(
    version: int, data: np.ndarray, axis: int | None, form: Form, graph: GraphSpec, dtype: str
) -> Pieces:
    """Split-1, -2, -11, -13 and -18: the type list, the axis attribute, split vs equal parts."""
    op = f"onnx.Split-{version}"
    if dtype not in _ONNX_TYPES[version]:
        raise SpecViolation(f"{op} type constraint T", f"{dtype} is not among the types T admits")
    a = _axis(data, 0 if axis is None else axis, op, negative=version >= 11)
    dim = data.shape[a]
    if version == 18 and graph.num_outputs == "both":
        raise SpecViolation(f"{op} split xor num_outputs", "both the split input and num_outputs are given")
    if version == 18 and graph.num_outputs == "neither":
        raise SpecViolation(f"{op} split xor num_outputs", "neither the split input nor num_outputs is given")
    outputs = len(form.values) if form.kind == "lengths" else form.values[0]
    if graph.declared_outputs is not None and graph.declared_outputs != outputs:
        raise SpecViolation(
            f"{op} outputs",
            f"the node has {graph.declared_outputs} outputs for a request of {outputs} pieces",
        )
    if form.kind == "parts":
        count = form.values[0]
        if count < 1:
            raise SpecViolation(f"{op} output count", f"{count} outputs; at least 1 is required")
        if version < 18:
            if dim % count:
                raise SpecViolation(f"{op} equal parts", f"{dim} does not split into {count} equal parts")
            return _cut(data, a, [dim // count] * count)
        size = math.ceil(dim / count)
        last = dim - size * (count - 1)
        if last < 0:
            raise SpecViolation(
                f"{op} num_outputs overrun",
                f"{count} pieces of {size} overrun the dim {dim} (last would be {last})",
            )
        return _cut(data, a, [size] * (count - 1) + [last])
    lengths = list(form.values)
    if version in (13, 18) and graph.lengths_dtype != "int64":
        raise SpecViolation(
            f"{op} split type", f"the split input is tensor(int64), not {graph.lengths_dtype}"
        )
    if version == 1 and graph.runtime("lengths"):
        _fits(lengths, dtype, "split input (type T)", op)
    if not lengths:
        raise SpecViolation(
            f"{op} output count", "an empty split list gives no output; at least 1 is required"
        )
    _lengths_tiling(lengths, dim, op)
    return _cut(data, a, lengths)


# --- PyTorch -------------------------------------------------------------------------------------


def torch(op: str, data: np.ndarray, axis: int | None, form: Form) -> Pieces:
    """torch.split, torch.chunk and torch.tensor_split as their API documentation states them."""
    a = _axis(data, 0 if axis is None else axis, op)
    dim = data.shape[a]
    if op == "torch.split":
        if form.kind == "lengths":
            _lengths_tiling(form.values, dim, op)
            return _cut(data, a, form.values)
        size = form.values[0]
        if size < 0 or (size == 0 and dim != 0):
            raise SpecViolation(f"{op} size", f"piece size {size} on a dim of {dim}")
        return _chunks(data, a, size)
    if form.kind == "indices":
        return _at_points(data, a, form.values)
    count = form.values[0]
    if count <= 0:
        raise SpecViolation(f"{op} count", f"{count} pieces; the count must be > 0")
    if op == "torch.chunk":
        return _chunks(data, a, math.ceil(dim / count)) if dim else _cut(data, a, [0] * count)
    longer = dim % count
    return _cut(data, a, [dim // count + 1] * longer + [dim // count] * (count - longer))


def emulate(
    data: np.ndarray, *, op: str, axis: int | None, form: Form, graph: GraphSpec, dtype: str
) -> Pieces:
    """Dispatch an op id to its family's function (the data first, like every split function).
    An op outside :data:`OPS` is refused rather than read as a sibling it resembles (torch.hsplit
    is not torch.tensor_split: it has no dim and needs an even count)."""
    if not any(fnmatch.fnmatchcase(op, pattern) for pattern in OPS):
        raise ValueError(f"the emulation has no rules for {op}")
    family, _, name = op.partition(".")
    if family == "openvino":
        return openvino(op, data, axis, form, graph)
    if family == "onnx":
        return onnx(int(name.rpartition("-")[2]), data, axis, form, graph, dtype)
    return torch(op, data, axis, form)


def _build(task: Task, target: Target) -> functools.partial[Pieces]:
    """The op's reading, bound to what every run shares; the request is never checked here."""
    return functools.partial(emulate, op=task.op, graph=task.graph, dtype=task.dtype)


def _run(model: functools.partial[Pieces], task: Task) -> Pieces:
    """The reading applied to this run's data, axis and request (its runtime inputs)."""
    return model(task.data, axis=task.request.axis, form=task.request.form)


#: The route: its globs name exactly :data:`OPS`; the suite's code, so it writes no reproducer.
ROUTE = Route(
    "emulated",
    OPS,
    "an independent NumPy reading of each spec text, to cross-check the reference",
    build=_build,
    run=_run,
    imports=("numpy",),
)
