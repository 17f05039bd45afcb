"""The PyTorch adapter: torch.split, tensor_split, chunk, hsplit, vsplit and dsplit, run by PyTorch.

Every route runs the module of :mod:`conformance.models.torch_modules` for the task: the request
baked in as the int or list the case states, ``dim`` only when the case states an axis (never for
hsplit, vsplit and dsplit, which have no ``dim`` and split along the dim their input's rank names).

Routes:

``eager``
    The module of :func:`conformance.models.torch_modules.build_module` called directly, the way model
    code runs. Eager PyTorch has no declared shapes, so ``data_shape: dynamic`` needs nothing:
    every call already sees the shape only at run time.
``compile`` (not in the default run: select it with ``--target 'torch/compile/*'``)
    The same module through ``torch.compile`` with the inductor backend and ``fullgraph=True``,
    ``dynamic`` as the case's ``data_shape`` says: the path a deployed model takes for speed. The
    first call compiles (C++ code generated and built, timed as the first run); later runs of a case
    with ``runs:`` reuse the compiled code or recompile at a new shape, as deployment would. Left out
    of the default run because the first compile of each process spends seconds.
``export``
    The same module captured by ``torch.export.export`` and run as the exported program. This is
    the path models take on their way to other runtimes, and it re-traces each op through the
    meta kernels and symbolic shapes, which is where its checks can differ from eager. Here
    ``data_shape: dynamic`` marks every data dim ``Dim.DYNAMIC``. Two requests torch.export
    cannot express by design are ``unsupported`` rather than tried: a dim of size 0 or 1 (export
    specialises those in the example input) and a lengths list for torch.split (the lengths
    must sum to the split dim, pinning it); any other refusal by export is judged.

Options: ``device`` (comma-separated torch devices, default ``cpu``). Anything else is refused at
construction, so a misspelt option cannot silently leave a run on its defaults.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from conformance import dtypes, reproducers
from conformance.errors import UsageError
from conformance.plugin import (
    AdapterInfo,
    AdapterOptions,
    Route,
    Target,
    Task,
    Unsupported,
    backend_calls,
)

if TYPE_CHECKING:
    import torch

NAME = "torch"
#: what every route imports before forking (torch starts no thread when imported)
_IMPORTS = (__name__, "torch", "conformance.models.torch_modules")
DEFAULT_DEVICE = "cpu"

ROUTES = (
    Route(
        "eager",
        ("torch.*",),
        "the torch function called eagerly on a tensor of the case's data",
        imports=_IMPORTS,
    ),
    Route(
        "export",
        ("torch.*",),
        "the module captured by torch.export.export, run as the exported program",
        imports=(*_IMPORTS, "torch._dynamo"),
    ),
    Route(
        "compile",
        ("torch.*",),
        "the module compiled by torch.compile (inductor, fullgraph; dynamic when the case's dims are)",
        default=False,
        imports=(*_IMPORTS, "torch._dynamo"),
    ),
)


@dataclass(frozen=True)
class Compiled:
    """A callable ready to run on one device: the eager module or the exported program's module."""

    function: torch.nn.Module
    device: str


