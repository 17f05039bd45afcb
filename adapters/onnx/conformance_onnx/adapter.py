"""ONNX's own tools, judged like any backend: what converters, exporters and model checkers trust.

Both routes take the model of :mod:`conformance.models.onnx_graphs`, the bytes ONNX Runtime gets:

``reference``
    ``onnx.reference.ReferenceEvaluator``, ONNX's executable reading of its operator definitions,
    constructed on the model (compile) and run with the case's inputs (a sequence's tensors are the
    pieces).
``shape-inference``
    ``onnx.checker.check_model(full_check=True)`` then strict ``onnx.shape_inference.infer_shapes``
    with type checks and data propagation: how a converter decides that a model is valid and what
    its outputs look like. It computes no values, so it is judged on acceptance, output count,
    shapes and dtypes alone (``judged="shapes"``); output shapes it leaves unknown on a static case
    are a refusal to state them, judged as such.

Unsupported: Split-1, which ONNX gives neither a reference implementation nor a shape inference
function; on ``shape-inference``, cases whose output shapes depend on values fed at run time or
that run the model several times (a checker sees one model and no inputs), and SplitToSequence,
whose inferred sequence type states no piece count. Options: ``device`` (``cpu``, the only one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from conformance import dtypes, reproducers
from conformance.plugin import (
    AdapterInfo,
    AdapterOptions,
    BackendRefusal,
    Route,
    Target,
    Task,
    Unsupported,
    backend_calls,
)

if TYPE_CHECKING:
    import onnx

NAME: Final = "onnx"
DEVICE: Final = "cpu"
#: Why each route has nothing to judge on Split-1 (ONNX Runtime has the same gap).
_SPLIT1: Final = {
    "reference": "the reference evaluator has no Split implementation for opset 1: it registers Split_2, "
    "Split_11, Split_13 and Split_18 only "
    "(https://github.com/onnx/onnx/blob/main/onnx/reference/ops/op_split.py)",
    "shape-inference": "ONNX registers no shape inference for Split-1, so every output shape stays unknown: "
    "its schema has no inference function "
    "(https://github.com/onnx/onnx/blob/main/onnx/defs/tensor/old.cpp)",
}
_SEQUENCE_SHAPES: Final = (
    "shape inference types a sequence output with one tensor type for all its elements and no length: it "
    "states neither how many pieces there are nor each piece's shape (pieces of unequal lengths leave the "
    "split dim unknown), so there are no output shapes to judge"
)


def _support(task: Task, target: Target) -> Unsupported | None:
    return Unsupported(_SPLIT1[target.route]) if task.op == "onnx.Split-1" else None


def _shapes_support(task: Task, target: Target) -> Unsupported | None:
    """What a checker of one model without inputs cannot state (see the module docstring)."""
    from conformance.models import onnx_graphs

    if task.op == "onnx.Split-1":
        return Unsupported(_SPLIT1[target.route])
    if onnx_graphs.is_sequence(task.op):
        return Unsupported(_SEQUENCE_SHAPES)
    if task.runs:
        return Unsupported(
            "a shape checker judges one model and no inputs; this case runs the model several times"
        )
    if len(onnx_graphs.feeds(task)) > 1:
        return Unsupported(
            "the split lengths are a graph input: shape inference sees no value fed at run time, "
            "so the output shapes are not its to state"
        )
    if task.graph.data_shape == "dynamic":
        return Unsupported(
            "the data's dims are declared unknown: shape inference can only give symbolic shapes"
        )
    return None


def _build(task: Task, target: Target) -> onnx.ModelProto:
    """The one-node model, never checked here (the checker is what a route judges)."""
    from conformance.models import onnx_graphs

    return onnx_graphs.build_model(task)


def _evaluator(model: onnx.ModelProto, target: Target) -> Any:
    from onnx.reference import ReferenceEvaluator

    with backend_calls():
        return ReferenceEvaluator(model)


def _evaluate(evaluator: Any, task: Task) -> Sequence[np.ndarray]:
    """The evaluator's outputs, a sequence output (a list) replaced by its tensors, strings as an
    object array of ``str``."""
    from conformance.models import onnx_graphs

    with backend_calls():
        outputs = evaluator.run(None, onnx_graphs.feeds(task))
    tensors = [
        np.asarray(tensor)
        for output in outputs
        for tensor in (output if isinstance(output, list) else [output])
    ]
    return [dtypes.suite_strings(array) if array.dtype.kind in "OSU" else array for array in tensors]


def _infer(model: onnx.ModelProto, target: Target) -> onnx.ModelProto:
    """The checker and strict shape inference: the model with its inferred output types."""
    import onnx

    with backend_calls():
        onnx.checker.check_model(model, full_check=True)
        inferred: onnx.ModelProto = onnx.shape_inference.infer_shapes(
            model, check_type=True, strict_mode=True, data_prop=True
        )
    return inferred


def _inferred(inferred: onnx.ModelProto, task: Task) -> Sequence[np.ndarray]:
    """One array per graph output, of the inferred shape and element type (values mean nothing)."""
    from onnx import helper

    outputs = []
    for number, output in enumerate(inferred.graph.output):
        tensor = output.type.tensor_type
        dims = list(tensor.shape.dim) if tensor.HasField("shape") else None
        if dims is None or not all(dim.HasField("dim_value") for dim in dims):
            raise BackendRefusal(
                f"shape inference accepted the model but left output {number}'s shape unknown"
            )
        kind = np.dtype(helper.tensor_dtype_to_np_dtype(tensor.elem_type))
        outputs.append(_placeholder(tuple(dim.dim_value for dim in dims), kind))
    return outputs


def _placeholder(shape: tuple[int, ...], kind: np.dtype[Any]) -> np.ndarray:
    """A read-only broadcast view of one element, so a huge output costs nothing. A shape no array
    can have (a negative dim, or more elements than NumPy can index) gets 0 for the offending dims:
    the output is still there, and the request still judged as accepted."""
    one = np.full((), "", dtype=object) if dtypes.name_of(kind) == "string" else np.zeros((), dtype=kind)
    try:
        return np.broadcast_to(one, tuple(max(size, 0) for size in shape))
    except ValueError:  # too many elements to index
        return np.broadcast_to(one, tuple(size if 0 <= size < 2**31 else 0 for size in shape))


_LOAD: Final = "model = onnx.load_from_string(model)\n"


def _evaluator_reproducer(task: Task, target: Target) -> str:
    """The model byte for byte, the evaluator on it, and each run's feeds."""
    from conformance.models import onnx_graphs

    load = f"{_LOAD}from onnx.reference import ReferenceEvaluator\n\nevaluator = ReferenceEvaluator(model)\n"
    call = reproducers.session_call("evaluator", sequence=onnx_graphs.is_sequence(task.op))
    return onnx_graphs.snippet(task, "import onnx\n\n", load, call)


