"""The Keras adapter: ``keras.ops.split`` judged on each of Keras 3's backends.

One route per backend, named as Keras names it: ``tensorflow``, ``jax``, ``torch``, ``numpy`` and
``openvino``. Every route calls ``keras.ops.split(x, indices_or_sections, axis=...)`` eagerly, as
a user of that backend does: ``x`` the backend's own tensor of the case's data
(:mod:`conformance_keras.tensors`), ``indices_or_sections`` an ``int`` (``parts``) or a list of
ints (``indices``) as the case writes it, ``axis=`` only when the case states one (else Keras's
default, 0, is what gets judged). Each item runs on a Keras imported with the route's backend,
checked before the call and on what comes back (:mod:`conformance_keras.backends`).

Not installed backends: every route is always offered (so that results files of two environments
list the same targets); a route whose backend package is missing makes its items ``unsupported``
with the reason and the pip extra that installs it.

Options: ``device`` (``cpu`` only) and ``jax_x64`` (``off``, JAX's default, or ``on``): whether the
jax route runs with JAX's 64-bit types. Off, a jax array cannot hold int64, uint64, float64 or
complex128 data (JAX narrows it to 32 bits), so those items are ``unsupported`` there.

Refusals are Keras's and its backends': the calls run inside ``backend_calls`` and nothing here
checks a request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

import numpy as np

from conformance import dtypes
from conformance.errors import UsageError
from conformance.plugin import (
    AdapterError,
    AdapterInfo,
    AdapterOptions,
    Route,
    Target,
    Task,
    Unsupported,
    backend_calls,
)
from conformance_keras import backends, snippets, tensors

NAME: Final = "keras"
DEVICES: Final = ("cpu",)
OPS: Final = ("keras.ops.split",)
#: What the workers' parent may import: this package, which imports Keras and the backends lazily
#: (``import keras`` imports a backend, and the adapter re-imports Keras to switch backends), and
#: the backends that start no thread when imported. A worker forked with TensorFlow or torch in
#: then does not import it again when Keras loads its backend.
_IMPORTS: Final = (__name__,)
_BACKEND_IMPORTS: Final = {"tensorflow": ("tensorflow",), "torch": ("torch",), "jax": ("jax",)}
#: Routes that cost more than 20 ms an item (measured: docs/performance.md), left out of the default run.
_SLOW: Final = frozenset({"jax", "openvino"})
_X64: Final = ("off", "on")
_WIDE: Final = frozenset({"int64", "uint64", "float64", "complex128"})
_TENSOR_KIND: Final = {
    "tensorflow": "a tf.Tensor",
    "jax": "a jax.Array",
    "torch": "a torch.Tensor",
    "numpy": "a NumPy array",
    "openvino": "keras.ops.convert_to_tensor's OpenVINOKerasTensor, read back by convert_to_numpy",
}


@cache
def routes() -> tuple[Route, ...]:
    """One route per backend, the backend's installed version in its description."""
    return tuple(
        Route(
            name,
            OPS,
            f"keras.ops.split on Keras's {name} backend ({backends.version(name)}), "
            f"called on {_TENSOR_KIND[name]}",
            default=name not in _SLOW,
            imports=(*_IMPORTS, *_BACKEND_IMPORTS.get(name, ())),
        )
        for name in backends.BACKENDS
    )


@dataclass(frozen=True)
class Call:
    """What ``run`` calls: ``keras.ops.split`` on the route's backend (eager: nothing is built)."""

    backend: str


class KerasAdapter:
    """Runs keras.ops.split on every Keras backend; see the module docstring."""

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = AdapterOptions.parse(options, devices=DEVICES, known=("jax_x64",))
        x64 = self.options.get("jax_x64", "off")
        if x64 not in _X64:
            raise UsageError(f"keras.jax_x64={x64!r}: expected one of {', '.join(_X64)}")
        self.x64 = x64 == "on"

    def info(self) -> AdapterInfo:
        """Keras's own version; each route's description names its backend's version."""
        return AdapterInfo(
            name=NAME,
            backend="keras",
            version=backends.keras_version(),
            routes=routes(),
            devices=self.options.devices,
            options={**self.options.resolved, "jax_x64": _X64[self.x64]},
        )

    def support(self, task: Task, target: Target) -> Unsupported | None:
        """Refuses only what the route cannot be handed: a backend not installed, complex data for
        OpenVINO (no complex element type), 64-bit data for JAX with its 64-bit types off."""
        why_not = backends.missing(target.route)
        if why_not is not None:
            return Unsupported(why_not)
        if target.route == "openvino" and task.dtype in dtypes.COMPLEX:
            return Unsupported(
                "OpenVINO has no complex element type: Keras's openvino backend has no complex dtype to "
                "make a tensor of this data"
            )
        if target.route == "jax" and not self.x64 and task.dtype in _WIDE:
            return Unsupported(
                f"JAX's 64-bit types are off (jax_enable_x64, off by default): a jax.Array cannot hold "
                f"{task.dtype} data, jnp.asarray narrows it to 32 bits; --option keras.jax_x64=on judges it"
            )
        return None

    def build(self, task: Task, target: Target) -> Call:
        """Makes this process's Keras the route's backend (re-importing Keras if a previous item
        ran another); an eager call has nothing else to build."""
        backends.select(target.route)
        return Call(target.route)

    def run(self, model: Call, task: Task) -> Sequence[np.ndarray]:
        """The task's data as the backend's tensor, keras.ops.split, every piece back bit for bit."""
        keras = backends.select(model.backend)
        value = task.form.value
        argument = list(value) if isinstance(value, tuple) else value
        axis = {} if task.axis is None else {"axis": task.axis}
        with tensors.configured(model.backend, self.x64):
            data = tensors.to_backend(model.backend, task.data, keras)
            with backend_calls():
                pieces: Any = keras.ops.split(data, argument, **axis)
            return [self._piece(model.backend, piece, keras) for piece in pieces]

    @staticmethod
    def _piece(backend: str, piece: Any, keras: Any) -> np.ndarray:
        if not tensors.is_native(backend, piece):
            raise AdapterError(
                f"keras.ops.split returned a {type(piece).__module__}.{type(piece).__name__} on the "
                f"{backend} route, not a {backend} tensor: another backend ran this item"
            )
        return tensors.to_numpy(backend, piece, keras)

    def prepare(self, target: Target) -> None:
        """Import the route's framework (seconds: TensorFlow 4 s, torch up to 7 s here) before any
        item is timed; the first route a worker prepares also gets Keras imported with its backend
        and one throwaway split. A later route's Keras is selected by its first item's build."""
        if backends.missing(target.route) is not None:
            return  # its items are unsupported: nothing to import
        tensors.warm(target.route)
        if backends.running() is None:
            keras = backends.select(target.route)
            with tensors.configured(target.route, self.x64):
                data = tensors.to_backend(target.route, np.zeros(2, np.float32), keras)
                for piece in keras.ops.split(data, 2):
                    tensors.to_numpy(target.route, piece, keras)

    def reproducer(self, task: Task, target: Target) -> str | None:
        """Keras alone: KERAS_BACKEND set, keras imported, the same tensor and call, every run."""
        return snippets.reproducer(task, target.route, x64=self.x64)
