"""PaddlePaddle calls and programs for the paddle.* ops, and exact conversions between NumPy and Paddle.

The paddle adapter (eager and ``paddle.jit.to_static``) and ONNX Runtime (through paddle2onnx) are
handed the same program, so a difference between them is a difference between backends.

- One call as model code writes it: ``paddle.<name>(x, value, axis=...)``, the axis left out when
  the case omits it; the axis a Python int, or a 0-D Tensor of ``graph.axis_dtype`` when the case
  types it or feeds it at run time.
- ``to_static`` reads the source of the function it traces, so those functions live in this file.
- bfloat16 crosses as its uint16 bit patterns (NumPy's uint16 becomes Paddle's bfloat16, so Paddle
  cannot hold uint16 data, nor uint32, uint64 or strings).

Paddle is imported lazily: the engine does not need it installed.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np

from conformance import dtypes
from conformance.plugin import ImpossibleOutput, Task, backend_calls

AXIS: Final = "axis"
#: What a NumPy dtype of the suite becomes on the way into Paddle, where it is not itself.
_CARRIER: Final = {"bfloat16": np.uint16}


def function_name(task: Task) -> str:
    return task.op.removeprefix("paddle.")


def value(task: Task) -> int | list[int]:
    """The split value as the call takes it: an int count, or a list of sizes or indices."""
    form = task.request.form.value
    return list(form) if isinstance(form, tuple) else form


def axis_fed(task: Task) -> bool:
    """Whether the axis is an input of the traced program (fed at run time)."""
    return task.request.axis is not None and task.graph.runtime(AXIS)


def axis_is_tensor(task: Task) -> bool:
    """Whether the call takes its axis as a 0-D Tensor rather than a Python int."""
    return task.request.axis is not None and (axis_fed(task) or task.graph.axis_dtype != "int64")


def to_paddle(array: np.ndarray) -> Any:
    """A Paddle tensor with the array's bytes (bfloat16 through its bit patterns)."""
    import paddle

    carrier = _CARRIER.get(dtypes.name_of(array.dtype))
    return paddle.to_tensor(array if carrier is None else array.view(carrier))


def to_numpy(tensor: Any, dtype: str) -> np.ndarray:
    """A piece back as the suite's dtype, bit for bit."""
    array = np.asarray(tensor.numpy())
    return array.view(dtypes.numpy_dtype(dtype)) if dtype in _CARRIER else array


def pieces_to_numpy(pieces: Sequence[Any], dtype: str) -> list[np.ndarray]:
    """The pieces back as arrays; ImpossibleOutput for a shape no array can have (sizes whose sum
    wraps int64)."""
    impossible = ImpossibleOutput.found([list(piece.shape) for piece in pieces], dtype)
    if impossible is not None:
        raise impossible
    return [to_numpy(piece, dtype) for piece in pieces]


def axis_tensor(task: Task) -> Any:
    """The axis of ``task``'s run as a 0-D Tensor of the case's axis type."""
    import paddle

    return paddle.to_tensor(np.array(task.request.axis, dtype=dtypes.numpy_dtype(task.graph.axis_dtype)))


def eager(task: Task) -> list[np.ndarray]:
    """The function called on a tensor of the task's data, the pieces converted back."""
    import paddle

    function = getattr(paddle, function_name(task))
    with backend_calls():
        x = to_paddle(task.data)
        given = task.request.axis
        axis = {} if given is None else {"axis": axis_tensor(task) if axis_is_tensor(task) else given}
        pieces = function(x, value(task), **axis)
    return pieces_to_numpy(pieces, task.dtype)


def split_function(task: Task) -> Callable[..., Any]:
    """The Python function ``to_static`` traces: the data (and a fed axis) in, the pieces out."""
    import paddle

    function = getattr(paddle, function_name(task))
    split_value, axis = value(task), task.request.axis
    if axis is None:

        def split(x: Any) -> Any:
            return function(x, split_value)

    elif axis_fed(task):

        def split(x: Any, axis: Any) -> Any:  # type: ignore[misc]
            return function(x, split_value, axis=axis)

    elif axis_is_tensor(task):
        axis_type = task.graph.axis_dtype

        def split(x: Any) -> Any:
            return function(x, split_value, axis=paddle.full([], axis, axis_type))  # type: ignore[arg-type]

    else:

        def split(x: Any) -> Any:
            return function(x, split_value, axis=axis)

    return split


def input_spec(task: Task) -> list[Any]:
    """The InputSpec of every input: the data (None dims when dynamic), then a fed axis."""
    from paddle.static import InputSpec

    rank = task.data.ndim
    shape = [None] * rank if task.graph.data_shape == "dynamic" else list(task.data.shape)
    # Paddle's stubs list dtype names as literals; the suite's names are the same strings
    specs = [InputSpec(shape, task.dtype, name="x")]  # type: ignore[arg-type]
    if axis_fed(task):
        specs.append(InputSpec([], task.graph.axis_dtype, name=AXIS))  # type: ignore[arg-type]
    return specs


