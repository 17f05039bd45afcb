"""The JAX adapter: jax.numpy's split functions and jax.lax.split, run by JAX itself.

Routes (both build their calls with :mod:`conformance_jax.calls`):

``eager``
    The function called on a JAX array of the case's data (``jnp.asarray``), the way a user calls
    it: a count as an int, split points or sizes as a list, ``axis=`` only when the case states one.
    Eager JAX has no graph, so the graph options change nothing here.
``jit``
    ``jax.jit`` of a function doing the split, traced and lowered for the case's data (``build``),
    compiled by XLA (``compile``), and the executable called on the data (``run``). The split value
    and the axis are static arguments, as ``jax.jit`` needs values that decide output shapes to
    be; when the case feeds the split value at run time (``inputs: runtime``), it is a traced
    argument instead, which is JAX's to accept or refuse.

Devices: ``cpu`` is JAX's default 32-bit mode, in which 64-bit data is narrowed as it enters JAX (a
difference the suite reports as a dtype mismatch); ``cpu-x64`` runs the same calls with
``jax_enable_x64`` on. ``gpu`` and ``gpu-x64`` are the same on JAX's first GPU (CUDA or ROCm, through
JAX's plugin), asked for with ``--option jax.device=...``; the default stays ``cpu,cpu-x64``. Where JAX
has no GPU backend, asking for one is a usage error when the adapter loads. The mode and the device
are JAX's thread-local ``jax.enable_x64`` and ``jax.default_device`` contexts, entered around every
phase of an item, so one worker serving several devices runs each item in its own; the device a model
was built for is kept with it, since JAX refuses to run an executable in the other mode, and ``run``
checks that every piece is on that device.

Refusals are JAX's: every call into it happens inside ``backend_calls``, and nothing here checks a
request. JAX has no string element type, so string data is ``unsupported``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any

import numpy as np

from conformance import dtypes
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
from conformance_jax import calls, snippets

NAME = "jax"
#: What the workers' parent may import: this package, which imports JAX lazily, and JAX itself,
#: which starts no thread when imported (its CPU client starts them at first use, in a worker).
_IMPORTS = (__name__, "conformance_jax.calls", "jax", "jax.numpy")
_OPS = ("jax.*",)

#: Neither route is in the default run: JAX compiles an XLA computation for every new request, eager
#: calls included (one per primitive, shape and static parameters), which costs 40 to 100 ms per item
#: on two cores (docs/performance.md), past the 20 ms a default route may spend. Select them with --target.
ROUTES = (
    Route(
        "eager",
        _OPS,
        "the jax.numpy / jax.lax function called on a JAX array of the data",
        default=False,
        imports=_IMPORTS,
    ),
    Route(
        "jit",
        _OPS,
        "jax.jit of the split (request static, or traced when fed at run time), lowered, compiled, run",
        default=False,
        imports=_IMPORTS,
    ),
)


@dataclass(frozen=True)
class Model:
    """What ``build`` and ``compile`` hand on: the target's device (its platform and mode) and, on
    ``jit``, the lowered function (after ``build``) or the executable (after ``compile``); None for
    an eager call."""

    device: str
    staged: Any = None


class JaxAdapter:
    """Runs the jax.* ops through JAX; see the module docstring for the routes and devices."""

    def __init__(self, options: Mapping[str, str]) -> None:
        # both modes by default: the 32-bit default is what most users run, x64 what NumPy users expect
        given = {"device": ",".join(calls.DEFAULT_DEVICES), **options}
        self.options = AdapterOptions.parse(given, devices=calls.DEVICES)
        gpus = [device for device in self.options.devices if calls.platform(device) == calls.GPU]
        #: whether JAX may start its GPU backend in this process (see calls.load)
        self.gpu = bool(gpus)
        problem = calls.gpu_problem() if gpus else None
        if problem:
            raise UsageError(f"jax device {', '.join(gpus)}: {problem}")

    def info(self) -> AdapterInfo:
        """JAX's version, and jaxlib's (the compiled XLA that runs the items), read from the installed
        metadata: importing JAX in the run's main process would cost it a second. A run on the GPU
        (where JAX is loaded already) records the GPU and JAX's plugin for it too."""
        gpu = {"gpu": calls.gpu_description()} if self.gpu else {}
        return AdapterInfo(
            name=NAME,
            backend="jax",
            version=metadata.version("jax"),
            routes=ROUTES,
            devices=self.options.devices,
            options={**self.options.resolved, "jaxlib": metadata.version("jaxlib"), **gpu},
            other_devices=tuple(device for device in calls.DEVICES if device not in self.options.devices),
        )

    def support(self, task: Task, target: Target) -> Unsupported | None:
        """Only what JAX cannot hold at all: strings (``jnp.asarray`` has no string type)."""
        if task.dtype in dtypes.STRING:
            return Unsupported("JAX has no string element type: a JAX array cannot hold string data")
        return None

    def build(self, task: Task, target: Target) -> Model:
        """On ``jit``, the split traced and lowered for the task's data; an eager call has no model."""
        if target.route == "eager":
            return Model(target.device)
        with self._on(target.device):
            arguments, keywords = calls.lower_arguments(task)
            with backend_calls():
                return Model(target.device, calls.jitted(task).lower(*arguments, **keywords))

    def compile(self, model: Model, target: Target) -> Model:
        """XLA compiles the lowered function (``jit``) for the device; nothing to do for an eager call."""
        if model.staged is None:
            return model
        with self._on(model.device), backend_calls():
            return Model(model.device, model.staged.compile())

    def run(self, compiled: Model, task: Task) -> Sequence[np.ndarray]:
        """Converts the task's data into JAX on the device, calls JAX, converts every piece back."""
        function = calls.eager(task) if compiled.staged is None else compiled.staged
        given = calls.feeds(task) if compiled.staged is not None else (task.data,)
        with self._on(compiled.device):
            with backend_calls():
                pieces = function(*(calls.to_jax(array) for array in given))
            calls.check_placement(pieces, compiled.device)
            with backend_calls():
                return calls.to_numpy(pieces)

    def prepare(self, target: Target) -> None:
        """Import JAX, start its clients and split once on the target's device and in its mode
        (eagerly, and on ``jit`` through a throwaway compiled function): the first of each in a
        worker costs far more than any later one and would otherwise be charged to one item."""
        jax = calls.load(self.gpu)
        with self._on(target.device):
            data = jax.numpy.zeros(2)
            jax.numpy.split(data, 2)
            if target.route == "jit":
                jax.jit(lambda x: jax.numpy.split(x, 2)).lower(data).compile()(data)

    def reproducer(self, task: Task, target: Target) -> str | None:
        """The JAX call on the case's data, on the device and in its mode; jitted, lowered and
        compiled as the ``jit`` route does."""
        return snippets.reproducer(task, target.route, target.device)

    @contextlib.contextmanager
    def _on(self, device: str) -> Iterator[None]:
        """JAX's device and 64-bit mode for the block (thread-local, restored afterwards)."""
        jax = calls.load(self.gpu)
        with jax.enable_x64(calls.x64(device)), jax.default_device(calls.device(device)):
            yield
