"""The PyTorch adapter: torch.split, tensor_split, chunk, hsplit, vsplit and dsplit, and the Slice
ops torch.narrow and basic slicing ``x[a:b:c, ...]``, run by PyTorch.

Every route runs the module of :mod:`conformance.models.torch_modules` for a split task (the
request baked in as the case states it, ``dim`` only when the case states an axis) and of
:mod:`conformance.models.torch_slicing` for a slice task (narrow's dim, start and length, the start
a 0-dim tensor input where the case feeds ``starts`` at run time; the selection tuple ``x[a:b:c]``).
Every run of a case goes to the one module or program built for it. Routes: ``eager``, the module
called as model code calls it (no declared shapes, so ``data_shape: dynamic`` needs nothing);
``export``, the module captured by ``torch.export.export`` and run as the exported program, every
data dim ``Dim.DYNAMIC`` in a dynamic case (a dim of size 0 or 1 is then unsupported: export
specialises those by design), any refusal by export judged; ``compile``, the module through
``torch.compile`` (inductor, ``fullgraph=True``, ``dynamic`` as the case's ``data_shape`` says),
later runs reusing the code or recompiling at a new shape, as deployment would. ``export`` and
``compile`` are off the default run (tens of ms an item, seconds for a process's first).

Options: ``device`` (comma-separated torch devices, default ``cpu``); anything else is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from conformance import dtypes, reproducers
from conformance.errors import UsageError
from conformance.models.torch_builders import for_task as _models
from conformance.models.torch_builders import source_for as _code
from conformance.plugin import (
    AdapterInfo,
    AdapterOptions,
    Route,
    Target,
    Task,
    Unsupported,
    backend_calls,
    version_of,
)

if TYPE_CHECKING:
    import torch

NAME = "torch"
_OPS: Final = ("torch.*split", "torch.chunk", "torch.narrow", "torch.Tensor.__getitem__")


@dataclass(frozen=True)
class Compiled:
    """A callable ready to run on one device: the eager module or the exported program's module."""

    function: torch.nn.Module
    device: str


def _support(task: Task, target: Target) -> Unsupported | None:
    """Refuses only what torch cannot hold: a dtype without a torch type."""
    return Unsupported("torch has no string tensors") if task.dtype in dtypes.STRING else None


def _compile(model: torch.nn.Module, target: Target) -> Compiled:
    """Places the module on the device; the split modules hold no weights, so nothing moves."""
    return Compiled(model.to(target.device), target.device)


def _run(compiled: Compiled, task: Task) -> Sequence[np.ndarray]:
    """Converts this run's inputs bit for bit, calls the module, and converts every output back."""
    from conformance.models import torch_modules

    inputs = [value.to(compiled.device) for value in _models(task).example_inputs(task)]
    # An exported program checks its guards in generated code (no frame of torch's package),
    # so its refusal of a shape is marked as the backend's here.
    with backend_calls():
        outputs: Any = compiled.function(*inputs)
    return [torch_modules.to_numpy(piece) for piece in outputs]


def _reproducer(making: Callable[[Task], str]) -> Callable[[Task, Target], str]:
    """The torch call on the case's data for every run, ``model`` made by the route's ``making``."""

    def reproducer(task: Task, target: Target) -> str:
        body = f"import torch\n\n{_code(task).writer.module_code(task)}\n{making(task)}"
        for run in task.every_run:
            body += (
                f"{reproducers.run_heading(run)}{reproducers.array_code(run.data)}\n"
                f"pieces = model({_code(run).inputs})\n"
                "print([tuple(piece.shape) for piece in pieces])\n"
            )
        return body

    return reproducer


def _route(name: str, description: str, build: Callable[[Task, Target], Any], **more: Any) -> Route:
    return Route(name, _OPS, description, build=build, run=_run, compile=_compile, imports=("torch",), **more)


def _build_eager(task: Task, target: Target) -> torch.nn.Module:
    module: torch.nn.Module = _models(task).build_module(task)
    return module


def _support_export(task: Task, target: Target) -> Unsupported | None:
    """Also refuses the dynamic dims torch.export cannot express by design (dims of size 0 or 1)."""
    from conformance.models import torch_modules

    why_not = torch_modules.export_dynamic_problem(task)
    return _support(task, target) or (None if why_not is None else Unsupported(why_not))


