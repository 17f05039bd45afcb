"""The ExecuTorch adapter: what a torch split or slice becomes in an ExecuTorch program.

Route ``edge``: the torch split ops (torch.split, tensor_split, chunk, hsplit, vsplit, dsplit) and
the Slice ops ``torch.narrow`` and basic slicing ``x[a:b:c, ...]`` (``torch.Tensor.__getitem__``),
the suite's module of :mod:`conformance.models.torch_modules` or
:mod:`conformance.models.torch_slicing` exported by ``torch.export``, lowered by
``to_edge`` and ``to_executorch``, serialized in memory and run by ExecuTorch's Python runtime
(``executorch.runtime.Runtime``); the pipeline is in :mod:`conformance_executorch.program`. The
export and lowering are the *build*, loading the program's ``forward`` method the *compile*, and
each execution a *run*: every run of a case with ``runs:`` is fed to the same loaded method, as
an application does.

Devices, both targets unless ``device`` names one:

``portable``
    ``to_edge`` alone: every operator runs on ExecuTorch's portable kernels.
``xnnpack``
    ``to_edge_transform_and_lower`` with the ``XnnpackPartitioner``: XNNPACK takes the operators
    its partitioner claims, the portable kernels the rest (the XNNPACK backend page's recipe).

``data_shape: dynamic`` marks every data dim ``Dim.DYNAMIC``, as the torch adapter's ``export``
route declares it; what ExecuTorch then does with other shapes is judged. ``support`` refuses
only what torch.export itself cannot hold (see :func:`support`). No options besides ``device``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final

import numpy as np

from conformance import dtypes
from conformance.plugin import AdapterInfo, AdapterOptions, Route, Target, Task, Unsupported
from conformance_executorch import program, reproducer

if TYPE_CHECKING:
    from executorch.runtime import Method

NAME = "executorch"
DESCRIPTION = (
    "the torch module exported by torch.export, lowered by to_edge (and XNNPACK's partitioner) "
    "and to_executorch, run by ExecuTorch's runtime"
)


#: The largest dim an ExecuTorch program can state: its schema (schema/program.fbs, table Tensor)
#: holds a tensor's ``sizes`` as 32-bit ints.
_LARGEST_DIM: Final = 2**31 - 1


def _support(task: Task, target: Target) -> Unsupported | None:
    """Refuses what cannot be handed over: string data (torch has no string tensor), a dim that
    ExecuTorch's program format cannot state, and the dynamic dims torch.export's documented
    design specialises (:func:`torch_modules.export_dynamic_problem`)."""
    if task.dtype in dtypes.STRING:
        return Unsupported("torch has no string tensors, so no torch module can be exported for them")
    if any(size > _LARGEST_DIM for size in task.data.shape):
        return Unsupported(
            "an ExecuTorch program holds tensor sizes as 32-bit ints (schema/program.fbs, table Tensor, "
            f"field sizes: [int]), so a dim past {_LARGEST_DIM} cannot be serialized"
        )
    from conformance.models import torch_modules

    why_not = torch_modules.export_dynamic_problem(task)
    return None if why_not is None else Unsupported(why_not)


def _build(task: Task, target: Target) -> bytes:
    """The serialized program, lowered for the target's device."""
    return program.program_bytes(task, target.device)


def _compile(model: bytes, target: Target) -> Method:
    """The program's ``forward`` method, loaded by the runtime."""
    return program.load(model)


def _run(method: Method, task: Task) -> Sequence[np.ndarray]:
    """One execution of the loaded method on the task's data."""
    return program.execute(method, task)


def _reproducer(task: Task, target: Target) -> str:
    """The export, lowering and every run with torch and ExecuTorch alone."""
    return reproducer.snippet(task, target.device)


def _prepare(target: Target) -> None:
    """Import torch and ExecuTorch and lower one throwaway program: the first export and
    lowering of a process set up tracing and ExecuTorch's passes (seconds), which would
    otherwise be timed as one item's build."""
    program.warm_up(target.device)


ROUTE: Final = Route(
    "edge",
    ("torch.*split", "torch.chunk", "torch.narrow", "torch.Tensor.__getitem__"),
    DESCRIPTION,
    build=_build,
    run=_run,
    support=_support,
    compile=_compile,
    reproducer=_reproducer,
    prepare=_prepare,
    # about a second per item exporting and lowering (docs/performance.md)
    default=False,
)


class ExecuTorchAdapter:
    """Runs the torch split and slice ops as ExecuTorch programs; see the module docstring."""

    def __init__(self, options: Mapping[str, str]) -> None:
        given = {"device": ",".join(program.DEVICES), **options}
        self.options = AdapterOptions.parse(given, devices=program.DEVICES)

    def info(self) -> AdapterInfo:
        """ExecuTorch's version from its installed distribution; torch's, which exported, as an option."""
        from conformance.plugin import installed_distribution

        torch = installed_distribution("torch") or ("torch", "missing")
        executorch = installed_distribution("executorch") or ("executorch", "missing")
        return AdapterInfo(
            name=NAME,
            backend="executorch",
            version=executorch[1],
            routes=(ROUTE,),
            devices=self.options.devices,
            options={**self.options.resolved, "exporter": " ".join(torch)},
        )
