"""The op catalogue: every versioned op the suite judges, and which cases each can express.

"Can express" is about the op's interface, not validity: ONNX Split-1 can be handed int32 data
(its spec then rejects it), torch.split cannot be handed strings at all. A case an op cannot
express is *not applicable*: no result rather than a failure.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from conformance import dtypes
from conformance.corpus import slice_ops
from conformance.corpus.case import Case, Family, FormKind, InputPlacement, SliceArguments
from conformance.errors import UsageError

#: Graph options, by the interface feature that makes them expressible.
_AXIS_INPUT = frozenset({"axis_dtype", "axis_shape"})
_RUNTIME = frozenset({"inputs"})
_DYNAMIC = frozenset({"data_shape"})
_DECLARED = frozenset({"declared_outputs"})

#: The forms whose split value is a typed input (``lengths_dtype``), where more than ``lengths``.
_TYPED_FORMS: dict[str, tuple[FormKind, ...]] = {"onnx.SplitToSequence-11": ("lengths", "size")}

#: Split-18's forbidden graphs: "both" adds num_outputs next to a split input (a lengths
#: request), "neither" leaves out num_outputs for a piece count (a parts request).
_NUM_OUTPUTS_FORM: dict[str, FormKind] = {"both": "lengths", "neither": "parts"}


@dataclass(frozen=True)
class OpEntry:
    """One versioned op: what it accepts as a request and where its definition lives."""

    id: str
    #: the namespace the op belongs to (``onnx``, ``torch`` ...)
    framework: str
    #: the forms of request it takes (Split: FormKind; Slice: SliceForm)
    forms: frozenset[str]
    #: graph options the op can express (see GraphSpec); others must stay at their defaults
    graph_options: frozenset[str]
    #: data dtypes the op's interface can carry; whether its spec *allows* them is the reference's call
    dtypes: frozenset[str]
    #: True when the axis is a required input, so a case must state it
    axis_required: bool
    #: the public document that defines the op (its short name in docs/specs.md) and its section
    document: str
    #: the inputs (``axis``, ``lengths``) the op takes as model inputs, by form: what ``graph.inputs``
    #: can feed at run time
    inputs: tuple[tuple[FormKind, frozenset[str]], ...] = ()
    #: Whether a case's shared ``expect`` pins this op. True for the ops the corpus was written
    #: against; an op added later is pinned by ``expect.by_op`` or a case citing its document, so
    #: adding it needs no edit of cases that say nothing about it.
    shared_expect: bool = True
    #: False for hsplit, vsplit and dsplit, which choose their axis from the data's rank
    takes_axis: bool = True
    #: the operator family whose cases it is judged on
    family: Family = "split"

    def inputs_for(self, kind: FormKind) -> frozenset[str]:
        """The inputs the op can feed at run time for a request of this form."""
        return next((names for form, names in self.inputs if form == kind), frozenset())


_OV_TYPES = frozenset(dtypes.ALL) - frozenset(dtypes.COMPLEX)  # OpenVINO has no complex element type
_TORCH_TYPES = frozenset(dtypes.ALL) - frozenset(dtypes.STRING)  # torch has no string tensors
_ALL_TYPES = frozenset(dtypes.ALL)

_ONNX_DOCUMENT = "onnx-Split"


def _onnx(version: int, forms: frozenset[FormKind], graph_options: frozenset[str]) -> OpEntry:
    return OpEntry(
        id=f"onnx.Split-{version}",
        framework="onnx",
        forms=forms,
        graph_options=graph_options | _DYNAMIC | _DECLARED,
        dtypes=_ALL_TYPES,
        axis_required=False,
        document=f"{_ONNX_DOCUMENT}, Split-{version}",
        inputs=(("lengths", _LENGTHS),) if graph_options >= _RUNTIME else (),
    )


_LENGTHS_OR_PARTS: frozenset[FormKind] = frozenset({"lengths", "parts"})
_PARTS: frozenset[FormKind] = frozenset({"parts"})
_PARTS_OR_INDICES: frozenset[FormKind] = frozenset({"parts", "indices"})
_AXIS = frozenset({"axis"})
_LENGTHS = frozenset({"lengths"})
#: The split value as a traced argument of a jitted JAX function (``graph.inputs: runtime``).
_JAX_TRACED: tuple[tuple[FormKind, frozenset[str]], ...] = (("parts", _LENGTHS), ("indices", _LENGTHS))
_NO_STRINGS = frozenset(dtypes.ALL) - frozenset(dtypes.STRING)
#: The element types a Paddle Tensor holds (no unsigned type but uint8, no strings); which of them a
#: page allows is the reference's call.
_PADDLE_TYPES = _NO_STRINGS - {"uint16", "uint32", "uint64"}
_PADDLE_GRAPH = _RUNTIME | _DYNAMIC | {"axis_dtype"}
#: The axis is the input a traced Paddle program can take, whatever the form.
_PADDLE_AXIS_INPUT: tuple[tuple[FormKind, frozenset[str]], ...] = tuple(
    (kind, _AXIS) for kind in ("lengths", "parts", "indices")
)


def _later_op(
    op_id: str,
    forms: frozenset[FormKind],
    dtype_set: frozenset[str],
    document: str | None = None,
    *,
    graph_options: frozenset[str] = frozenset(),
    inputs: tuple[tuple[FormKind, frozenset[str]], ...] = (),
    takes_axis: bool = True,
    shared_expect: bool = False,
) -> OpEntry:
    """An op whose axis is optional, documented by default on the page named for it
    (``pytorch-torch.split``); one added after the corpus was written is pinned by a shared
    ``expect`` only where the case cites its document."""
    framework = op_id.partition(".")[0]
    site = {"torch": "pytorch"}.get(framework, framework)
    return OpEntry(
        op_id,
        framework,
        forms,
        graph_options,
        dtype_set,
        False,
        document or f"{site}-{op_id}",
        inputs=inputs,
        shared_expect=shared_expect,
        takes_axis=takes_axis,
    )


def _library_op(
    op_id: str, forms: frozenset[FormKind], graph_options: frozenset[str], dtype_set: frozenset[str]
) -> OpEntry:
    """A torch or numpy function the corpus was written against, so a shared ``expect`` pins it."""
    return _later_op(op_id, forms, dtype_set, graph_options=graph_options, shared_expect=True)


def _directional(library: str, dtype_set: frozenset[str], **jax: Any) -> tuple[OpEntry, ...]:
    """hsplit, vsplit and dsplit of a library: no axis parameter, a count or split points."""
    return tuple(
        _later_op(f"{library}.{name}", _PARTS_OR_INDICES, dtype_set, takes_axis=False, **jax)
        for name in ("hsplit", "vsplit", "dsplit")
    )


#: What each Slice op's model can be built with beside its request (see slice_ops for the request).
_SLICE_GRAPH = {
    "onnx.Slice-1": _DYNAMIC,
    "torch.Tensor.__getitem__": _DYNAMIC,
    "numpy.ndarray.__getitem__": frozenset(),
}
_SLICE_TYPES = {"openvino": _OV_TYPES, "torch": _TORCH_TYPES}


def _slice_op(op_id: str) -> OpEntry:
    """A Slice-family op: its API and document are slice_ops'; typed index inputs may be fed at
    run time and carry ``index_dtype``."""
    api, document = slice_ops.APIS[op_id]
    framework = op_id.partition(".")[0]
    default_graph = _RUNTIME | _DYNAMIC | {"index_dtype"} if api.typed != "never" else _DYNAMIC
    return OpEntry(
        op_id,
        framework,
        frozenset(api.forms),
        _SLICE_GRAPH.get(op_id, default_graph),
        _SLICE_TYPES.get(framework, _ALL_TYPES),
        False,
        document,
        family="slice",
    )


OPS: dict[str, OpEntry] = {
    op.id: op
    for op in (
        OpEntry(
            "openvino.Split-1",
            "openvino",
            _PARTS,
            _AXIS_INPUT | _RUNTIME | _DYNAMIC,
            _OV_TYPES,
            True,
            "openvino-Split-1",
            inputs=(("parts", _AXIS),),
        ),
        OpEntry(
            "openvino.VariadicSplit-1",
            "openvino",
            frozenset({"lengths"}),
            _AXIS_INPUT | _RUNTIME | _DYNAMIC | {"lengths_dtype"},
            _OV_TYPES,
            True,
            "openvino-VariadicSplit-1",
            inputs=(("lengths", _AXIS | _LENGTHS),),
        ),
        # Split-1: split as attribute (constant) or as a second input of type T (runtime).
        _onnx(1, _LENGTHS_OR_PARTS, _RUNTIME),
        _onnx(2, _LENGTHS_OR_PARTS, frozenset()),
        _onnx(11, _LENGTHS_OR_PARTS, frozenset()),
        _onnx(13, _LENGTHS_OR_PARTS, _RUNTIME | {"lengths_dtype"}),
        _onnx(18, _LENGTHS_OR_PARTS, _RUNTIME | {"lengths_dtype", "num_outputs"}),
        _library_op("torch.split", frozenset({"lengths", "size"}), _DYNAMIC, _TORCH_TYPES),
        _library_op("torch.tensor_split", frozenset({"parts", "indices"}), _DYNAMIC, _TORCH_TYPES),
        _library_op("torch.chunk", _PARTS, _DYNAMIC, _TORCH_TYPES),
        _library_op("numpy.split", _PARTS_OR_INDICES, frozenset(), _ALL_TYPES),
        _library_op("numpy.array_split", _PARTS_OR_INDICES, frozenset(), _ALL_TYPES),
        # tf.split: a count (raw Split) or sizes (raw SplitV, whose Tlen is the lengths' type);
        # the axis defaults to 0, and axis and sizes can be graph inputs of a traced function.
        _later_op(
            "tensorflow.split",
            _LENGTHS_OR_PARTS,
            _ALL_TYPES,
            "tensorflow-tf.split",
            graph_options=_RUNTIME | _DYNAMIC | {"lengths_dtype"},
            inputs=(("lengths", _AXIS | _LENGTHS), ("parts", _AXIS)),
        ),
        _later_op(
            "tensorflow.experimental.numpy.split",
            _PARTS_OR_INDICES,
            _ALL_TYPES,
            "tensorflow-tf.experimental.numpy.split",
        ),
        # LiteRT builtins: the axis is always an input tensor; the converter decides the sizes' type.
        OpEntry(
            "tflite.SPLIT",
            "tflite",
            _PARTS,
            _RUNTIME | _DYNAMIC,
            _ALL_TYPES,
            True,
            "litert-SPLIT",
            shared_expect=False,
            inputs=(("parts", _AXIS),),
        ),
        OpEntry(
            "tflite.SPLIT_V",
            "tflite",
            frozenset({"lengths"}),
            _RUNTIME | _DYNAMIC,
            _ALL_TYPES,
            True,
            "litert-SPLIT_V",
            shared_expect=False,
            inputs=(("lengths", _AXIS | _LENGTHS),),
        ),
        # SplitToSequence: an optional split input (1-D lengths or a scalar size), one sequence output.
        _later_op(
            "onnx.SplitToSequence-11",
            frozenset({"lengths", "size"}),
            _ALL_TYPES,
            "onnx-SplitToSequence, SplitToSequence-11",
            graph_options=_RUNTIME | _DYNAMIC | {"lengths_dtype", "keepdims", "split_input"},
            inputs=(("lengths", _LENGTHS), ("size", _LENGTHS)),
        ),
        *_directional("numpy", _ALL_TYPES),
        *_directional("torch", _TORCH_TYPES),
        # JAX's jax.numpy functions (NumPy's texts) and its lax primitive.
        *(
            _later_op(
                f"jax.numpy.{name}",
                _PARTS_OR_INDICES,
                _NO_STRINGS,
                graph_options=_RUNTIME,
                inputs=_JAX_TRACED,
            )
            for name in ("split", "array_split")
        ),
        *_directional("jax.numpy", _NO_STRINGS, graph_options=_RUNTIME, inputs=_JAX_TRACED),
        _later_op(
            "jax.lax.split",
            frozenset({"lengths"}),
            _NO_STRINGS,
            graph_options=_RUNTIME,
            inputs=(("lengths", _LENGTHS),),
        ),
        _later_op("keras.ops.split", _PARTS_OR_INDICES, _NO_STRINGS),
        # CuPy's functions (NumPy's texts, on a GPU): eager calls on a cupy.ndarray, no graph to feed
        _later_op("cupy.split", _PARTS_OR_INDICES, _NO_STRINGS),
        _later_op("cupy.array_split", _PARTS_OR_INDICES, _NO_STRINGS),
        *_directional("cupy", _NO_STRINGS),
        # MLX and TensorFlow.js: eager calls. Their adapters refuse the types they would silently
        # convert (unsupported); only MLX's strings cannot be handed at all.
        _later_op("mlx.core.split", _PARTS_OR_INDICES, _NO_STRINGS),
        _later_op("tfjs.split", _LENGTHS_OR_PARTS, _ALL_TYPES, "tfjs-tf.split"),
        # PaddlePaddle's functions: eager calls, and programs traced by paddle.jit.to_static.
        *(
            _later_op(
                f"paddle.{name}", forms, _PADDLE_TYPES, graph_options=_PADDLE_GRAPH, inputs=_PADDLE_AXIS_INPUT
            )
            for name, forms in (
                ("split", _LENGTHS_OR_PARTS),
                ("tensor_split", _PARTS_OR_INDICES),
                ("chunk", _PARTS),
            )
        ),
        *_directional("paddle", _PADDLE_TYPES, graph_options=_DYNAMIC),
        *(_slice_op(op_id) for op_id in slice_ops.APIS),
    )
}


def get(op_id: str) -> OpEntry:
    try:
        return OPS[op_id]
    except KeyError:
        raise UsageError(f"unknown op {op_id!r}; known: {', '.join(OPS)}") from None


def match(patterns: Iterable[str]) -> list[str]:
    """Op ids matching any of the ids or glob patterns (``onnx.*``), in catalogue order."""
    wanted = list(patterns)
    return [op for op in OPS if any(fnmatch.fnmatchcase(op, p) for p in wanted)]


def op_order(op: str) -> tuple[int, str]:
    """A sort key that lists ops in catalogue order (unknown ones after, by name)."""
    order = list(OPS)
    return (order.index(op), op) if op in order else (len(order), op)


def pinned_by_shared_expect(case: Case, op: OpEntry) -> bool:
    """Whether the case's shared ``expect`` speaks for ``op`` (see :attr:`OpEntry.shared_expect`)."""
    return op.shared_expect or op.document.partition(",")[0] in case.source


