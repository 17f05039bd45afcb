"""TensorFlow functions for TensorFlow's Slice ops, ``tf.slice`` and ``tf.strided_slice``.

The Slice counterpart of :mod:`conformance.models.tf_functions` (whose conversions it shares): one
call written as a TensorFlow user writes it, ``tf.slice(data, begin, size)`` or
``tf.strided_slice(data, begin, end, strides, begin_mask=...)`` with the masks as the integers
TensorFlow takes (only those set). The index vectors are tensors of the case's
``graph.index_dtype``: constants in the function, or its inputs where ``graph.runtime`` feeds
them (strides left out where the case gives no steps, so the op's default is judged). Every
route that starts from a tf.function (TensorFlow's own, and the converters') can take it from
here, so that they all judge one program.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from conformance import dtypes
from conformance.corpus.case import MASK_NAMES, SliceArguments
from conformance.models.tf_functions import DATA, tf_dtype, to_tf
from conformance.plugin import Task, backend_calls

if TYPE_CHECKING:
    import tensorflow as tf  # type: ignore[import-untyped]  # TensorFlow ships no type information

SLICE: Final = "tensorflow.slice"
STRIDED_SLICE: Final = "tensorflow.strided_slice"
#: The index parameters of each op in call order, as (case key, TensorFlow's parameter name).
PARAMETERS: Final[dict[str, tuple[tuple[str, str], ...]]] = {
    SLICE: (("starts", "begin"), ("sizes", "size")),
    STRIDED_SLICE: (("starts", "begin"), ("ends", "end"), ("steps", "strides")),
}
OPS: Final = frozenset(PARAMETERS)
#: The name of the Python function the tf.function traces (reproducers call it by this name).
FUNCTION: Final = "sliced"


def _arguments(task: Task) -> SliceArguments:
    """The task's Slice request; another op's task reaching here is a caller's bug."""
    if task.op not in OPS or not isinstance(task.request, SliceArguments):
        raise ValueError(
            f"{task.op} is not built as a TensorFlow Slice function; known: {', '.join(sorted(OPS))}"
        )
    return task.request


def parameters(task: Task) -> tuple[tuple[str, str], ...]:
    """The index parameters the request gives, as (case key, parameter name): strides only with steps."""
    arguments = _arguments(task)
    return tuple((key, name) for key, name in PARAMETERS[task.op] if getattr(arguments, key) is not None)


def runtime_inputs(task: Task) -> tuple[str, ...]:
    """The parameters the traced function takes as inputs besides the data, in call order."""
    return tuple(name for key, name in parameters(task) if task.graph.runtime(key))


def input_names(task: Task) -> tuple[str, ...]:
    """Every input of the traced function, in order: the data, then :func:`runtime_inputs`."""
    return (DATA, *runtime_inputs(task))


def index_array(task: Task, name: str) -> np.ndarray:
    """The index vector of parameter ``name`` in the case's ``index_dtype`` (the catalogue hands
    over only values that type holds)."""
    key = dict((parameter, key) for key, parameter in parameters(task))[name]
    values = np.asarray(getattr(task.request, key), dtype=np.int64).reshape(-1)
    return values.astype(dtypes.numpy_dtype(task.graph.index_dtype))


#: tf.strided_slice's page types each mask as "an int32 mask": bits 0 to 31.
MASK_BITS: Final = 32


def mask_keywords(task: Task) -> dict[str, int]:
    """tf.strided_slice's masks as the int32 values it takes, only those set (none for tf.slice)."""
    masks = _arguments(task).masks
    if task.op != STRIDED_SLICE or masks is None:
        return {}
    return {f"{name}_mask": _int32(masks.bits(name)) for name in MASK_NAMES if masks.bits(name)}


def _int32(bits: int) -> int:
    """A mask of bits 0 to 31 as the int32 value that holds them (bit 31 is its sign bit)."""
    return bits - (1 << MASK_BITS) if bits >= 1 << (MASK_BITS - 1) else bits


def feeds(task: Task) -> dict[str, np.ndarray]:
    """The inputs of one run of the traced function (this task's run), by name in
    :func:`input_names` order, in the suite's dtypes (:func:`tensors` converts them)."""
    return {DATA: task.data} | {name: index_array(task, name) for name in runtime_inputs(task)}


