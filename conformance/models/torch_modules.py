"""PyTorch modules for the torch.* ops, and exact conversions between NumPy and torch tensors.

Every route judging the torch ops (eager, torch.export, torch.compile, OpenVINO's frontend, ONNX
exports) gets the same module, so a difference between them is a difference between backends. The
request is baked in as Python constants, as given; only the data is a forward input. bfloat16
crosses through its 16-bit pattern: a float32 round trip could quiet a signalling NaN.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import ml_dtypes
import numpy as np
import torch

from conformance import dtypes
from conformance.models.torch_code import FORMS, split_argument
from conformance.plugin import Task, backend_calls

#: The torch function each op id calls.
_FUNCTIONS: Final[dict[str, Callable[..., Any]]] = {
    op: getattr(torch, op.removeprefix("torch.")) for op in FORMS
}
#: The functions without a ``dim`` parameter: hsplit, vsplit and dsplit pick it from the rank.
NO_DIM: Final = frozenset({"torch.hsplit", "torch.vsplit", "torch.dsplit"})

#: torch dtype for each NumPy dtype torch.from_numpy accepts (bfloat16 goes through its bits).
_TORCH_DTYPES: Final[dict[np.dtype[Any], torch.dtype]] = {
    np.dtype(name): getattr(torch, name) for name in dtypes.ALL if name not in ("bfloat16", "string")
}
_BFLOAT16: Final = np.dtype(ml_dtypes.bfloat16)


class SplitModule(torch.nn.Module):
    """``forward(data)`` calls one torch split function with a request fixed at construction:
    ``argument`` as the case gives it, ``dim`` left out when None so the default is judged."""

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
        dim = () if self.dim is None else (self.dim,)
        return tuple(self.function(data, self.argument, *dim))

    def extra_repr(self) -> str:
        dim = "" if self.dim is None else f", dim={self.dim}"
        return f"{self.op}({self.argument!r}{dim})"


def build_module(task: Task) -> SplitModule:
    """The module for ``task``: its op, its request as given and its dim (omitted when None)."""
    return SplitModule(task.op, split_argument(task), task.request.axis)


def example_inputs(task: Task) -> tuple[torch.Tensor, ...]:
    """The forward inputs of :func:`build_module`'s module: the data as a torch tensor."""
    return (to_torch(task.data),)


def dynamic_shapes(task: Task, *, auto: bool = False) -> dict[str, dict[int, Any]] | None:
    """``dynamic_shapes`` for ``torch.export.export`` when the case declares the data dims unknown
    (else None): ``Dim.DYNAMIC``, with which export fails where it must specialise a dim, or with
    ``auto`` ``Dim.AUTO``, which specialises silently."""
    if task.graph.data_shape != "dynamic":
        return None
    marker = torch.export.Dim.AUTO if auto else torch.export.Dim.DYNAMIC
    return {"data": dict.fromkeys(range(task.data.ndim), marker)}


def export_dynamic_problem(task: Task) -> str | None:
    """Why torch.export cannot keep this case's dims dynamic, or None: by design it specialises
    example dims of size 0 and 1 (only the case's own run is the example). Every route through
    torch.export shares this limit; split lengths pinning a dynamic dim are a refusal to judge.
    """
    if task.graph.data_shape != "dynamic" or not any(size in (0, 1) for size in task.data.shape):
        return None
    return (
        "torch.export specialises dims of size 0 or 1 in the example input, so it cannot declare them "
        "dynamic (its documented '0/1 specialization': https://pytorch.org/docs/stable/export.html)"
    )


def exported_program(task: Task) -> torch.export.ExportedProgram:
    """The task's module captured by ``torch.export.export`` (:func:`dynamic_shapes`); torch's
    refusals while tracing are marked as the backend's."""
    module, example, shapes = build_module(task), example_inputs(task), dynamic_shapes(task)
    with backend_calls():
        return torch.export.export(module, example, dynamic_shapes=shapes)


def torch_dtype(dtype: np.dtype[Any]) -> torch.dtype:
    """The torch dtype that holds elements of a NumPy dtype (ml_dtypes.bfloat16 included)."""
    if dtype == _BFLOAT16:
        return torch.bfloat16
    try:
        return _TORCH_DTYPES[dtype]
    except KeyError:
        raise TypeError(f"torch has no dtype for NumPy {dtype}") from None


def to_torch(array: np.ndarray) -> torch.Tensor:
    """A copy of ``array`` as a torch tensor, same shape, dtype and bytes: the suite's data is safe
    from a backend that writes into its input, and torch gets a contiguous, writable buffer."""
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
