"""The JAX adapter: jax.numpy's split functions and jax.lax.split, run by JAX itself.

Routes (their calls in :mod:`conformance_jax.calls`): ``eager``, the function called on a JAX array
of the case's data as a user calls it (a count as an int, points or sizes as a list, ``axis=`` only
when the case states one; no graph, so the graph options change nothing); ``jit``, ``jax.jit`` of
the split lowered for the data (``build``), compiled by XLA (``compile``) and called (``run``), the
split value and axis static arguments, or a traced argument when the case feeds it at run time.

Devices: ``cpu`` is JAX's default 32-bit mode, which narrows 64-bit data as it enters JAX (a dtype
mismatch), ``cpu-x64`` the same with ``jax_enable_x64``; ``gpu`` and ``gpu-x64`` on JAX's first
GPU (``--option jax.device=...``; default ``cpu,cpu-x64``; a GPU where JAX has none is a usage
error). Every phase runs in JAX's thread-local ``enable_x64`` and ``default_device`` contexts for
its device, so one worker serves several, and ``run`` checks that every piece is on it.

Refusals are JAX's (every call into it is inside ``backend_calls``); JAX has no string element
type, so string data is ``unsupported``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Final

import numpy as np

from conformance import dtypes
from conformance.errors import UsageError
from conformance.plugin import AdapterInfo, AdapterOptions, Route, Target, Task, Unsupported, backend_calls
from conformance_jax import calls, snippets

NAME = "jax"
_OPS: Final = ("jax.*",)
#: JAX's device and mode for a device name of the adapter's, entered around every phase
On = Callable[[str], AbstractContextManager[None]]


@dataclass(frozen=True)
class Model:
    """What build and compile hand on: the device and, on ``jit``, the lowered function or executable."""

    device: str
    staged: Any = None


def _support(task: Task, target: Target) -> Unsupported | None:
    """Only what JAX cannot hold at all: strings (``jnp.asarray`` has no string type)."""
    no_strings = "JAX has no string element type: a JAX array cannot hold string data"
    return Unsupported(no_strings) if task.dtype in dtypes.STRING else None


def _pieces(on: On, device: str, function: Any, given: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Converts ``given`` into JAX on the device, calls ``function``, converts every piece back."""
    with on(device):
        with backend_calls():
            pieces = function(*(calls.to_jax(array) for array in given))
        calls.check_placement(pieces, device)
        with backend_calls():  # bfloat16 is ml_dtypes' in both
            return [np.asarray(piece) for piece in pieces]


@dataclass(frozen=True)
class _Eager:
    """The function called on a JAX array of the data: nothing to build."""

    on: On

    @staticmethod
    def build(task: Task, target: Target) -> Model:
        return Model(target.device)

    def run(self, compiled: Model, task: Task) -> Sequence[np.ndarray]:
        return _pieces(self.on, compiled.device, calls.eager(task), (task.data,))

    def prepare(self, target: Target) -> None:
        """JAX imported, its clients started and one split made on the target's device and in its
        mode: the first of each in a worker costs far more than any later one."""
        with self.on(target.device):
            import jax

            jax.numpy.split(jax.numpy.zeros(2), 2)


@dataclass(frozen=True)
class _Jit:
    """``jax.jit`` of the split, lowered (``build``), compiled by XLA (``compile``) and called."""

    on: On

    def build(self, task: Task, target: Target) -> Model:
        """The split traced and lowered for the task's data."""
        with self.on(target.device):
            arguments, keywords = calls.lower_arguments(task)
            with backend_calls():
                return Model(target.device, calls.jitted(task).lower(*arguments, **keywords))

    def prepare(self, target: Target) -> None:
        """What the eager route prepares, and one jitted split lowered and compiled."""
        _Eager(self.on).prepare(target)
        with self.on(target.device):
            import jax

            data = jax.numpy.zeros(2)
            jax.jit(lambda x: jax.numpy.split(x, 2)).lower(data).compile()(data)

    def compile(self, model: Model, target: Target) -> Model:
        """XLA compiles the lowered function for the device."""
        with self.on(model.device), backend_calls():
            return Model(model.device, model.staged.compile())

    def run(self, compiled: Model, task: Task) -> Sequence[np.ndarray]:
        return _pieces(self.on, compiled.device, compiled.staged, calls.feeds(task))


def _route(name: str, description: str, phases: _Eager | _Jit, **more: Any) -> Route:
    return Route(
        name,
        _OPS,
        description,
        build=phases.build,
        run=phases.run,
        support=_support,
        prepare=phases.prepare,
        default=False,
        **more,
    )


def routes(on: On) -> tuple[Route, ...]:
    """Both routes, their phases inside ``on``; off the default run: JAX compiles for every new
    request, eager calls included (40 to 100 ms an item, docs/performance.md)."""
    jit = _Jit(on)
    return (
        _route(
            "eager",
            "the jax.numpy / jax.lax function called on a JAX array of the data",
            _Eager(on),
            reproducer=snippets.eager,
        ),
        _route(
            "jit",
            "jax.jit of the split (request static, or traced when fed at run time), lowered, compiled, run",
            jit,
            compile=jit.compile,
            reproducer=snippets.jit,
        ),
    )


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
            routes=routes(self._on),
            devices=self.options.devices,
            options={**self.options.resolved, "jaxlib": metadata.version("jaxlib"), **gpu},
            other_devices=tuple(device for device in calls.DEVICES if device not in self.options.devices),
        )

    @contextlib.contextmanager
    def _on(self, device: str) -> Iterator[None]:
        """JAX's device and 64-bit mode for the block (thread-local, restored afterwards)."""
        jax = calls.load(self.gpu)
        with jax.enable_x64(calls.x64(device)), jax.default_device(calls.device(device)):
            yield