def tensors(task: Task) -> list[tf.Tensor]:
    """:func:`feeds` as TensorFlow tensors, in input order: what the traced function is called with."""
    return [to_tf(array) for array in feeds(task).values()]


def signature(task: Task) -> tuple[tuple[list[int | None], str, str], ...]:
    """The traced function's inputs as (shape, dtype, name), data dims None when dynamic."""
    shape = list(task.case.data.shape)
    data_shape: list[int | None] = [None] * len(shape) if task.graph.data_shape == "dynamic" else shape
    indices = [
        ([len(index_array(task, name))], task.graph.index_dtype, name) for name in runtime_inputs(task)
    ]
    return ((data_shape, task.dtype, DATA), *indices)


def input_signature(task: Task) -> tuple[tf.TensorSpec, ...]:
    """The traced function's ``input_signature``: :func:`signature` as TensorSpecs."""
    import tensorflow as tf

    return tuple(tf.TensorSpec(shape, tf_dtype(dtype), name=name) for shape, dtype, name in signature(task))


def call(task: Task, inputs: Mapping[str, Any]) -> list[tf.Tensor]:
    """The op called once on ``inputs`` (by name; :data:`DATA` at least), eagerly or while tracing;
    an index parameter missing from ``inputs`` is the request's constant. One output, in a list as
    the Split ops' pieces are."""
    import tensorflow as tf

    indices = [
        inputs[name] if name in inputs else tf.constant(index_array(task, name))
        for _, name in parameters(task)
    ]
    function = tf.slice if task.op == SLICE else tf.strided_slice
    return [function(inputs[DATA], *indices, **mask_keywords(task))]


def python_function(task: Task) -> Callable[..., list[tf.Tensor]]:
    """The Python function a ``tf.function`` traces: positional inputs in :func:`input_names` order."""
    names = input_names(task)

    def sliced(*inputs: tf.Tensor) -> list[tf.Tensor]:
        return call(task, dict(zip(names, inputs, strict=True)))

    sliced.__name__ = FUNCTION
    return sliced


def tf_function(task: Task, *, jit_compile: bool = False) -> Any:
    """The ``tf.function``, not yet traced, with :func:`input_signature` (autograph off: no control
    flow to convert); ``jit_compile=True`` makes XLA compile it at its first call."""
    import tensorflow as tf

    return tf.function(
        python_function(task), input_signature=input_signature(task), autograph=False, jit_compile=jit_compile
    )


def concrete_function(task: Task, *, jit_compile: bool = False) -> tf.types.experimental.ConcreteFunction:
    """The traced ``ConcreteFunction``; TensorFlow's refusals while tracing are marked its own."""
    function = tf_function(task, jit_compile=jit_compile)
    with backend_calls():
        return function.get_concrete_function()


# --- the same function as source code, for the reproducers of every route that starts from it ---


def call_code(task: Task, names: tuple[str, ...]) -> str:
    """The op's call as model code writes it, reading the inputs ``names`` by name (``data``, and
    the index parameters the traced function takes); the other indices are typed constants."""
    arguments = [DATA]
    for _, name in parameters(task):
        array = index_array(task, name)
        constant = f"tf.constant({array.tolist()!r}, tf.{task.graph.index_dtype})"
        arguments.append(name if name in names else constant)
    arguments += [f"{keyword}={bits}" for keyword, bits in mask_keywords(task).items()]
    function = "tf.slice" if task.op == SLICE else "tf.strided_slice"
    return f"{function}({', '.join(arguments)})"


def function_code(task: Task, *, jit_compile: bool = False) -> str:
    """Statements defining :data:`FUNCTION`, the concrete function :func:`concrete_function` traces,
    for reproducers; they need ``tensorflow as tf`` imported above them."""
    names = input_names(task)
    specs = ", ".join(
        f"tf.TensorSpec({shape!r}, tf.{dtype}, name={name!r})" for shape, dtype, name in signature(task)
    )
    jit = ", jit_compile=True" if jit_compile else ""
    return (
        f"def {FUNCTION}({', '.join(names)}):\n    return {call_code(task, names)}\n\n"
        f"{FUNCTION} = tf.function({FUNCTION}, input_signature=[{specs}], autograph=False{jit})"
        ".get_concrete_function()\n"
    )