def _shapes_reproducer(task: Task, target: Target) -> str:
    """The model byte for byte, the checker and strict shape inference, and the inferred shapes."""
    from conformance.models import onnx_graphs

    shown = (  # a sequence output has one element type and no count: what the route cannot judge
        "print(inferred.graph.output[0].type)\n"
        if onnx_graphs.is_sequence(task.op)
        else "dims = [o.type.tensor_type.shape.dim for o in inferred.graph.output]\n"
        "print([[d.dim_value for d in shape] for shape in dims])\n"
    )
    check = (
        "onnx.checker.check_model(model, full_check=True)\n"
        "inferred = onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True, "
        "data_prop=True)\n"
    )
    return onnx_graphs.snippet(task, "import onnx\n\n", _LOAD + check + shown, None)


def _prepare(target: Target) -> None:
    """Import onnx and its reference runtime before the first item is timed."""
    import onnx.reference  # noqa: F401


REFERENCE: Final = Route(
    "reference",
    ("onnx.Split*", "onnx.Slice-*"),
    "onnx.reference.ReferenceEvaluator runs the model (ONNX's executable reading)",
    build=_build,
    compile=_evaluator,
    run=_evaluate,
    support=_support,
    reproducer=_evaluator_reproducer,
    prepare=_prepare,
    imports=("onnx.reference",),
)
SHAPE_INFERENCE: Final = Route(
    "shape-inference",
    ("onnx.Split*", "onnx.Slice-*"),
    "onnx.checker full check and strict shape inference; judged on acceptance and output shapes, not values",
    build=_build,
    compile=_infer,
    run=_inferred,
    support=_shapes_support,
    reproducer=_shapes_reproducer,
    judged="shapes",
    imports=("onnx",),
)
ROUTES: Final = (REFERENCE, SHAPE_INFERENCE)


class OnnxToolsAdapter:
    """ONNX's reference evaluator and shape inference as targets (see the module docstring)."""

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = AdapterOptions.parse(options, devices=(DEVICE,))

    def info(self) -> AdapterInfo:
        import onnx

        return AdapterInfo(
            name=NAME,
            backend="onnx",
            version=onnx.__version__,
            routes=ROUTES,
            devices=self.options.devices,
            options=self.options.resolved,
        )
