"""The CuPy adapter: cupy.split, array_split, hsplit, vsplit and dsplit, run by CuPy on a CUDA device.

Route ``cupy``: the function called as a user calls it, on a ``cupy.ndarray`` holding the case's
data in device memory (``cupy.asarray``): a count as an int, split points as a list, ``axis=`` only
when the case states one (never for hsplit, vsplit and dsplit, which choose the axis from the rank).
Every piece is copied back to the host with ``cupy.asnumpy``, which waits for the device. CuPy calls
eagerly and has no graph, so the catalogue hands these ops no graph option.

Device ``cuda``: the worker's current CUDA device (device 0 of those ``CUDA_VISIBLE_DEVICES``
leaves visible).

Where there is no CUDA device, which includes a machine without CuPy (its wheel is the extra
``cuda13``), the adapter still loads, and every item is ``unsupported`` with a reason that starts
"no CUDA device" and says what was checked: the route is not in the default run, so a CPU machine's
default run is what it was, and a GPU machine's run names it (``--target 'cupy/*'``).

Refusals are CuPy's: every call into it happens inside ``backend_calls``, and nothing here checks
a request. CuPy has no string type; the catalogue leaves strings out of the ``cupy.*`` ops.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from conformance import reproducers
from conformance.plugin import (
    AdapterError,
    AdapterInfo,
    AdapterOptions,
    Route,
    Target,
    Task,
    Unsupported,
    backend_calls,
    installed_distribution,
)

NAME = "cupy"
DEVICES = ("cuda",)
#: The first words of the reason every item gets where CuPy has no CUDA device to run on.
NO_DEVICE = "no CUDA device"

#: The functions without an axis parameter: they pick the axis from the data's rank.
_NO_AXIS = frozenset({"cupy.hsplit", "cupy.vsplit", "cupy.dsplit"})

Split = Callable[..., Sequence[Any]]


def _support(task: Task, target: Target) -> Unsupported | None:
    """Everything is unsupported where CuPy has no CUDA device; nothing else is refused here."""
    problem = device_problem()
    return None if problem is None else Unsupported(problem)


def _build(task: Task, target: Target) -> Split:
    """The CuPy function the op id names (``cupy.array_split`` is ``array_split`` of ``cupy``)."""
    function: Split = getattr(_cupy(), task.op.removeprefix("cupy."))
    return function


def _run(model: Split, task: Task) -> Sequence[np.ndarray]:
    """Uploads the data, calls CuPy with the request as the case states it, and copies every
    piece back to the host."""
    cupy = _cupy()
    keywords = _axis_keyword(task)
    with backend_calls():
        pieces = model(cupy.asarray(task.data), _argument(task), **keywords)
        return [cupy.asnumpy(piece) for piece in pieces]


def _reproducer(task: Task, target: Target) -> str:
    """The CuPy call on the case's data, for every run of the case."""
    axis = "".join(f", axis={value}" for value in _axis_keyword(task).values())
    return "import cupy\n\n" + "".join(
        f"{reproducers.run_heading(run)}{reproducers.array_code(run.data)}\n"
        f"pieces = {task.op}(cupy.asarray(data), {_argument(run)!r}{axis})\n"
        "print([piece.shape for piece in pieces])\n"
        for run in task.every_run
    )


def _prepare(target: Target) -> None:
    """Import CuPy, create the device's context and split once, contiguous and strided pieces
    copied back: the first of each in a worker costs far more than any later one (the copy
    of a strided piece compiles a kernel) and would otherwise be charged to one item."""
    if device_problem() is not None:
        return
    cupy = _cupy()
    for piece in cupy.split(cupy.zeros((2, 4), dtype=np.float32), 2, axis=1):
        cupy.asnumpy(piece)


#: Left out of the default run: on a machine without a GPU every item would be ``unsupported``, and
#: the default run of a CPU machine stays as it was.
ROUTES = (
    Route(
        "cupy",
        ("cupy.*",),
        "the cupy function called on a cupy.ndarray of the data in device memory, pieces copied back",
        default=False,
        build=_build,
        run=_run,
        support=_support,
        reproducer=_reproducer,
        prepare=_prepare,
    ),
)


class CupyAdapter:
    """Runs the cupy.* ops through CuPy on the CUDA device; see the module docstring."""

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = AdapterOptions.parse(options, devices=DEVICES)

    def info(self) -> AdapterInfo:
        """CuPy's distribution (``cupy-cuda13x`` says which CUDA it was built for) and version, read
        from the installed metadata: the run's main process never imports CuPy."""
        backend, version = installed_distribution("cupy") or ("cupy", "not installed")
        return AdapterInfo(
            name=NAME,
            backend=backend,
            version=version,
            routes=ROUTES,
            devices=self.options.devices,
            options=self.options.resolved,
        )


@functools.cache
def device_problem() -> str | None:
    """Why CuPy has no CUDA device in this process, or None: CuPy cannot be imported (not installed,
    or its CUDA libraries missing), the CUDA runtime reports an error (no driver), or it counts no
    device. Asked once per worker; the answer names what was checked."""
    try:
        cupy = _cupy()
    except Exception as error:  # any failed import means no usable CuPy; its type is said
        why = f"{type(error).__name__}: {error}"
        return f"{NO_DEVICE}: CuPy cannot be imported ({why}); install adapters/cupy[cuda13]"
    try:
        count = int(cupy.cuda.runtime.getDeviceCount())
    except Exception as error:  # CUDARuntimeError, whose module differs by CuPy release
        return f"{NO_DEVICE}: cupy.cuda.runtime.getDeviceCount() raised {type(error).__name__}: {error}"
    if count == 0:
        return f"{NO_DEVICE}: cupy.cuda.runtime.getDeviceCount() found none"
    return None


def _cupy() -> Any:
    """The ``cupy`` module, imported at first use in the worker; by name, so that type checking needs
    no CuPy (a wheel for one CUDA release, absent from most environments)."""
    return importlib.import_module("cupy")


def _argument(task: Task) -> int | list[int]:
    """The second argument as the case states it: a list of split points, or an int count."""
    form = task.request.form
    return list(form.values) if form.kind == "indices" else int(form.values[0])


def _axis_keyword(task: Task) -> dict[str, int]:
    """``axis=`` when the case states one; hsplit, vsplit and dsplit have no such parameter, and the
    catalogue never hands them an axis, so one reaching them is the suite's defect, not CuPy's."""
    if task.request.axis is None:
        return {}
    if task.op in _NO_AXIS:
        raise AdapterError(f"{task.op} takes no axis, yet the task states axis {task.request.axis}")
    return {"axis": task.request.axis}