def static_function(task: Task) -> Any:
    """The program ``paddle.jit.to_static`` traces with :func:`input_spec` (traced here, at build)."""
    import paddle

    with backend_calls():
        program = paddle.jit.to_static(split_function(task), input_spec=input_spec(task), full_graph=True)
        program.concrete_program  # noqa: B018  # traces now: a refusal while tracing is Paddle's answer
    return program


def inputs(task: Task) -> list[Any]:
    """One run's inputs as Paddle tensors: the data, then a fed axis (the run's own)."""
    fed = [to_paddle(task.data)]
    if axis_fed(task):
        fed.append(axis_tensor(task))
    return fed


def feeds(task: Task) -> dict[str, np.ndarray]:
    """One run's inputs by the names the saved program gives them (``x``, ``axis``), in the suite's
    dtypes: what a runtime of the exported model is fed."""
    named = {"x": task.data}
    if axis_fed(task):
        named[AXIS] = np.array(task.request.axis, dtype=dtypes.numpy_dtype(task.graph.axis_dtype))
    return named


def save(task: Task, prefix: str) -> str:
    """The traced program written by ``paddle.jit.save`` at ``prefix``; returns the program file's
    path (``prefix.json``)."""
    import paddle

    program = static_function(task)
    with backend_calls(), warnings.catch_warnings():
        # "What you save is a function" and "no variable in your model": true of every item
        warnings.simplefilter("ignore", UserWarning)
        paddle.jit.save(program, prefix)
    return prefix + ".json"


def run_static(program: Any, task: Task) -> list[np.ndarray]:
    """One run of the traced program on the task's inputs."""
    with backend_calls():
        pieces: Sequence[Any] = program(*inputs(task))
    return pieces_to_numpy(pieces, task.dtype)


def call_code(task: Task, axis_code: str | None) -> str:
    """The call as a reproducer writes it, ``x`` the data and ``axis_code`` the axis expression."""
    axis = "" if axis_code is None else f", axis={axis_code}"
    return f"paddle.{function_name(task)}(x, {value(task)!r}{axis})"


#: A reproducer's conversion into Paddle (the one :func:`to_paddle` makes), defining ``tensor``.
CONVERT_CODE: Final = (
    "def tensor(array):  # bfloat16 crosses as its bit patterns (NumPy uint16 is Paddle's bfloat16)\n"
    "    return paddle.to_tensor(array.view(np.uint16) if array.dtype.name == 'bfloat16' else array)\n\n"
)


def axis_code(task: Task) -> str | None:
    """The axis of ``task``'s run as a reproducer's call passes it: an int, or a 0-D Tensor."""
    if task.request.axis is None:
        return None
    if axis_is_tensor(task):
        return f"paddle.to_tensor(np.array({task.request.axis}, dtype=np.{task.graph.axis_dtype}))"
    return str(task.request.axis)


def program_code(task: Task) -> str:
    """Statements defining ``program`` as :func:`static_function` traces it, from a file written to
    ``folder``; they need importlib.util, pathlib, tempfile, paddle and ``InputSpec`` imported."""
    fed = axis_fed(task)
    axis = "axis" if fed else axis_code(task)
    if axis is not None and not fed and axis_is_tensor(task):
        axis = f"paddle.full([], {task.request.axis}, '{task.graph.axis_dtype}')"
    shape = [None] * task.data.ndim if task.graph.data_shape == "dynamic" else list(task.data.shape)
    specs = f"InputSpec({shape!r}, '{task.dtype}', name='x')"
    if fed:
        specs += f", InputSpec([], '{task.graph.axis_dtype}', name='{AXIS}')"
    parameters = "x, axis" if fed else "x"
    source = f"import paddle\n\n\ndef split({parameters}):\n    return {call_code(task, axis)}\n"
    return (
        f"# paddle.jit.to_static reads the function's source: it must live in a file\nSOURCE = {source!r}\n"
        "folder = pathlib.Path(tempfile.mkdtemp())\n(folder / 'split_program.py').write_text(SOURCE)\n"
        "spec = importlib.util.spec_from_file_location('split_program', folder / 'split_program.py')\n"
        "module = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(module)\n"
        f"program = paddle.jit.to_static(module.split, input_spec=[{specs}], full_graph=True)\n"
    )


def warm_split(x: Any) -> Any:
    """A first trace for a worker to make before its first item (``prepare``)."""
    import paddle

    return paddle.split(x, 2)