def why_not_applicable(case: Case, op: OpEntry) -> str | None:
    """None when ``op`` can express ``case``; otherwise the reason it cannot."""
    if op.family != case.family:
        return f"{op.id} is a {op.family} op; the case asks a {case.family}"
    if isinstance(case.request, SliceArguments):
        return _why_not_slice(case, case.request, op)
    if case.form.kind not in op.forms:
        return f"{op.id} takes no '{case.form.kind}' (it takes {', '.join(sorted(op.forms))})"
    if case.data.dtype not in op.dtypes:
        return f"{op.id} cannot carry {case.data.dtype} data"
    if op.axis_required and case.axis is None:
        return f"{op.id} needs an axis input and the case gives none"
    if not op.takes_axis and case.axis is not None:
        return f"{op.id} takes no axis (it splits along the axis its document names for the data's rank)"
    options = case.graph.non_default()
    extra = options - op.graph_options
    if extra:
        return f"{op.id} cannot express graph option(s) {', '.join(sorted(extra))}"
    fed = op.inputs_for(case.form.kind)
    if "inputs" in options and not fed:
        return f"{op.id} has no input to feed at run time for a '{case.form.kind}' request"
    placed = case.graph.inputs.runtime() if isinstance(case.graph.inputs, InputPlacement) else frozenset()
    missing = sorted((placed | case.runtime_changes()) - fed)
    if missing:
        return f"{op.id} takes the {missing[0]} as an attribute, not as an input it could feed at run time"
    if case.graph.declared_outputs is not None and not _declares_outputs(case, op):
        return f"a '{case.form.kind}' request is itself the output count, so declared_outputs cannot differ"
    typed = _TYPED_FORMS.get(op.id, ("lengths",))
    if "lengths_dtype" in options and case.form.kind not in typed:
        return f"lengths_dtype applies to a {' or '.join(repr(kind) for kind in typed)} request only"
    wanted = _NUM_OUTPUTS_FORM.get(case.graph.num_outputs)
    if wanted and case.form.kind != wanted:
        return f"num_outputs: {case.graph.num_outputs} needs a '{wanted}' request"
    return None


def _why_not_slice(case: Case, request: SliceArguments, op: OpEntry) -> str | None:
    """:func:`why_not_applicable` for a Slice case."""
    if case.data.dtype not in op.dtypes:
        return f"{op.id} cannot carry {case.data.dtype} data"
    extra = case.graph.non_default() - op.graph_options
    if extra:
        return f"{op.id} cannot express graph option(s) {', '.join(sorted(extra))}"
    return slice_ops.why_not_expressible(op.id, request, case.graph)


def _declares_outputs(case: Case, op: OpEntry) -> bool:
    """Whether the node's output count is free of the request: lengths, or Split-18's num_outputs
    (before Split-18, and without num_outputs, a piece count *is* the number of outputs)."""
    if case.form.kind == "lengths":
        return True
    return op.id == "onnx.Split-18" and case.graph.num_outputs != "neither"


def applicable_ops(case: Case) -> list[str]:
    """The ops a case targets: its ``ops`` patterns (or every op), minus those that cannot express it."""
    candidates = match(case.ops) if case.ops is not None else list(OPS)
    return [op for op in candidates if why_not_applicable(case, OPS[op]) is None]
