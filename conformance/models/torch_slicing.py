"""PyTorch modules for the torch Slice ops: ``torch.narrow`` and basic slicing
(``torch.Tensor.__getitem__``), written as a PyTorch user writes them.

As for the split ops (conformance.models.torch_modules), every route judging these ops gets the same
module, the request baked in as given: narrow's ``dim``, ``start`` and ``length``, or the selection
tuple ``x[1:3, ..., ::2]`` (conformance.reproducers.selection). Only the data is a forward input,
and narrow's start where the case feeds ``starts`` at run time: a 0-dim tensor of
``graph.index_dtype``, which narrow's page allows ("start (int or Tensor)").
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from conformance import dtypes, reproducers
from conformance.models import torch_modules
from conformance.models.torch_slice_code import NARROW, narrow_arguments, slice_arguments, start_fed
from conformance.plugin import Task, backend_calls


class Narrow(torch.nn.Module):
    """``forward(data[, start])`` returns ``(torch.narrow(data, dim, start, length),)``: the start a
    constant, or (``start`` None at construction) the tensor handed to forward."""

    def __init__(self, dim: int, start: int | None, length: int) -> None:
        super().__init__()
        self.dim, self.start, self.length = dim, start, length

    def forward(self, data: torch.Tensor, start: torch.Tensor | None = None) -> tuple[torch.Tensor]:
        given: Any = self.start if start is None else start  # narrow takes an int or a Tensor
        return (torch.narrow(data, self.dim, given, self.length),)

    def extra_repr(self) -> str:
        start = "<input>" if self.start is None else self.start
        return f"torch.narrow(dim={self.dim}, start={start}, length={self.length})"


class Getitem(torch.nn.Module):
    """``forward(data)`` returns ``(data[selection],)``, basic slicing with a fixed selection tuple."""

    def __init__(self, selection: tuple[Any, ...]) -> None:
        super().__init__()
        self.selection = selection

    def forward(self, data: torch.Tensor) -> tuple[torch.Tensor]:
        return (data[self.selection],)

    def extra_repr(self) -> str:
        return f"x[{self.selection!r}]"


def build_module(task: Task) -> Narrow | Getitem:
    """The module for ``task``'s request (see the module docstring)."""
    if task.op == NARROW:
        dim, start, length = narrow_arguments(task)
        return Narrow(dim, None if start_fed(task) else start, length)
    return Getitem(reproducers.selection(slice_arguments(task)))


def example_inputs(task: Task) -> tuple[torch.Tensor, ...]:
    """The forward inputs for this run of the task: the data, and narrow's start where it is fed
    (converted from int64 to the index type; the catalogue hands over only values that fit it)."""
    data = torch_modules.to_torch(task.data)
    if not start_fed(task):
        return (data,)
    start = np.asarray(narrow_arguments(task)[1], dtype=np.int64)
    return data, torch_modules.to_torch(start.astype(dtypes.numpy_dtype(task.graph.index_dtype)))


def dynamic_shapes(task: Task) -> dict[str, Any] | None:
    """torch_modules.dynamic_shapes for the data; a fed start is a 0-dim tensor, with no dims."""
    shapes = torch_modules.dynamic_shapes(task)
    if shapes is None or not start_fed(task):
        return shapes
    return {**shapes, "start": None}


def exported_program(task: Task) -> torch.export.ExportedProgram:
    """The task's module captured by ``torch.export.export``; torch's refusals while tracing are
    marked as the backend's."""
    module, example, shapes = build_module(task), example_inputs(task), dynamic_shapes(task)
    with backend_calls():
        return torch.export.export(module, example, dynamic_shapes=shapes)
