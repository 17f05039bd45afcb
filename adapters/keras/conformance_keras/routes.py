"""The Keras adapter's routes, one per backend (see the adapter's module docstring): the same
eager ``keras.ops.split`` call, on the route's backend's tensor, with the backend's own limits."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from conformance import dtypes
from conformance.plugin import AdapterError, Route, Target, Task, Unsupported, backend_calls
from conformance_keras import backends, snippets, tensors

OPS: Final = ("keras.ops.split",)
#: Routes that cost more than 20 ms an item (measured: docs/performance.md), left out of the default run.
_SLOW: Final = frozenset({"jax", "openvino"})
_WIDE: Final = frozenset({"int64", "uint64", "float64", "complex128"})
_TENSOR_KIND: Final = {
    "tensorflow": "a tf.Tensor",
    "jax": "a jax.Array",
    "torch": "a torch.Tensor",
    "numpy": "a NumPy array",
    "openvino": "keras.ops.convert_to_tensor's OpenVINOKerasTensor, read back by convert_to_numpy",
}


def _no_complex(task: Task, x64: bool) -> str | None:
    if task.dtype not in dtypes.COMPLEX:
        return None
    return (
        "OpenVINO has no complex element type: Keras's openvino backend has no complex dtype to "
        "make a tensor of this data"
    )


def _narrowed(task: Task, x64: bool) -> str | None:
    if x64 or task.dtype not in _WIDE:
        return None
    return (
        f"JAX's 64-bit types are off (jax_enable_x64, off by default): a jax.Array cannot hold "
        f"{task.dtype} data, jnp.asarray narrows it to 32 bits; --option keras.jax_x64=on judges it"
    )


#: What a backend's tensors cannot hold, by the route (backend) that refuses it.
_LIMITS: Final[Mapping[str, Callable[[Task, bool], str | None]]] = {"openvino": _no_complex, "jax": _narrowed}


@dataclass(frozen=True)
class BackendRoute:
    """The calls of the route ``backend``; ``x64``: JAX's 64-bit types (the jax_x64 option)."""

    backend: str
    x64: bool

    def support(self, task: Task, target: Target) -> Unsupported | None:
        """Refuses only what the route cannot be handed: a backend not installed, complex data for
        OpenVINO (no complex element type), 64-bit data for JAX with its 64-bit types off."""
        limit = _LIMITS.get(self.backend)
        why_not = backends.missing(self.backend) or (limit(task, self.x64) if limit else None)
        return None if why_not is None else Unsupported(why_not)

    def build(self, task: Task, target: Target) -> None:
        """Makes this process's Keras the route's backend (re-importing Keras if a previous item
        ran another); an eager call has nothing else to build."""
        backends.select(self.backend)

    def run(self, model: None, task: Task) -> Sequence[np.ndarray]:
        """The task's data as the backend's tensor, keras.ops.split, every piece back bit for bit."""
        keras = backends.select(self.backend)
        axis = {} if task.request.axis is None else {"axis": task.request.axis}
        with tensors.configured(self.backend, self.x64):
            data = tensors.to_backend(self.backend, task.data, keras)
            with backend_calls():
                pieces: Any = keras.ops.split(data, snippets.split_argument(task), **axis)
            return [self._piece(piece, keras) for piece in pieces]

    def _piece(self, piece: Any, keras: Any) -> np.ndarray:
        if not tensors.is_native(self.backend, piece):
            raise AdapterError(
                f"keras.ops.split returned a {type(piece).__module__}.{type(piece).__name__} on the "
                f"{self.backend} route, not a {self.backend} tensor: another backend ran this item"
            )
        return tensors.to_numpy(self.backend, piece, keras)

    def reproducer(self, task: Task, target: Target) -> str:
        """Keras alone: KERAS_BACKEND set, keras imported, the same tensor and call, every run."""
        return snippets.reproducer(task, self.backend, x64=self.x64)

    def prepare(self, target: Target) -> None:
        """Import the route's framework (seconds) before any item is timed; the first route a worker
        prepares also gets Keras imported with its backend and one throwaway split. A later route's
        Keras is selected by its first item's build."""
        if backends.missing(self.backend) is not None:
            return  # its items are unsupported: nothing to import
        tensors.warm(self.backend)
        if backends.running() is None:
            keras = backends.select(self.backend)
            with tensors.configured(self.backend, self.x64):
                data = tensors.to_backend(self.backend, np.zeros(2, np.float32), keras)
                for piece in keras.ops.split(data, 2):
                    tensors.to_numpy(self.backend, piece, keras)

    def route(self) -> Route:
        """The route, the backend's installed version in its description."""
        name = self.backend
        return Route(
            name,
            OPS,
            f"keras.ops.split on Keras's {name} backend ({backends.version(name)}), "
            f"called on {_TENSOR_KIND.get(name, 'its tensor')}",
            build=self.build,
            run=self.run,
            support=self.support,
            reproducer=self.reproducer,
            prepare=self.prepare,
            default=name not in _SLOW,
            imports=backends.BACKENDS[name].imports,
        )


def routes(x64: bool) -> tuple[Route, ...]:
    """One route per backend."""
    return tuple(BackendRoute(name, x64).route() for name in backends.BACKENDS)
