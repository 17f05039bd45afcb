"""The Slice family's catalogue part: its ops, and which requests each op's API can state at all.

A request an op cannot state (torch.narrow with two axes, Slice-1 with steps, a bound omitted
where only Python's slicing omits one) makes the case not applicable to it; one the API states
and the document refuses is the reference's rejection.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from conformance.corpus.case import MASK_NAMES, SLICE_INPUTS, GraphSpec, SliceArguments, SliceForm

#: the integer range an index value must fit to be written in each index type
_RANGES = {
    **{f"int{bits}": (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) for bits in (8, 16, 32, 64)},
    **{f"uint{bits}": (0, (1 << bits) - 1) for bits in (8, 16, 32, 64)},
}


@dataclass(frozen=True)
class SliceApi:
    """What an op's API can state: its forms, the index inputs it may take at run time, whether its
    indices are typed tensors (``always``, ``runtime``: only when fed, ``never``: Python ints or
    int64 attributes), and whether it has steps and omittable bounds."""

    forms: frozenset[SliceForm]
    runtime: frozenset[str]
    typed: Literal["always", "runtime", "never"]
    steps: bool = True
    omitted: bool = False


_BOUNDS: frozenset[SliceForm] = frozenset({"bounds"})
_SIZES: frozenset[SliceForm] = frozenset({"sizes"})
_STRIDED: frozenset[SliceForm] = frozenset({"strided"})
_ONNX_INPUTS = frozenset({"starts", "ends", "axes", "steps"})

#: Each Slice op's API, with the public document that defines it (docs/specs.md's short name).
APIS: dict[str, tuple[SliceApi, str]] = {
    "onnx.Slice-1": (SliceApi(_BOUNDS, frozenset(), "never", steps=False), "onnx-Slice, Slice-1"),
    **{
        f"onnx.Slice-{version}": (SliceApi(_BOUNDS, _ONNX_INPUTS, "always"), f"onnx-Slice, Slice-{version}")
        for version in (10, 11, 13)
    },
    "openvino.Slice-8": (SliceApi(_BOUNDS, _ONNX_INPUTS, "always"), "openvino-Slice-8"),
    "openvino.StridedSlice-1": (
        SliceApi(_STRIDED, frozenset({"starts", "ends", "steps"}), "always"),
        "openvino-StridedSlice-1",
    ),
    "torch.narrow": (SliceApi(_SIZES, frozenset({"starts"}), "runtime", steps=False), "pytorch-torch.narrow"),
    "torch.Tensor.__getitem__": (SliceApi(_BOUNDS, frozenset(), "never", omitted=True), "pytorch-indexing"),
    "numpy.ndarray.__getitem__": (SliceApi(_BOUNDS, frozenset(), "never", omitted=True), "numpy-indexing"),
    "tensorflow.slice": (
        SliceApi(_SIZES, frozenset({"starts", "sizes"}), "always", steps=False),
        "tensorflow-tf.slice",
    ),
    "tensorflow.strided_slice": (
        SliceApi(_STRIDED, frozenset({"starts", "ends", "steps"}), "always"),
        "tensorflow-tf.strided_slice",
    ),
}


def why_not_expressible(op: str, arguments: SliceArguments, graph: GraphSpec) -> str | None:
    """None when ``op``'s API can state the request, else a short reason it cannot."""
    api = APIS[op][0]
    if arguments.form not in api.forms:
        wanted = " or ".join(sorted(api.forms))
        return f"{op} takes the {wanted} form, not the {arguments.form} form"
    if arguments.steps is not None and not api.steps:
        return f"{op} has no steps"
    if None in arguments.starts + (arguments.ends or ()) and not api.omitted:
        how = "with begin_mask and end_mask" if api.forms == _STRIDED else "only in Python's slicing"
        return f"{op} cannot omit a bound: bounds are omitted {how}"
    fed = [name for name in SLICE_INPUTS if getattr(arguments, name) is not None and graph.runtime(name)]
    if any(name not in api.runtime for name in fed):
        allowed = ", ".join(sorted(api.runtime)) or "none"
        return f"{op} takes {', '.join(fed)} only as constants (at run time: {allowed})"
    typed = api.typed == "always" or (api.typed == "runtime" and bool(fed))
    if not typed and graph.index_dtype != "int64":
        return f"{op} takes its indices as Python ints or int64 attributes, not {graph.index_dtype} tensors"
    return _fits(arguments, graph.index_dtype if typed else "int64") or _op_shape(op, arguments)


def _fits(arguments: SliceArguments, index_dtype: str) -> str | None:
    """Every index value must be representable in the index type (a value that wraps is another case)."""
    low, high = _RANGES.get(index_dtype, _RANGES["int64"])
    values = [value for name in SLICE_INPUTS for value in getattr(arguments, name) or () if value is not None]
    outside = [value for value in values if not low <= value <= high]
    if outside:
        return f"index values {outside} do not fit {index_dtype}"
    return None


def _op_shape(op: str, arguments: SliceArguments) -> str | None:
    """The shape of the request each op's signature imposes beyond its form."""
    if op == "torch.narrow" and (len(arguments.starts) != 1 or len(arguments.axes or (0,)) != 1):
        return "torch.narrow narrows one dimension: one start, one length, at most one axis"
    if op == "tensorflow.slice" and arguments.axes is not None:
        return "tf.slice has no axes: begin and size cover every dimension"
    if op == "tensorflow.strided_slice" and arguments.masks is not None:
        highest = max((p for name in MASK_NAMES for p in getattr(arguments.masks, name)), default=0)
        if highest >= 32:
            return f"tf.strided_slice's masks are int32 bit fields: no bit for position {highest}"
    if op.endswith("__getitem__"):
        return _selection_tuple(arguments)
    return None


def _selection_tuple(arguments: SliceArguments) -> str | None:
    """``x[...]`` holds one entry per dimension, positionally: the vectors must correspond and the
    axes must be distinct and of one sign (negative ones are written after an ellipsis)."""
    lengths = {
        len(vector)
        for vector in (arguments.starts, arguments.ends, arguments.axes, arguments.steps)
        if vector is not None
    }
    if len(lengths) > 1:
        return "starts, ends, axes and steps differ in length, which no selection tuple can write"
    axes = arguments.axes or ()
    if len(set(axes)) != len(axes):
        return "a selection tuple cannot slice one dimension twice (repeated axes)"
    if axes and min(axes) < 0 <= max(axes):
        return "a selection tuple cannot mix axes counted from the front and from the back"
    return None
