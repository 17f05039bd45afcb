"""TensorFlow functions for the TensorFlow split ops, and exact conversions between NumPy and TensorFlow.

The TensorFlow adapter (eager, traced, XLA), LiteRT, OpenVINO and tf2onnx are all handed the *same*
program for an item, so a difference between them is a difference between backends: one
``tf.split`` (which LiteRT converts to ``SPLIT`` / ``SPLIT_V``) or ``tf.experimental.numpy.split``
call with the request as given, the axis left out where the case omits it (so the op's own default
is judged), and the axis and the sizes inputs of the traced function where ``graph.runtime`` says so.

TensorFlow is imported lazily: the engine does not need it installed (the zygote imports it before
forking workers, with thread variables under which it starts no thread).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from conformance import dtypes
from conformance.plugin import Task, backend_calls

if TYPE_CHECKING:
    import tensorflow as tf  # type: ignore[import-untyped]  # TensorFlow ships no type information

DATA: Final = "data"
AXIS: Final = "axis"
LENGTHS: Final = "lengths"

#: Ops built as one ``tf.split`` call (LiteRT's builtins are what the converter makes of it).
TF_SPLIT_OPS: Final = frozenset({"tensorflow.split", "tflite.SPLIT", "tflite.SPLIT_V"})
#: Ops built as one ``tf.experimental.numpy.split`` call.
TNP_SPLIT_OPS: Final = frozenset({"tensorflow.experimental.numpy.split"})
#: The axis input's type: raw Split's and SplitV's ``split_dim`` is an int32 scalar.
AXIS_DTYPE: Final = "int32"


def tf_dtype(name: str) -> tf.DType:
    """The TensorFlow dtype of a suite dtype name (every name in ``conformance.dtypes.ALL``)."""
    import tensorflow as tf

    return tf.string if name == "string" else tf.as_dtype(dtypes.numpy_dtype(name))


def lengths_dtype(task: Task) -> str:
    """The sizes' element type: the case's ``lengths_dtype``; int32 for the ``tflite.*`` ops."""
    return "int32" if task.op.startswith("tflite.") else task.graph.lengths_dtype


def runtime_inputs(task: Task) -> tuple[str, ...]:
    """The names of the inputs besides the data that the traced function takes, in order."""
    names: list[str] = []
    if task.op in TF_SPLIT_OPS:
        if task.request.axis is not None and task.graph.runtime(AXIS):
            names.append(AXIS)
        if task.request.form.kind == "lengths" and task.graph.runtime(LENGTHS):
            names.append(LENGTHS)
    return tuple(names)


def input_names(task: Task) -> tuple[str, ...]:
    """Every input of the traced function, in order: the data, then :func:`runtime_inputs`."""
    return (DATA, *runtime_inputs(task))


def lengths_array(task: Task) -> np.ndarray:
    """The sizes as a 1-D array of :func:`lengths_dtype`, cast from int64 (two's complement wrap)."""
    values = np.asarray(task.request.form.values, dtype=np.int64).reshape(-1)
    return values.astype(dtypes.numpy_dtype(lengths_dtype(task)))


def build_problem(task: Task) -> str | None:
    """Why the function cannot be built as the case states it, or None: an axis fed at run time is
    int32 and cannot hold a larger one (a constant axis is a Python int, which TensorFlow judges)."""
    for run in task.every_run:
        why = _axis_problem(run)
        if why:
            return why
    return None


def _axis_problem(task: Task) -> str | None:
    axis = task.request.axis
    if AXIS not in runtime_inputs(task) or axis is None:
        return None
    low, high = dtypes.integer_range(AXIS_DTYPE)
    if low <= axis <= high:
        return None
    return (
        f"the axis input is {AXIS_DTYPE}, which cannot hold the axis {axis}: raw Split and SplitV "
        "type split_dim as int32 (https://www.tensorflow.org/api_docs/python/tf/raw_ops/Split)"
    )


def feeds(task: Task) -> dict[str, np.ndarray]:
    """The inputs of one run of the traced function (this task's run), by name in
    :func:`input_names` order, in the suite's dtypes (:func:`tensors` converts them)."""
    why = _axis_problem(task)
    if why:
        raise ValueError(why)
    result = {DATA: task.data}
    for name in runtime_inputs(task):
        if name == AXIS:
            result[AXIS] = np.asarray(task.request.axis, dtype=dtypes.numpy_dtype(AXIS_DTYPE))
        else:
            result[LENGTHS] = lengths_array(task)
    return result


def tensors(task: Task) -> list[tf.Tensor]:
    """:func:`feeds` as TensorFlow tensors, in input order: what the traced function is called with."""
    return [to_tf(array) for array in feeds(task).values()]


def signature(task: Task) -> tuple[tuple[list[int | None], str, str], ...]:
    """The traced function's inputs as (shape, dtype, name), data dims None when dynamic; the
    suite's dtype names are TensorFlow's, so reproducers need not import TensorFlow."""
    shape = tuple(task.case.data.shape)
    data_shape: list[int | None] = [None] * len(shape) if task.graph.data_shape == "dynamic" else list(shape)
    specs = [(data_shape, task.dtype, DATA)]
    for name in runtime_inputs(task):
        if name == AXIS:
            specs.append(([], AXIS_DTYPE, AXIS))
        else:
            specs.append(([len(task.request.form.values)], lengths_dtype(task), LENGTHS))
    return tuple(specs)


def input_signature(task: Task) -> tuple[tf.TensorSpec, ...]:
    """The traced function's ``input_signature``: :func:`signature` as TensorSpecs."""
    import tensorflow as tf

    return tuple(tf.TensorSpec(shape, tf_dtype(dtype), name=name) for shape, dtype, name in signature(task))


def signature_code(task: Task) -> str:
    """:func:`signature` as the TensorSpecs model code writes, comma-separated. Text only: the
    run's parent writes reproducers and must not import TensorFlow (4 s of every run's end)."""
    return ", ".join(
        f"tf.TensorSpec({shape!r}, tf.{dtype}, name={name!r})" for shape, dtype, name in signature(task)
    )


def call(task: Task, inputs: Mapping[str, Any]) -> list[tf.Tensor]:
    """The op called once on ``inputs`` (by name; :data:`DATA` at least), eagerly or while tracing;
    an input missing from ``inputs`` is the request's constant."""
    import tensorflow as tf

    if task.op not in TF_SPLIT_OPS | TNP_SPLIT_OPS:
        known = ", ".join(sorted(TF_SPLIT_OPS | TNP_SPLIT_OPS))
        raise ValueError(f"{task.op} is not built as a TensorFlow function; known: {known}")
    axis = inputs.get(AXIS, task.request.axis)
    keywords = {} if axis is None else {"axis": axis}
    form = task.request.form
    if task.op in TNP_SPLIT_OPS:
        argument: Any = list(form.values) if form.kind == "indices" else int(form.values[0])
        return list(tf.experimental.numpy.split(inputs[DATA], argument, **keywords))
    if form.kind == "lengths":
        argument = inputs[LENGTHS] if LENGTHS in inputs else tf.constant(lengths_array(task))
    else:
        argument = int(form.values[0])
    return list(tf.split(inputs[DATA], argument, **keywords))


def python_function(task: Task) -> Callable[..., list[tf.Tensor]]:
    """The Python function a ``tf.function`` traces: positional inputs in :func:`input_names` order."""
    names = input_names(task)

    def split(*inputs: tf.Tensor) -> list[tf.Tensor]:
        return call(task, dict(zip(names, inputs, strict=True)))

    split.__name__ = "split"
    return split


def tf_function(task: Task, *, jit_compile: bool = False) -> Any:
    """The ``tf.function``, not yet traced, with :func:`input_signature` (autograph off: no control
    flow to convert); ``jit_compile=True`` makes XLA compile it."""
    import tensorflow as tf

    return tf.function(
        python_function(task), input_signature=input_signature(task), autograph=False, jit_compile=jit_compile
    )


def split_function(task: Task, *, jit_compile: bool = False) -> tf.types.experimental.ConcreteFunction:
    """The traced ``ConcreteFunction`` of the task; TensorFlow's refusals while tracing surface here,
    marked as TensorFlow's."""
    function = tf_function(task, jit_compile=jit_compile)
    with backend_calls():
        return function.get_concrete_function()


def to_tf(array: np.ndarray) -> tf.Tensor:
    """A copy of ``array`` as a tensor, same shape, dtype and bytes (a backend that writes into its
    input cannot touch the suite's data); strings cross as UTF-8."""
    import tensorflow as tf

    if array.dtype == object:
        encoded = np.array([str(item).encode("utf-8") for item in array.reshape(-1)], dtype=object)
        return tf.constant(encoded.reshape(array.shape), dtype=tf.string)
    return tf.constant(np.array(array, copy=True, order="C"))


def to_numpy(tensor: tf.Tensor) -> np.ndarray:
    """An array with the same shape, dtype and bytes as ``tensor``, in the suite's types (strings as
    ``str``, bytes that are not UTF-8 kept as surrogate escapes: a value mismatch, not a failure)."""
    import tensorflow as tf

    raw = tensor.numpy()
    if tensor.dtype != tf.string:
        return np.asarray(raw)
    return dtypes.suite_strings(raw, tuple(tensor.shape))  # a 0-d tensor gives bare bytes


def to_numpy_all(outputs: Sequence[tf.Tensor]) -> list[np.ndarray]:
    """Every output converted by :func:`to_numpy`, in order."""
    return [to_numpy(output) for output in outputs]


# --- the same function as source code, for the reproducers of every route that starts from it ---


def _argument_code(task: Task, names: tuple[str, ...]) -> str:
    """The call's second argument: a count, split points, the sizes input, or the sizes constant."""
    form = task.request.form
    if form.kind != "lengths":
        return repr(list(form.values) if form.kind == "indices" else int(form.values[0]))
    if LENGTHS in names:
        return LENGTHS
    sizes = lengths_array(task)
    return f"tf.constant(np.array({sizes.tolist()!r}, dtype=np.{sizes.dtype.name}))"


def call_code(task: Task, names: tuple[str, ...]) -> str:
    """The op's call as model code writes it, reading the inputs ``names`` by name (``data``, and
    ``axis`` or ``lengths`` where they are inputs of the traced function)."""
    function = "tf.experimental.numpy.split" if task.op in TNP_SPLIT_OPS else "tf.split"
    axis = "" if task.request.axis is None else f", axis={task.request.axis}"
    if AXIS in names:
        axis = f", axis={AXIS}"
    return f"{function}({DATA}, {_argument_code(task, names)}{axis})"


def function_code(task: Task, *, jit_compile: bool = False) -> str:
    """Statements defining ``split``, the concrete function :func:`split_function` traces, for
    reproducers; they need ``numpy as np`` and ``tensorflow as tf`` imported above them."""
    jit = ", jit_compile=True" if jit_compile else ""
    return (
        f"{split_code(task)}\n\n"
        f"split = tf.function(split, input_signature=[{signature_code(task)}], autograph=False{jit})"
        ".get_concrete_function()\n"
    )


def split_code(task: Task) -> str:
    """The Python function ``split`` as model code writes it, not yet traced."""
    names = input_names(task)
    return f"def split({', '.join(names)}):\n    return {call_code(task, names)}\n"
