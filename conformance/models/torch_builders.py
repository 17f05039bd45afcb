"""Which modules build and write a torch op's model: :mod:`conformance.models.torch_slicing` and
:mod:`conformance.models.torch_slice_code` for the Slice ops, :mod:`conformance.models.torch_modules`
and :mod:`conformance.models.torch_code` for the split ops. Each pair gives the same functions, so
a route that converts torch modules serves both families through this one choice. Torch-free
until a builder is asked for."""

from __future__ import annotations

from typing import Any, NamedTuple

from conformance.models.torch_slice_code import OPS as SLICE_OPS
from conformance.plugin import Task


def for_task(task: Task) -> Any:
    """The builder module of the task's op."""
    if task.op in SLICE_OPS:
        from conformance.models import torch_slicing

        return torch_slicing
    from conformance.models import torch_modules

    return torch_modules


class Source(NamedTuple):
    """How a reproducer writes the task's module: ``writer`` (torch_slice_code or torch_code, both
    give ``module_code`` and ``export_code``), the class it defines, and this run's forward inputs."""

    writer: Any
    name: str
    inputs: str


def source_for(task: Task) -> Source:
    """The code writer of the task's op, its class name, and the run's forward inputs as source
    (the data, and narrow's start where the case feeds it)."""
    from conformance.models import torch_code, torch_slice_code

    if task.op in SLICE_OPS:
        return Source(torch_slice_code, "Slice", torch_slice_code.inputs_code(task))
    return Source(torch_code, "Split", "tensor(data)")
