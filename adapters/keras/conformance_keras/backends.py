"""Keras's backends, one per route, and the one Keras a process holds at a time.

Keras 3 reads its backend once, when ``keras`` is first imported (``KERAS_BACKEND``, else
``~/.keras/keras.json``, else TensorFlow), but a worker may serve several of this adapter's targets
in turn: one that served ``keras/tensorflow/cpu`` may next be given a job of ``keras/jax/cpu``.
So :func:`select` makes the process's Keras the route's before every item, switching with Keras's
own ``keras.config.set_backend`` (which drops every ``keras`` module and imports Keras again; we keep
no Keras object across items, as its warning asks), and raises :class:`AdapterError` if
``keras.backend.backend()`` is then not the route's: an item never runs under another backend.

Nothing here imports Keras or a backend at module level: the run's parent process and the zygote
import this module, and ``import keras`` there would fix every forked worker on TensorFlow.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import sys
import warnings
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from types import ModuleType
from typing import Final

from conformance.plugin import AdapterError, private_folder


@dataclass(frozen=True)
class Backend:
    """One Keras backend, the route of the same name."""

    #: Keras's name of the backend (``KERAS_BACKEND``), which is also the route's name
    name: str
    #: the import package the backend needs, and the distributions that may install it
    package: str
    distributions: tuple[str, ...]
    #: the extra of conformance-keras that installs it (empty: a dependency of the adapter itself)
    extra: str
    #: the modules Keras's backend module imports (the route's Route.imports): the framework, and
    #: for numpy what Keras 3 imports there besides it (scipy in its linalg, JAX's backend in its
    #: math); never ``keras`` itself, which binds its backend when imported
    imports: tuple[str, ...] = ()


BACKENDS: Final[dict[str, Backend]] = {
    backend.name: backend
    for backend in (
        Backend("tensorflow", "tensorflow", ("tensorflow-cpu", "tensorflow"), "tensorflow", ("tensorflow",)),
        Backend("jax", "jax", ("jax",), "", ("jax",)),
        Backend("torch", "torch", ("torch",), "torch", ("torch",)),
        Backend("numpy", "numpy", ("numpy",), "", ("numpy", "scipy", "jax")),
        Backend("openvino", "openvino", ("openvino",), "openvino", ("openvino",)),
    )
}


@cache
def missing(name: str) -> str | None:
    """Why the route ``name`` cannot run here (its backend's package is not installed), or None."""
    backend = BACKENDS[name]
    if importlib.util.find_spec(backend.package) is not None:
        return None
    wanted = f"conformance-keras[{backend.extra}]" if backend.extra else "conformance-keras"
    return f"route {name} needs {backend.package}, which is not installed (python -m pip install '{wanted}')"


def version(name: str) -> str:
    """``distribution version`` of the backend's package, from the installed metadata (importing
    the backend to ask it would cost seconds and, for TensorFlow, a thread in the parent)."""
    for distribution in BACKENDS[name].distributions:
        with contextlib.suppress(metadata.PackageNotFoundError):
            return f"{distribution} {metadata.version(distribution)}"
    return f"{BACKENDS[name].package} not installed"


def running() -> str | None:
    """The backend of the Keras this process has imported, or None before the first import."""
    keras = sys.modules.get("keras")
    return None if keras is None else str(keras.backend.backend())


def select(name: str) -> ModuleType:
    """This process's Keras, imported with the backend ``name``; see the module docstring."""
    # Keras reads keras.json in KERAS_HOME (~/.keras by default), and writes it if missing, on
    # every import, a switch's too: a private one keeps the user's file untouched and its
    # settings (floatx, ...) out of results
    os.environ["KERAS_HOME"] = private_folder("keras")
    before = running()
    if before is None:
        os.environ["KERAS_BACKEND"] = name
    elif before != name:
        keras = sys.modules["keras"]
        switch = getattr(keras.config, "set_backend", None)
        if switch is None:
            raise AdapterError(
                f"Keras {metadata.version('keras')} was imported with the {before} backend in this worker "
                f"and has no keras.config.set_backend to switch to {name}: this item cannot run on its route"
            )
        with warnings.catch_warnings():  # "set_backend is dangerous": we keep no Keras object
            warnings.simplefilter("ignore")
            switch(name)
        print(f"conformance-keras: Keras re-imported with the {name} backend (was {before})", file=sys.stderr)
    keras = importlib.import_module("keras")
    now = str(keras.backend.backend())
    if now != name:
        raise AdapterError(
            f"Keras runs the {now} backend in this worker, not {name} (KERAS_BACKEND="
            f"{os.environ.get('KERAS_BACKEND')!r}): refusing to run this item under another backend"
        )
    return keras