def _build_export(task: Task, target: Target) -> torch.nn.Module:
    """The exported program (tracing happens here)."""
    exported: torch.nn.Module = _models(task).exported_program(task).module()
    return exported


def _making_export(task: Task) -> str:
    code = _code(task)
    export = code.writer.export_code(task, code.inputs)
    return f"{reproducers.array_code(task.data)}\nmodel = {export}.module()\n"


def _prepare(target: Target) -> None:
    """Import torch before the first item is timed."""
    import torch  # noqa: F401  # the import is the preparation


def _warm_export(target: Target) -> None:
    """One throwaway export: the first of a process spends seconds setting up tracing."""
    import torch

    torch.export.export(torch.nn.ReLU(), (torch.zeros(2),))


def _build_compile(task: Task, target: Target) -> torch.nn.Module:
    import torch

    # Every item compiles the same forward code with other constants: without a reset, dynamo's
    # recompile limit ends the route after eight items. A static case gets one graph specialised
    # to the example, as deployed; a dynamic one keeps every dim symbolic for its later runs.
    torch._dynamo.reset()
    compiled: torch.nn.Module = torch.compile(  # type: ignore[assignment]
        _models(task).build_module(task),
        backend="inductor",
        dynamic=task.graph.data_shape == "dynamic",
        fullgraph=True,
    )
    return compiled


def _making_compile(task: Task) -> str:
    dynamic = task.graph.data_shape == "dynamic"
    name = _code(task).name
    return f"model = torch.compile({name}(), backend='inductor', dynamic={dynamic}, fullgraph=True)\n"


def _warm_compile(target: Target) -> None:
    """One throwaway compilation: the first of a process sets up inductor's C++ toolchain."""
    import torch

    torch.compile(torch.nn.ReLU(), backend="inductor", fullgraph=True)(torch.zeros(2))


ROUTES: Final = (
    _route(
        "eager",
        "the torch function called eagerly on a tensor of the case's data",
        _build_eager,
        support=_support,
        reproducer=_reproducer(lambda task: f"model = {_code(task).name}()\n"),
        prepare=_prepare,
    ),
    _route(
        "export",
        "the module captured by torch.export.export, run as the exported program",
        _build_export,
        support=_support_export,
        reproducer=_reproducer(_making_export),
        prepare=_warm_export,
        default=False,  # about 27 ms an item (exporting): over the default run's 20 ms
    ),
    _route(
        "compile",
        "the module compiled by torch.compile (inductor, fullgraph; dynamic when the case's dims are)",
        _build_compile,
        support=_support,
        reproducer=_reproducer(_making_compile),
        prepare=_warm_compile,
        default=False,
    ),
)


class TorchAdapter:
    """Runs the torch.* ops through PyTorch; see the module docstring for routes and options."""

    def __init__(self, options: Mapping[str, str]) -> None:
        # torch's device names are open-ended (cuda:1, xpu): each is checked against this build
        self.options = AdapterOptions.parse(options, devices=("cpu",), any_device=True)
        for device in self.options.devices:
            why = _device_problem(device)
            if why:
                raise UsageError(why)

    def info(self) -> AdapterInfo:
        """The torch wheel's version (``2.13.0+cpu`` says which build), read from its metadata: the
        run's own process asks for it, and importing torch there cost every run 1.7 s."""
        return AdapterInfo(
            name=NAME,
            backend="torch",
            version=version_of("torch"),
            routes=ROUTES,
            devices=self.options.devices,
            options=self.options.resolved,
        )


def _device_problem(device: str) -> str | None:
    """Why torch cannot use ``device`` here, or None (the CPU without importing torch, as info())."""
    if device == "cpu":
        return None
    import torch

    try:
        parsed = torch.device(device)
    except RuntimeError as error:
        return f"torch does not know the device {device!r}: {error}"
    if parsed.type == "cpu":
        return None
    module = getattr(torch, parsed.type, None)
    available = getattr(module, "is_available", None)
    if available is None or not available():
        return f"torch device {device!r} is not available in this build ({torch.__version__})"
    return None
