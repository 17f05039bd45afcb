"""The JAX adapter's two routes (see the adapter's module docstring), both built with
:mod:`conformance_jax.calls`. Each phase runs inside the adapter's ``on(device)`` context (JAX's
device and 64-bit mode for the target's device), which the routes are made with."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from conformance import dtypes
from conformance.plugin import Route, Target, Task, Unsupported, backend_calls
from conformance_jax import calls, snippets

_OPS: Final = ("jax.*",)
#: JAX's device and mode for a device name of the adapter's, entered around every phase
On = Callable[[str], AbstractContextManager[None]]


@dataclass(frozen=True)
class Model:
    """What ``build`` and ``compile`` hand on: the target's device and, on ``jit``, the lowered
    function (after ``build``) or the executable (after ``compile``)."""

    device: str
    staged: Any = None


def _support(task: Task, target: Target) -> Unsupported | None:
    """Only what JAX cannot hold at all: strings (``jnp.asarray`` has no string type)."""
    if task.dtype in dtypes.STRING:
        return Unsupported("JAX has no string element type: a JAX array cannot hold string data")
    return None


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
    """Both routes, their phases inside ``on``. Neither is in the default run: JAX compiles an XLA
    computation for every new request, eager calls included, which costs 40 to 100 ms per item
    (docs/performance.md), past the 20 ms a default route may spend. Select them with --target."""
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
