"""Route ``torch-export``: a ``torch.export`` program converted by OpenVINO.

The other way torch models reach OpenVINO: ``torch.export.export`` captures the suite's module
(:mod:`conformance.models.torch_modules`, or :mod:`conformance.models.torch_slicing` for a Slice
op: the ones every torch route shares), data dims
``Dim.DYNAMIC`` when the case declares them unknown, and ``openvino.convert_model`` translates the
``ExportedProgram`` (the FX graph, not TorchScript as the ``pytorch`` route does). Export and
conversion are timed together as the build; either one refusing is the route refusing.
"""

from __future__ import annotations

import openvino as ov  # type: ignore[import-untyped]  # ships .pyi stubs but no py.typed

from conformance.models import torch_modules
from conformance.plugin import Task
from conformance_openvino.pytorch_route import models
from conformance_openvino.pytorch_route import runtime_inputs as runtime_inputs  # the same inputs


def unsupported(task: Task) -> str | None:
    """What torch.export cannot keep dynamic by design (complex data is refused by the adapter)."""
    return torch_modules.export_dynamic_problem(task)


def build_model(task: Task, core: ov.Core) -> ov.Model:
    """Export the module, then convert the ExportedProgram."""
    del core  # convert_model needs no core; compile uses the adapter's
    model: ov.Model = ov.convert_model(models(task).exported_program(task))
    return model


def warm_up() -> None:
    """One throwaway export and conversion: the first of a process loads the FX frontend."""
    import torch

    class Identity(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x + 1

    ov.convert_model(torch.export.export(Identity(), (torch.zeros(2),)))
