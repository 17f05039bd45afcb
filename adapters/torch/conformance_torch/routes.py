"""The torch adapter's three routes (see the adapter's module docstring), with the calls they share:
the device placement, the run and the reproducer's frame around the route's own statements."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from conformance import dtypes, reproducers
from conformance.plugin import Route, Target, Task, Unsupported, backend_calls

if TYPE_CHECKING:
    import torch

_OPS: Final = ("torch.*",)


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
    """Converts the data bit for bit, calls the module, and converts every piece back."""
    from conformance.models import torch_modules

    data = torch_modules.to_torch(task.data).to(compiled.device)
    # An exported program checks its guards in generated code (no frame of torch's package),
    # so its refusal of a shape is marked as the backend's here.
    with backend_calls():
        outputs: Any = compiled.function(data)
    return [torch_modules.to_numpy(piece) for piece in outputs]


def _reproducer(making: Callable[[Task], str]) -> Callable[[Task, Target], str]:
    """The torch call on the case's data for every run, ``split`` made by the route's ``making``."""

    def reproducer(task: Task, target: Target) -> str:
        from conformance.models import torch_modules

        body = f"import torch\n\n{torch_modules.module_code(task)}\n{making(task)}"
        for run in task.every_run:
            body += (
                f"{reproducers.run_heading(run)}{reproducers.array_code(run.data)}\n"
                "pieces = split(tensor(data))\n"
                "print([tuple(piece.shape) for piece in pieces])\n"
            )
        return body

    return reproducer


def _route(name: str, description: str, build: Callable[[Task, Target], Any], **more: Any) -> Route:
    return Route(name, _OPS, description, build=build, run=_run, compile=_compile, **more)


# eager: the module called directly, the way model code runs


def _build_eager(task: Task, target: Target) -> torch.nn.Module:
    from conformance.models import torch_modules

    return torch_modules.build_module(task)


# export: the module captured by torch.export.export, run as the exported program


def _support_export(task: Task, target: Target) -> Unsupported | None:
    """Also refuses the dynamic dims torch.export cannot express by design (dims of size 0 or 1)."""
    from conformance.models import torch_modules

    refused = _support(task, target)
    if refused is not None:
        return refused
    why_not = torch_modules.export_dynamic_problem(task)
    return None if why_not is None else Unsupported(why_not)


def _build_export(task: Task, target: Target) -> torch.nn.Module:
    """The exported program (tracing happens here)."""
    from conformance.models import torch_modules

    exported: torch.nn.Module = torch_modules.exported_program(task).module()
    return exported


def _making_export(task: Task) -> str:
    from conformance.models import torch_modules

    export = torch_modules.export_code(task, "tensor(data)")
    return f"{reproducers.array_code(task.data)}\nsplit = {export}.module()\n"


def _prepare(target: Target) -> None:
    """Import torch before the first item is timed."""
    import torch  # noqa: F401  # the import is the preparation


def _warm_export(target: Target) -> None:
    """One throwaway export: the first of a process spends seconds setting up tracing."""
    import torch

    torch.export.export(torch.nn.ReLU(), (torch.zeros(2),))


# compile: the module through torch.compile (inductor, fullgraph)


def _build_compile(task: Task, target: Target) -> torch.nn.Module:
    import torch

    from conformance.models import torch_modules

    # Every item compiles the same forward code with other constants: without a reset, dynamo's
    # per-code recompile limit ends the route after eight items. dynamic=False for static cases:
    # one graph specialised to the example, as deployed; dynamic=True keeps every dim symbolic,
    # which later runs at other shapes then test.
    torch._dynamo.reset()
    compiled: torch.nn.Module = torch.compile(  # type: ignore[assignment]
        torch_modules.build_module(task),
        backend="inductor",
        dynamic=task.graph.data_shape == "dynamic",
        fullgraph=True,
    )
    return compiled


def _making_compile(task: Task) -> str:
    dynamic = task.graph.data_shape == "dynamic"
    return f"split = torch.compile(Split(), backend='inductor', dynamic={dynamic}, fullgraph=True)\n"


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
        reproducer=_reproducer(lambda task: "split = Split()\n"),
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
