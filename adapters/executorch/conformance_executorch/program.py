"""The ExecuTorch program of a task: exported, lowered, serialized in memory, loaded and run.

The pipeline is the one ExecuTorch's "Exporting to ExecuTorch" tutorial gives
(https://pytorch.org/executorch/stable/tutorials/export-to-executorch-tutorial.html):
``torch.export.export`` of the suite's module (:mod:`conformance.models.torch_modules` for a
split, :mod:`conformance.models.torch_slicing` for ``torch.narrow`` and basic slicing: the
modules every torch target judges, with the data dims ``Dim.DYNAMIC`` when the case says
``data_shape: dynamic``, as the torch adapter's ``export`` route declares them), then
``to_edge`` (device ``portable``) or ``to_edge_transform_and_lower`` with the
``XnnpackPartitioner`` (device ``xnnpack``, the XNNPACK backend page's recipe), then
``to_executorch`` with its default configuration. The program's bytes stay in memory and go to
``executorch.runtime.Runtime.load_program``: nothing is written to disk.

Every call into torch.export or ExecuTorch sits in :func:`~conformance.plugin.backend_calls`:
ExecuTorch's runtime is native code raising plain ``RuntimeError`` from the adapter's frame, and a
refusal by the exporter or the lowering is this toolchain's answer to the request.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from conformance.models.torch_builders import for_task as models
from conformance.plugin import Task, backend_calls

if TYPE_CHECKING:
    import torch
    from executorch.runtime import Method

#: The devices: ExecuTorch's portable kernels alone, or XNNPACK taking what its partitioner claims.
DEVICES: Final = ("portable", "xnnpack")


def inputs(task: Task) -> list[torch.Tensor]:
    """The forward inputs of this run of ``task`` (the data, and narrow's start where the case
    feeds it), each :func:`dense`."""
    return [dense(tensor) for tensor in models(task).example_inputs(task)]


def program_bytes(task: Task, device: str) -> bytes:
    """The serialized ExecuTorch program of ``task`` lowered for ``device`` (the route's build)."""
    import torch

    builder = models(task)
    module, shapes = builder.build_module(task), builder.dynamic_shapes(task)
    with backend_calls():
        exported = torch.export.export(module, tuple(inputs(task)), dynamic_shapes=shapes)
    return lowered(exported, device)


def dense(tensor: torch.Tensor) -> torch.Tensor:
    """``tensor`` with the strides torch gives a new tensor of its shape.

    ``torch.from_numpy`` of an array with an empty dim carries NumPy's strides of 0, which
    ExecuTorch refuses in a program's tensors ("0 in strides is not supported") and whose input
    its runtime aborts on; a tensor torch itself makes (``torch.empty(2, 0)``) has none, and that
    is what a model's user hands ExecuTorch.
    """
    import torch

    return tensor.clone(memory_format=torch.contiguous_format)


def lowered(exported: torch.export.ExportedProgram, device: str) -> bytes:
    """``exported`` lowered for ``device`` and serialized by ``to_executorch``."""
    from executorch.exir import to_edge, to_edge_transform_and_lower

    with backend_calls():
        if device == "xnnpack":
            from executorch.backends.xnnpack.partition.xnnpack_partitioner import (
                XnnpackPartitioner,
            )

            edge = to_edge_transform_and_lower(exported, partitioner=[XnnpackPartitioner()])
        else:
            edge = to_edge(exported)
        buffer: bytes = edge.to_executorch().buffer
    return buffer


def load(program: bytes) -> Method:
    """The program's ``forward`` method loaded by the runtime (its memory planned and allocated)."""
    from executorch.runtime import Runtime

    with backend_calls():
        return Runtime.get().load_program(program).load_method("forward")


def execute(method: Method, task: Task) -> list[np.ndarray]:
    """Feeds the task's inputs bit for bit and returns every output as a copy.

    The runtime's outputs live in the program's planned memory, which the next execution of the
    same method overwrites, so each piece is copied out before another run can reuse it.
    """
    from conformance.models import torch_modules

    given = inputs(task)
    with backend_calls():
        outputs: Sequence[Any] = method.execute(given)
    return [np.array(torch_modules.to_numpy(piece), copy=True) for piece in outputs]


def warm_up(device: str) -> None:
    """Exports, lowers, loads and runs one throwaway program: a process's first pass through
    torch.export and ExecuTorch's passes sets them up for seconds."""
    import torch

    class Increment(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x + 1

    example = torch.zeros(2)
    method = load(lowered(torch.export.export(Increment(), (example,)), device))
    method.execute([example])
