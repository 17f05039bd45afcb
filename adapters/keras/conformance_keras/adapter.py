"""The Keras adapter: ``keras.ops.split`` judged on each of Keras 3's backends.

One route per backend, named as Keras names it: ``tensorflow``, ``jax``, ``torch``, ``numpy`` and
``openvino``. Each calls ``keras.ops.split(x, indices_or_sections, axis=...)`` eagerly, as a user of
that backend does: ``x`` the backend's own tensor of the data (:mod:`conformance_keras.tensors`),
``indices_or_sections`` an int or a list as the case writes it, ``axis=`` only when the case states
one (else Keras's default, 0, is judged), on a Keras imported with the route's backend, checked
before the call and on what comes back (:mod:`conformance_keras.backends`).

Every route is always offered, so that results files of two environments list the same targets; a
route whose backend package is missing makes its items ``unsupported``, naming the pip extra.

Options: ``device`` (``cpu`` only) and ``jax_x64`` (``off``, JAX's default, or ``on``): whether the
jax route runs with JAX's 64-bit types. Off, a jax array cannot hold int64, uint64, float64 or
complex128 data (JAX narrows it to 32 bits), so those items are ``unsupported`` there.

Refusals are Keras's and its backends': the calls run inside ``backend_calls`` and nothing here
checks a request. Each route's calls are in :mod:`conformance_keras.routes`.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import metadata
from typing import Final

from conformance.errors import UsageError
from conformance.plugin import AdapterInfo, AdapterOptions
from conformance_keras import routes

NAME: Final = "keras"
DEVICES: Final = ("cpu",)
_X64: Final = ("off", "on")


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
            version=metadata.version("keras"),
            routes=routes.routes(self.x64),
            devices=self.options.devices,
            options={**self.options.resolved, "jax_x64": _X64[self.x64]},
        )
