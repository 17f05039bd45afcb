"""Route ``pytorch``: the suite's ``torch.nn.Module``, converted by OpenVINO's PyTorch frontend.

The module is the one the PyTorch adapter runs eagerly (:mod:`conformance.models.torch_modules` for
a split op, :mod:`conformance.models.torch_slicing` for ``torch.narrow`` and basic slicing),
converted as a user converts one: ``ov.convert_model(module, example_input=..., input=...)``, with
``input`` declaring the case's shape, or every dim unknown (-1) for a dynamic case so that the
frontend must keep the op working at any runtime shape (and narrow's start, where the case feeds
it, a 0-dim tensor of its index type). Conversion traces the module with TorchScript and is timed
as the build. ``torch.hsplit`` / ``vsplit`` / ``dsplit`` trace to
``aten::`` nodes of their own: a frontend without a translator for them refuses the conversion,
and that refusal is judged (the known issues say which versions), never made ``unsupported``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import openvino as ov  # type: ignore[import-untyped]  # ships .pyi stubs but no py.typed

from conformance import dtypes
from conformance.models import torch_modules, torch_slice_code
from conformance.models.torch_builders import for_task as models
from conformance.plugin import Task
from conformance_openvino.tensors import element_type


def unsupported(task: Task) -> str | None:
    """Every torch.* task the catalogue admits is expressible (complex is refused by the adapter);
    an op the frontend cannot translate is its refusal to judge, not something this route lacks."""
    del task
    return None


def build_model(task: Task, core: ov.Core) -> ov.Model:
    """Convert the task's module, with the data's shape declared static or fully dynamic."""
    del core  # convert_model needs no core; compile uses the adapter's
    module, example = models(task).build_module(task), models(task).example_inputs(task)
    rank = task.data.ndim
    dims = [-1] * rank if task.graph.data_shape == "dynamic" else list(task.data.shape)
    shape = ov.PartialShape(dims)
    # OpenVINO has no complex element type to declare: the frontend meets complex data in the
    # example input alone, and its answer to it is judged.
    declared: list[Any] = [shape if task.dtype in dtypes.COMPLEX else (shape, element_type(task.dtype))]
    if torch_slice_code.start_fed(task):  # narrow's start: a 0-dim tensor of the index type
        declared.append((ov.PartialShape([]), element_type(task.graph.index_dtype)))
    model: ov.Model = ov.convert_model(module, example_input=example, input=declared)
    return model


def runtime_inputs(task: Task) -> list[np.ndarray]:
    """The forward inputs of this run, bit for bit: the data, and narrow's start where it is fed."""
    return [torch_modules.to_numpy(tensor) for tensor in models(task).example_inputs(task)]


def warm_up() -> None:
    """One throwaway conversion: the first convert_model of a process spends seconds loading
    TorchScript and the frontend, which would otherwise be timed as one item's build."""
    import torch

    class Identity(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x

    ov.convert_model(Identity(), example_input=(torch.zeros(2),))
