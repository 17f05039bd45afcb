"""Which module builds a torch op's model: :mod:`conformance.models.torch_slicing` for the Slice
ops, :mod:`conformance.models.torch_modules` for the split ops. Both give ``build_module``,
``example_inputs``, ``dynamic_shapes`` and ``exported_program``, so a route that converts torch
modules serves both families through this one choice. Torch-free until called."""

from __future__ import annotations

from typing import Any

from conformance.models.torch_slice_code import OPS as SLICE_OPS
from conformance.plugin import Task


def for_task(task: Task) -> Any:
    """The builder module of the task's op."""
    if task.op in SLICE_OPS:
        from conformance.models import torch_slicing

        return torch_slicing
    from conformance.models import torch_modules

    return torch_modules
