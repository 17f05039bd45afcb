"""The Slice family's reference semantics: each op id's rules (:data:`RULES`), the one entry point
that turns a broken rule into a rejection (:func:`slice_answer`), and which requests an op can
express at all (:func:`expressible`), so the catalogue marks the others not applicable instead of
judging an op on a request its API cannot state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Literal

from conformance.families.slicing import library_slice, onnx_slice, openvino_slice, tensorflow_slice
from conformance.families.slicing.request import SliceArguments, SliceForm, SliceGraph, SliceRequest
from conformance.families.slicing.window import Window
from conformance.oracle.reference.answer import SpecAnswer
from conformance.oracle.reference.rules import RuleViolation

RULES: dict[str, Callable[[SliceRequest], SpecAnswer | Window]] = {
    **{f"onnx.Slice-{version}": partial(onnx_slice.slice_op, version) for version in onnx_slice.VERSIONS},
    "openvino.Slice-8": openvino_slice.slice_8,
    "openvino.StridedSlice-1": openvino_slice.strided_slice_1,
    "torch.narrow": library_slice.torch_narrow,
    "torch.Tensor.__getitem__": library_slice.torch_getitem,
    "numpy.ndarray.__getitem__": library_slice.numpy_getitem,
    "tensorflow.slice": tensorflow_slice.slice_,
    "tensorflow.strided_slice": tensorflow_slice.strided_slice,
}


def slice_answer(op: str, request: SliceRequest) -> SpecAnswer:
    """What the document of ``op`` says ``request`` must give: a window, or a rejection naming its
    rule (several readings where the document admits them)."""
    try:
        rules = RULES[op]
    except KeyError:
        raise LookupError(f"the reference has no Slice rules for op {op!r}") from None
    try:
        return SpecAnswer.wrap(rules(request))
    except RuleViolation as violation:
        return SpecAnswer.of(violation.rejection)


INDEX_NAMES = ("starts", "ends", "axes", "steps", "sizes")
#: the integer range an index value must fit to be written in each index type
_RANGES = {
    **{f"int{bits}": (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) for bits in (8, 16, 32, 64)},
    **{f"uint{bits}": (0, (1 << bits) - 1) for bits in (8, 16, 32, 64)},
}


@dataclass(frozen=True)
class _Api:
    """What an op's API can state: its forms, the index inputs it may take at run time, whether its
    indices are typed tensors (``always``, ``runtime``: only when fed, ``never``: Python ints or
    int64 attributes), and whether it has steps and omittable bounds."""

    forms: frozenset[SliceForm]
    runtime: frozenset[str]
    typed: Literal["always", "runtime", "never"]
    steps: bool = True
    omitted: bool = False


_BOUNDS, _SIZES, _STRIDED = frozenset({"bounds"}), frozenset({"sizes"}), frozenset({"strided"})
_APIS = {
    "onnx.Slice-1": _Api(_BOUNDS, frozenset(), "never", steps=False),
    **{
        f"onnx.Slice-{version}": _Api(_BOUNDS, frozenset({"starts", "ends", "axes", "steps"}), "always")
        for version in (10, 11, 13)
    },
    "openvino.Slice-8": _Api(_BOUNDS, frozenset({"starts", "ends", "axes", "steps"}), "always"),
    "openvino.StridedSlice-1": _Api(_STRIDED, frozenset({"starts", "ends", "steps"}), "always"),
    "torch.narrow": _Api(_SIZES, frozenset({"starts"}), "runtime", steps=False),
    "torch.Tensor.__getitem__": _Api(_BOUNDS, frozenset(), "never", omitted=True),
    "numpy.ndarray.__getitem__": _Api(_BOUNDS, frozenset(), "never", omitted=True),
    "tensorflow.slice": _Api(_SIZES, frozenset({"starts", "sizes"}), "always", steps=False),
    "tensorflow.strided_slice": _Api(_STRIDED, frozenset({"starts", "ends", "steps"}), "always"),
}


def expressible(op: str, arguments: SliceArguments, graph: SliceGraph) -> str | None:
    """None when ``op``'s API can state the request, else a short reason it cannot (the case is then
    not applicable to ``op``; a request it can state but its document refuses is a rejection)."""
    api = _APIS[op]
    if arguments.form not in api.forms:
        wanted = " or ".join(sorted(api.forms))
        return f"{op} takes the {wanted} form, not the {arguments.form} form"
    if arguments.form != "sizes" and arguments.ends is None:
        return "a bounds or strided request gives ends"
    if arguments.steps is not None and not api.steps:
        return f"{op} has no steps"
    if None in arguments.starts + (arguments.ends or ()) and not api.omitted:
        how = "with begin_mask and end_mask" if api.forms == _STRIDED else "only in Python's slicing"
        return f"{op} cannot omit a bound: bounds are omitted {how}"
    fed = [name for name in INDEX_NAMES if getattr(arguments, name) is not None and graph.runtime(name)]
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
    values = [value for name in INDEX_NAMES for value in getattr(arguments, name) or () if value is not None]
    outside = [value for value in values if not low <= value <= high]
    if outside:
        return f"index values {outside} do not fit {index_dtype}"
    return None


def _op_shape(op: str, arguments: SliceArguments) -> str | None:
    """The shape of the request each op's signature imposes beyond its form."""
    if op == "torch.narrow" and (len(arguments.starts) != 1 or len(arguments.axes or (0,)) != 1):
        return "torch.narrow narrows one dimension: one start, one length, at most one axis"
    if arguments.form == "strided" and arguments.axes is not None:
        return "a strided slice has no axes: its entries address the dimensions in order"
    if op == "tensorflow.slice" and arguments.axes is not None:
        return "tf.slice has no axes: begin and size cover every dimension"
    if arguments.masks is not None and any(
        position < 0
        for name in ("begin", "end", "ellipsis", "new_axis", "shrink_axis")
        for position in getattr(arguments.masks, name)
    ):
        return "mask positions are indices into begin, end and strides, so 0 or more"
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
