"""The JAX adapter: jax.numpy's split functions and jax.lax.split, run by JAX itself.

Routes (built with :mod:`conformance_jax.calls`, in :mod:`conformance_jax.routes`):

``eager``
    The function called on a JAX array of the case's data (``jnp.asarray``), as a user calls it: a
    count as an int, split points or sizes as a list, ``axis=`` only when the case states one. Eager
    JAX has no graph, so the graph options change nothing here.
``jit``
    ``jax.jit`` of the split, traced and lowered for the case's data (``build``), compiled by XLA
    (``compile``) and called on the data (``run``). The split value and the axis are static
    arguments, as jax.jit needs values that decide output shapes to be; a split value the case feeds
    at run time (``inputs: runtime``) is a traced argument instead, JAX's to accept or refuse.

Devices: ``cpu`` is JAX's default 32-bit mode, which narrows 64-bit data as it enters JAX (reported
as a dtype mismatch), ``cpu-x64`` the same calls with ``jax_enable_x64`` on; ``gpu`` and ``gpu-x64``
are both on JAX's first GPU (CUDA or ROCm plugin), asked for with ``--option jax.device=...`` (the
default is ``cpu,cpu-x64``; a GPU where JAX has none is a usage error). Every phase of an item runs
in JAX's thread-local ``enable_x64`` and ``default_device`` contexts for its device, so one worker
can serve several; a model keeps its device (JAX refuses to run an executable in the other mode),
and ``run`` checks that every piece is on it.

Refusals are JAX's: every call into it happens inside ``backend_calls``, and nothing here checks a
request. JAX has no string element type, so string data is ``unsupported``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from importlib import metadata

from conformance.errors import UsageError
from conformance.plugin import AdapterInfo, AdapterOptions
from conformance_jax import calls, routes

NAME = "jax"


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
            routes=routes.routes(self._on),
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
