"""LiteRT models for the TensorFlow split and slice functions: the converted flatbuffer, the builtin
operators it really holds, and a run in the LiteRT interpreter, the same flatbuffer for every route.

The converter keeps its defaults (builtin operators only: select-TF-ops would run TensorFlow's
kernels inside LiteRT), and its refusal is LiteRT's answer. A ``tflite.SPLIT`` / ``SPLIT_V`` model
must be exactly that builtin, as the flatbuffer itself says (not an interpreter already rewritten
by delegates); else the request cannot be built here (:class:`NotTraced`, :class:`NotEmitted`) and
is ``unsupported``. The ``tensorflow.*`` ops are judged as converted, whatever operators the
converter chose: for ``tf.slice`` and ``tf.strided_slice`` it writes the ``SLICE`` builtin where
every stride is 1 and ``STRIDED_SLICE`` otherwise (a ``RESHAPE`` beside it for a new axis);
:func:`slice_builtins` says which of the two a model holds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from conformance import dtypes
from conformance.plugin import BACKEND_ORIGIN_ATTRIBUTE, AdapterError, BackendRefusal, Task, backend_calls

if TYPE_CHECKING:
    from ai_edge_litert.interpreter import Interpreter

#: The builtin operator each ``tflite.*`` op id names.
BUILTINS: Final[dict[str, str]] = {"tflite.SPLIT": "SPLIT", "tflite.SPLIT_V": "SPLIT_V"}
#: The builtins the converter writes for tf.slice and tf.strided_slice.
SLICE_BUILTINS: Final = frozenset({"SLICE", "STRIDED_SLICE"})
#: How much of TensorFlow's refusal a :class:`NotTraced` message quotes.
_QUOTED: Final = 300


class NotEmitted(ValueError):
    """The converter did not turn the request into exactly one of the builtin operators judged."""


class NotTraced(ValueError):
    """TensorFlow refused to trace the function a builtin would be converted from."""


def traced_function(task: Task) -> Any:
    """The task's traced ``tf.function``: :mod:`conformance.models.tf_slices` builds the Slice ops',
    :mod:`conformance.models.tf_functions` the Split ops'."""
    from conformance.models import tf_functions, tf_slices

    if task.op in tf_slices.OPS:
        return tf_slices.concrete_function(task)
    return tf_functions.split_function(task)


def feeds(task: Task) -> dict[str, np.ndarray]:
    """The inputs of one run of :func:`traced_function` by name, which the model's signature keeps."""
    from conformance.models import tf_functions, tf_slices

    return tf_slices.feeds(task) if task.op in tf_slices.OPS else tf_functions.feeds(task)


def model_bytes(task: Task) -> bytes:
    """The converted flatbuffer of ``task`` (see the module docstring for what is refused)."""
    if task.op not in BUILTINS:
        return convert(traced_function(task))
    model = convert(_traced_for_builtin(task))
    require_only(model, task.op)
    return model


def build_problem(task: Task) -> str | None:
    """Why a ``tflite.*`` task cannot be built, or None: the builtins take the axis and SPLIT_V's
    sizes as int32 tensors, so a larger value would wrap and judge another request."""
    if task.op not in BUILTINS:
        return None
    low, high = dtypes.integer_range("int32")
    for request in (run.request for run in task.every_run):
        axis, form = request.axis, request.form
        if axis is not None and not low <= axis <= high:
            return f"{BUILTINS[task.op]} takes the axis as a 32-bit integer tensor: it cannot hold {axis}"
        outside = [size for size in form.values if form.kind == "lengths" and not low <= size <= high]
        if outside:
            return f"SPLIT_V takes size_splits as a 32-bit integer tensor: it cannot hold {outside[0]}"
    return None


def _traced_for_builtin(task: Task) -> Any:
    """The traced function of a ``tflite.*`` task; TensorFlow's refusal to trace it becomes
    :class:`NotTraced` (any other exception, a builder's defect, goes through as it is)."""
    from conformance.models import tf_functions

    try:
        return tf_functions.split_function(task)
    except Exception as error:
        if not (isinstance(error, BackendRefusal) or getattr(error, BACKEND_ORIGIN_ATTRIBUTE, False)):
            raise
        said = " ".join(str(error).split())
        said = said if len(said) <= _QUOTED else said[:_QUOTED] + " ..."
        raise NotTraced(
            f"TensorFlow refused to trace the tf.split that the converter turns into {BUILTINS[task.op]}, "
            f"so LiteRT never received the request: {type(error).__name__}: {said}"
        ) from error


def convert(function: Any) -> bytes:
    """The flatbuffer ``TFLiteConverter.from_concrete_functions`` writes with default settings.

    The traced ``function`` goes with a ``tf.Module`` as its trackable object, as TensorFlow's
    documentation does: without one the converter takes its deprecated frozen-graph path. The
    model then carries a ``serving_default`` signature, by whose names :func:`invoke` feeds and reads.
    """
    import tensorflow as tf  # type: ignore[import-untyped]  # TensorFlow ships no type information

    with backend_calls():
        converter = tf.lite.TFLiteConverter.from_concrete_functions([function], tf.Module())
        model: bytes = converter.convert()
    return model


