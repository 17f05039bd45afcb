"""PyTorch modules for the torch.* ops, and exact conversions between NumPy and torch tensors.

Several targets judge the torch ops: the PyTorch adapter runs these modules eagerly (and through
torch.export and torch.compile), OpenVINO's PyTorch frontend converts the very same modules, and
ONNX Runtime runs them as torch.onnx.export writes them. Keeping the module builder here, in the
engine, means they all judge one program, so a difference between them is a difference between
backends, never between two hand-written copies of the request.

The split request is baked into the module as Python constants (an int or a list, exactly as the
case states it, invalid values included), the way model code calls these functions; only the data
is a forward input. Conversions move bytes, never values: bfloat16 crosses through its 16-bit
pattern because NumPy has no bfloat16 torch understands, and a float32 round trip could quiet a
signalling NaN.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import ml_dtypes
import numpy as np
import torch

from conformance.plugin import Task, backend_calls

#: The torch function each op id calls.
_FUNCTIONS: Final[dict[str, Callable[..., Any]]] = {
    "torch.split": torch.split,
    "torch.tensor_split": torch.tensor_split,
    "torch.chunk": torch.chunk,
    "torch.hsplit": torch.hsplit,
    "torch.vsplit": torch.vsplit,
    "torch.dsplit": torch.dsplit,
}

#: Which request forms each op takes, and whether that form is an int or a list argument.
_FORMS: Final[dict[str, frozenset[str]]] = {
    "torch.split": frozenset({"size", "lengths"}),
    "torch.tensor_split": frozenset({"parts", "indices"}),
    "torch.chunk": frozenset({"parts"}),
    "torch.hsplit": frozenset({"parts", "indices"}),
    "torch.vsplit": frozenset({"parts", "indices"}),
    "torch.dsplit": frozenset({"parts", "indices"}),
}
#: The functions without a ``dim`` parameter: hsplit, vsplit and dsplit pick it from the rank.
NO_DIM: Final = frozenset({"torch.hsplit", "torch.vsplit", "torch.dsplit"})
_LIST_FORMS: Final = frozenset({"lengths", "indices"})

#: torch dtype for each NumPy dtype torch.from_numpy accepts (bfloat16 goes through its bits).
_TORCH_DTYPES: Final[dict[np.dtype[Any], torch.dtype]] = {
    np.dtype(np.bool_): torch.bool,
    np.dtype(np.int8): torch.int8,
    np.dtype(np.int16): torch.int16,
    np.dtype(np.int32): torch.int32,
    np.dtype(np.int64): torch.int64,
    np.dtype(np.uint8): torch.uint8,
    np.dtype(np.uint16): torch.uint16,
    np.dtype(np.uint32): torch.uint32,
    np.dtype(np.uint64): torch.uint64,
    np.dtype(np.float16): torch.float16,
    np.dtype(np.float32): torch.float32,
    np.dtype(np.float64): torch.float64,
    np.dtype(np.complex64): torch.complex64,
    np.dtype(np.complex128): torch.complex128,
}
_BFLOAT16: Final = np.dtype(ml_dtypes.bfloat16)


class SplitModule(torch.nn.Module):
    """``forward(data)`` calls one torch split function with a request fixed at construction.

    ``argument`` is passed exactly as the case gives it (an int for a size or a section count, a
    list for lengths or indices); ``dim`` is left out of the call when None, so the function's
    own default applies, as it would in model code that omits it. hsplit, vsplit and dsplit have
    no ``dim`` parameter at all (:data:`NO_DIM`), so they are only ever built with None.
    """

    def __init__(self, op: str, argument: int | list[int], dim: int | None) -> None:
        super().__init__()
        if op not in _FUNCTIONS:
            raise ValueError(f"no torch function for op {op!r}; known: {', '.join(_FUNCTIONS)}")
        if op in NO_DIM and dim is not None:
            raise ValueError(f"{op} takes no dim (it splits along the dim its rank implies); got dim={dim}")
        self.op = op
        self.function = _FUNCTIONS[op]
        self.argument = argument
        self.dim = dim

    def forward(self, data: torch.Tensor) -> tuple[torch.Tensor, ...]:
        if self.dim is None:
            return tuple(self.function(data, self.argument))
        return tuple(self.function(data, self.argument, self.dim))

    def extra_repr(self) -> str:
        dim = "" if self.dim is None else f", dim={self.dim}"
        return f"{self.op}({self.argument!r}{dim})"


def split_argument(task: Task) -> int | list[int]:
    """The second argument of the call: an int for ``size``/``parts``, a list for ``lengths``/``indices``."""
    allowed = _FORMS.get(task.op)
    if allowed is None:
        raise ValueError(f"{task.op} is not a torch op; known: {', '.join(_FORMS)}")
    if task.form.kind not in allowed:
        raise ValueError(
            f"{task.op} takes no '{task.form.kind}' request (it takes {', '.join(sorted(allowed))})"
        )
    if task.form.kind in _LIST_FORMS:
        return [int(v) for v in task.form.values]
    return int(task.form.values[0])


def build_module(task: Task) -> SplitModule:
    """The module for ``task``: its op, its request as given and its dim (omitted when None)."""
    return SplitModule(task.op, split_argument(task), task.axis)


def example_inputs(task: Task) -> tuple[torch.Tensor, ...]:
    """The forward inputs of :func:`build_module`'s module: the data as a torch tensor."""
    return (to_torch(task.data),)


