"""The PyTorch adapter: torch.split, tensor_split, chunk, hsplit, vsplit and dsplit, run by PyTorch.

Every route runs the module of :mod:`conformance.models.torch_modules` for the task: the request
baked in as the int or list the case states, ``dim`` only when the case states an axis (never for
hsplit, vsplit and dsplit, which have no ``dim``). Routes (their calls are in
:mod:`conformance_torch.routes`):

``eager``
    The module called directly, the way model code runs. Eager PyTorch has no declared shapes, so
    ``data_shape: dynamic`` needs nothing.
``compile`` (off the default run: the first compile of each process spends seconds)
    The module through ``torch.compile`` (inductor, ``fullgraph=True``, ``dynamic`` as the case's
    ``data_shape`` says), the path a deployed model takes for speed. The first call compiles; later
    runs of a case with ``runs:`` reuse the code or recompile at a new shape, as deployment would.
``export``
    The module captured by ``torch.export.export`` and run as the exported program, the path models
    take to other runtimes, re-tracing each op through meta kernels and symbolic shapes.
    ``data_shape: dynamic`` marks every data dim ``Dim.DYNAMIC``; a dim of size 0 or 1 is then
    ``unsupported``, since export specialises those by design. Any refusal by export is judged
    (a lengths list for torch.split on a dynamic dim included: export raises a constraint violation).

Options: ``device`` (comma-separated torch devices, default ``cpu``); anything else is refused.
"""

from __future__ import annotations

from collections.abc import Mapping

from conformance.errors import UsageError
from conformance.plugin import AdapterInfo, AdapterOptions
from conformance_torch.routes import ROUTES

NAME = "torch"
DEFAULT_DEVICE = "cpu"


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
