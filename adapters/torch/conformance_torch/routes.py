"""The torch adapter's three routes, each the module of :mod:`conformance.models.torch_modules`
reached its own way (see the adapter's module docstring), with the calls every route shares: the
device placement, the run and the reproducer's frame around the route's own statements."""

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


def _reproducer(making: Callable[[Task, str], str]) -> Callable[[Task, Target], str]:
    """The torch call on the case's data for every run, ``split`` made by the route's ``making``
    (given the task and the statement making ``tensor`` of ``data``)."""

    def reproducer(task: Task, target: Target) -> str:
        from conformance.models import torch_modules

        argument = torch_modules.split_argument(task)
        dim = "" if task.axis is None else f", dim={task.axis}"
        if task.dtype == "bfloat16":  # through the bit pattern: a float32 detour could change NaN payloads
            tensor = "tensor = torch.from_numpy(data.view(np.int16)).view(torch.bfloat16)"
        else:
            tensor = "tensor = torch.from_numpy(data)"
        body = "import torch\n\nclass Split(torch.nn.Module):\n    def forward(self, x):\n"
        body += f"        return {task.op}(x, {argument!r}{dim})\n\n"
        body += making(task, tensor)
        for run in task.every_run:
            body += (
                f"{reproducers.run_heading(run)}{reproducers.array_code(run.data)}\n{tensor}\n"
                "pieces = split(tensor)\n"
                "print([tuple(piece.shape) for piece in pieces])\n"
            )
        return body

    return reproducer


def _route(name: str, description: str, build: Callable[[Task, Target], Any], **more: Any) -> Route:
    return Route(name, _OPS, description, build=build, run=_run, compile=_compile, **more)


def _identity() -> torch.nn.Module:
    import torch

    class Identity(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x + 1

    return Identity()


# eager: the module called directly, the way model code runs


def _build_eager(task: Task, target: Target) -> torch.nn.Module:
    from conformance.models import torch_modules

    return torch_modules.build_module(task)


# export: the module captured by torch.export.export, run as the exported program


def _support_export(task: Task, target: Target) -> Unsupported | None:
    """Also refuses the dynamic dims torch.export cannot express by design (dims of size 0 or 1).
    A lengths list on a dynamic dim is exported as the case declares it: torch.export's constraint
    violation is its answer, judged like any other refusal."""
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


def _making_export(task: Task, tensor: str) -> str:
    from conformance.models import torch_modules

    shapes = ""
    if torch_modules.dynamic_shapes(task) is not None:
        dims = f"dict.fromkeys(range({task.data.ndim}), torch.export.Dim.DYNAMIC)"
        shapes = f", dynamic_shapes={{'x': {dims}}}"
    return (
        f"{reproducers.array_code(task.data)}\n{tensor}\n"
        f"split = torch.export.export(Split(), (tensor,){shapes}).module()\n"
    )


def _prepare(target: Target) -> None:
    """Import torch before the first item is timed."""
    import torch  # noqa: F401  # the import is the preparation


def _warm_export(target: Target) -> None:
    """One throwaway export: the first of a process spends seconds setting up tracing."""
    import torch

    torch.export.export(_identity(), (torch.zeros(2),))


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


def _making_compile(task: Task, tensor: str) -> str:
    dynamic = task.graph.data_shape == "dynamic"
    return f"split = torch.compile(Split(), backend='inductor', dynamic={dynamic}, fullgraph=True)\n"


def _warm_compile(target: Target) -> None:
    """One throwaway compilation: the first of a process sets up inductor's C++ toolchain."""
    import torch

    torch.compile(_identity(), backend="inductor", fullgraph=True)(torch.zeros(2))


ROUTES: Final = (
    _route(
        "eager",
        "the torch function called eagerly on a tensor of the case's data",
        _build_eager,
        support=_support,
        reproducer=_reproducer(lambda task, tensor: "split = Split()\n"),
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