def dynamic_shapes(task: Task, *, auto: bool = False) -> dict[str, dict[int, Any]] | None:
    """``dynamic_shapes`` for ``torch.export.export`` when the case declares the data dims unknown.

    None for a static case. Every dim of ``data`` is marked dynamic: ``Dim.DYNAMIC`` makes export
    fail when tracing must specialise a dim (as a piece count that depends on the dim does), while
    ``auto=True`` gives ``Dim.AUTO``, which lets export specialise silently instead.
    """
    if task.graph.data_shape != "dynamic":
        return None
    marker = torch.export.Dim.AUTO if auto else torch.export.Dim.DYNAMIC
    return {"data": dict.fromkeys(range(task.data.ndim), marker)}


def export_dynamic_problem(task: Task) -> str | None:
    """Why torch.export cannot keep this case's dims dynamic, or None.

    By its documented design rather than by a check of the request: it specialises example dims of
    size 0 and 1. Only the example (the case's own run) matters: what the program does with a later
    run's shape, guards included, is judged. Every route that goes through torch.export (the torch
    adapter's export, ONNX's dynamo exporter, OpenVINO's conversion of an ExportedProgram,
    ExecuTorch's lowering) shares this limit. A list of split lengths on a dynamic dim is not one:
    export is handed it and raises a constraint violation (the lengths pin the dim), a refusal each
    route judges.
    """
    if task.graph.data_shape != "dynamic":
        return None
    if any(size in (0, 1) for size in task.data.shape):
        return (
            "torch.export specialises dims of size 0 or 1 in the example input, so it cannot declare them "
            "dynamic (its documented '0/1 specialization': https://pytorch.org/docs/stable/export.html)"
        )
    return None


def exported_program(task: Task) -> torch.export.ExportedProgram:
    """The task's module captured by ``torch.export.export``, its data dims ``Dim.DYNAMIC`` when the
    case declares them unknown. Tracing happens here, so torch's refusals surface here: they are
    marked as the backend's, not as this builder failing to build the request."""
    module, example, shapes = build_module(task), example_inputs(task), dynamic_shapes(task)
    with backend_calls():
        return torch.export.export(module, example, dynamic_shapes=shapes)


def module_code(task: Task) -> str:
    """Python statements defining ``Split``, the module :func:`build_module` makes for ``task``,
    and ``tensor(data)``, the bit-exact conversion of a NumPy array: what a reproducer needs to
    rebuild the module any route exports or converts."""
    argument = split_argument(task)
    dim = "" if task.axis is None else f", dim={task.axis}"
    # through the bit pattern: a float32 detour could change NaN payloads
    tensor = (
        "torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)"
        if task.dtype == "bfloat16"
        else ("torch.from_numpy(array)")
    )
    return (
        "class Split(torch.nn.Module):\n    def forward(self, x):\n"
        f"        return {task.op}(x, {argument!r}{dim})\n\n"
        f"def tensor(array):\n    return {tensor}\n"
    )


def export_code(task: Task, example: str) -> str:
    """The ``torch.export.export`` call :func:`exported_program` makes, on the tensor ``example``."""
    dynamic = (
        f", dynamic_shapes={{'x': dict.fromkeys(range({task.data.ndim}), torch.export.Dim.DYNAMIC)}}"
        if dynamic_shapes(task) is not None
        else ""
    )
    return f"torch.export.export(Split(), ({example},){dynamic})"


def torch_dtype(dtype: np.dtype[Any]) -> torch.dtype:
    """The torch dtype that holds elements of a NumPy dtype (ml_dtypes.bfloat16 included)."""
    if dtype == _BFLOAT16:
        return torch.bfloat16
    try:
        return _TORCH_DTYPES[dtype]
    except KeyError:
        raise TypeError(f"torch has no dtype for NumPy {dtype}") from None


def to_torch(array: np.ndarray) -> torch.Tensor:
    """A torch tensor with the same shape, dtype and bytes as ``array`` (a copy, never a view).

    Copying keeps the suite's data safe from a backend that writes into its input, and gives
    torch a contiguous, writable buffer whatever the array's strides.
    """
    contiguous = np.array(array, copy=True, order="C")
    if contiguous.dtype == _BFLOAT16:
        return torch.from_numpy(contiguous.view(np.uint16)).view(torch.bfloat16)
    torch_dtype(contiguous.dtype)  # TypeError for dtypes torch lacks (strings, ...)
    return torch.from_numpy(contiguous)


def to_numpy(tensor: torch.Tensor) -> np.ndarray:
    """A NumPy array with the same shape, dtype and bytes as ``tensor`` (bfloat16 as ml_dtypes)."""
    host = tensor.detach().cpu().resolve_conj().resolve_neg()
    if host.dtype == torch.bfloat16:
        return host.contiguous().view(torch.uint16).numpy().view(_BFLOAT16)
    return host.numpy()