class TorchAdapter:
    """Runs the torch.* ops through PyTorch; see the module docstring for routes and options."""

    def __init__(self, options: Mapping[str, str]) -> None:
        # torch's device names are open-ended (cuda:1, xpu): each is checked against this build
        self.options = AdapterOptions.parse(options, devices=(DEFAULT_DEVICE,), any_device=True)
        for device in self.options.devices:
            why = _device_problem(device)
            if why:
                raise UsageError(why)

    def info(self) -> AdapterInfo:
        """The torch build's own version string (``2.13.0+cpu`` says which wheel ran)."""
        import torch

        return AdapterInfo(
            name=NAME,
            backend="torch",
            version=torch.__version__,
            routes=ROUTES,
            devices=self.options.devices,
            options=self.options.resolved,
        )

    def support(self, task: Task, target: Target) -> Unsupported | None:
        """Refuses only what torch cannot hold: a dtype without a torch type, a dynamic export."""
        if task.dtype in dtypes.STRING:
            return Unsupported("torch has no string tensors")
        if target.route == "export":
            from conformance.models import torch_modules

            why_not = torch_modules.export_dynamic_problem(task)
            return None if why_not is None else Unsupported(why_not)
        return None

    def build(self, task: Task, target: Target) -> torch.nn.Module:
        """The module calling the op; for ``export``, the exported program (tracing happens here)."""
        from conformance.models import torch_modules

        if target.route == "export":
            exported: torch.nn.Module = torch_modules.exported_program(task).module()
            return exported
        module = torch_modules.build_module(task)
        if target.route == "compile":
            import torch

            # Every item compiles the same forward code with other constants: without a reset,
            # dynamo's per-code recompile limit ends the route after eight items. dynamic=False
            # for static cases: one graph specialised to the example, as deployed; dynamic=True
            # keeps every dim symbolic, which later runs at other shapes then test.
            torch._dynamo.reset()
            compiled: torch.nn.Module = torch.compile(  # type: ignore[assignment]
                module, backend="inductor", dynamic=task.graph.data_shape == "dynamic", fullgraph=True
            )
            return compiled
        return module

    def compile(self, model: torch.nn.Module, target: Target) -> Compiled:
        """Places the module on the device; the split modules hold no weights, so nothing moves."""
        return Compiled(model.to(target.device), target.device)

    def run(self, compiled: Compiled, task: Task) -> Sequence[np.ndarray]:
        """Converts the data bit for bit, calls the module, and converts every piece back."""
        from conformance.models import torch_modules

        data = torch_modules.to_torch(task.data).to(compiled.device)
        # An exported program checks its guards in generated code (no frame of torch's package),
        # so its refusal of a shape is marked as the backend's here.
        with backend_calls():
            outputs: Any = compiled.function(data)
        return [torch_modules.to_numpy(piece) for piece in outputs]

    def prepare(self, target: Target) -> None:
        """Import torch; on ``export`` and ``compile``, one throwaway export or compilation, whose
        first call in a process spends seconds setting up tracing (and inductor's C++ toolchain)
        that would otherwise be timed as one item's build or first run."""
        import torch

        class Identity(torch.nn.Module):
            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return x + 1

        if target.route == "export":
            torch.export.export(Identity(), (torch.zeros(2),))
        elif target.route == "compile":
            torch.compile(Identity(), backend="inductor", fullgraph=True)(torch.zeros(2))

    def reproducer(self, task: Task, target: Target) -> str | None:
        """The torch call on the case's data; on ``export``, through torch.export as the route does."""
        from conformance.models import torch_modules

        argument = torch_modules.split_argument(task)
        dim = "" if task.axis is None else f", dim={task.axis}"
        if task.dtype == "bfloat16":  # through the bit pattern: a float32 detour could change NaN payloads
            tensor = "tensor = torch.from_numpy(data.view(np.int16)).view(torch.bfloat16)"
        else:
            tensor = "tensor = torch.from_numpy(data)"
        call = f"{task.op}(x, {argument!r}{dim})"
        body = "import torch\n\nclass Split(torch.nn.Module):\n    def forward(self, x):\n"
        body += f"        return {call}\n\n"
        if target.route == "export":
            dynamic = torch_modules.dynamic_shapes(task) is not None
            shapes = (
                f", dynamic_shapes={{'x': dict.fromkeys(range({task.data.ndim}), torch.export.Dim.DYNAMIC)}}"
                if dynamic
                else ""
            )
            body += (
                f"{reproducers.array_code(task.data)}\n{tensor}\n"
                f"split = torch.export.export(Split(), (tensor,){shapes}).module()\n"
            )
        elif target.route == "compile":
            dynamic = task.graph.data_shape == "dynamic"
            body += f"split = torch.compile(Split(), backend='inductor', dynamic={dynamic}, fullgraph=True)\n"
        else:
            body += "split = Split()\n"
        for run in task.every_run:
            body += (
                f"{reproducers.run_heading(run)}{reproducers.array_code(run.data)}\n{tensor}\n"
                "pieces = split(tensor)\n"
                "print([tuple(piece.shape) for piece in pieces])\n"
            )
        return body


def _device_problem(device: str) -> str | None:
    """Why torch cannot use ``device`` here, or None."""
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