def operators(model: bytes) -> tuple[str, ...]:
    """The operators of every subgraph of ``model`` in execution order, by their builtin names
    (``SPLIT``, ``STRIDED_SLICE``; a custom operator as ``CUSTOM:<name>``)."""
    from ai_edge_litert import schema_py_generated as schema

    names = {value: name for name, value in vars(schema.BuiltinOperator).items() if not name.startswith("_")}
    root = schema.Model.GetRootAs(model, 0)
    found: list[str] = []
    for index in range(root.SubgraphsLength()):
        graph = root.Subgraphs(index)
        for position in range(graph.OperatorsLength()):
            code = root.OperatorCodes(graph.Operators(position).OpcodeIndex())
            # builtin codes past 127 live in BuiltinCode; older writers set only the deprecated byte
            builtin = max(code.BuiltinCode(), code.DeprecatedBuiltinCode())
            if builtin == schema.BuiltinOperator.CUSTOM:
                found.append(f"CUSTOM:{(code.CustomCode() or b'').decode()}")
            else:
                found.append(names.get(builtin, str(builtin)))
    return tuple(found)


def describe(found: tuple[str, ...]) -> str:
    """``STRIDED_SLICE x3, RESHAPE``: a converted model's operators in a message."""
    if not found:
        return "no operator at all (every output folded to a constant or passed through)"
    counts = Counter(found)
    return ", ".join(name if counts[name] == 1 else f"{name} x{counts[name]}" for name in counts)


def slice_builtins(model: bytes) -> tuple[str, ...]:
    """The ``SLICE`` and ``STRIDED_SLICE`` operators ``model`` holds, in execution order: none where
    the converter folded the slice away."""
    return tuple(name for name in operators(model) if name in SLICE_BUILTINS)


def require_only(model: bytes, op: str) -> None:
    """Raise :class:`NotEmitted` unless ``model`` holds exactly one operator, the builtin ``op``
    names: only then does running it judge that builtin."""
    wanted = BUILTINS[op]
    found = operators(model)
    if found != (wanted,):
        raise NotEmitted(f"the converter emitted {describe(found)}, not one {wanted}")


def load(model: bytes, *, delegates: bool, threads: int = 1) -> Interpreter:
    """The interpreter for ``model``, with LiteRT's default delegates or the builtin kernels alone.
    A model with unknown dims is allocated by :func:`invoke` at a run's shapes (at the placeholder
    dims of 1 a SPLIT would refuse a split no run asked for)."""
    from ai_edge_litert import interpreter

    kinds = interpreter.OpResolverType
    resolver = kinds.AUTO if delegates else kinds.BUILTIN_WITHOUT_DEFAULT_DELEGATES
    with backend_calls():
        loaded = interpreter.Interpreter(
            model_content=model, experimental_op_resolver_type=resolver, num_threads=threads
        )
        if not is_dynamic(loaded):
            loaded.allocate_tensors()
    return loaded


def is_dynamic(loaded: Interpreter) -> bool:
    """Whether any input of the model has a dim declared unknown (-1 in its shape signature)."""
    return any(-1 in detail["shape_signature"] for detail in loaded.get_input_details())


def _signature(loaded: Interpreter) -> tuple[dict[str, int], list[int]]:
    """Tensor indices of the inputs by name and of the outputs in the function's order, from the
    ``serving_default`` signature (the converter reorders output tensors), else the subgraph's."""
    signatures = loaded.get_signature_list()
    if not signatures:
        inputs = {detail["name"]: detail["index"] for detail in loaded.get_input_details()}
        return inputs, [detail["index"] for detail in loaded.get_output_details()]
    runner = loaded.get_signature_runner(next(iter(signatures)))
    inputs = {name: detail["index"] for name, detail in runner.get_input_details().items()}
    outputs = runner.get_output_details()
    ordered = sorted(outputs, key=lambda name: int(name.rpartition("_")[2]))
    return inputs, [outputs[name]["index"] for name in ordered]


def invoke(loaded: Interpreter, feeds: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    """Feed ``feeds`` by input name, run, and return a copy of every output in the function's order
    (:func:`invoke_indexed`)."""
    inputs, outputs = _signature(loaded)
    if set(inputs) != set(feeds):
        # the traced function and its feeds disagree: a defect, never a refusal by LiteRT
        raise AdapterError(f"the model's inputs are {', '.join(inputs)}; fed: {', '.join(feeds)}")
    arrays = {name: np.array(array, copy=True, order="C") for name, array in feeds.items()}
    with backend_calls():
        return invoke_indexed(loaded, inputs, outputs, arrays)


def invoke_indexed(
    loaded: Interpreter, inputs: Mapping[str, int], outputs: Sequence[int], arrays: Mapping[str, np.ndarray]
) -> list[np.ndarray]:
    """Set each input tensor (by index) to its array, run, and copy the outputs (by index) in order;
    a model with unknown dims is resized and allocated again first, as an application does. The
    caller wraps it in ``backend_calls``."""
    if is_dynamic(loaded):
        for name, index in inputs.items():
            loaded.resize_tensor_input(index, list(arrays[name].shape))
        loaded.allocate_tensors()
    for name, index in inputs.items():
        loaded.set_tensor(index, arrays[name])
    loaded.invoke()
    details = {detail["index"]: detail for detail in loaded.get_output_details()}
    return [output_array(loaded, details[index]) for index in outputs]


def output_array(loaded: Interpreter, detail: Mapping[str, Any]) -> np.ndarray:
    """A copy of one output after ``invoke``, strings as ``str``. An empty output is made from the
    shape and type the interpreter reports: ``get_tensor`` refuses a zero-size tensor allocated at
    run time (tensorflow/tensorflow#57084)."""
    shape = tuple(int(size) for size in detail["shape"])
    if 0 in shape:
        return np.empty(shape, dtype=detail["dtype"])
    array = np.array(loaded.get_tensor(detail["index"]), copy=True)
    return dtypes.suite_strings(array) if array.dtype.kind in "OS" else array
