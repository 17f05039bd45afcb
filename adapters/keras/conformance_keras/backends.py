"""Keras's backends, one per route, and the one Keras a process holds at a time.

Keras 3 reads its backend once, when ``keras`` is first imported (the ``KERAS_BACKEND`` variable,
else ``~/.keras/keras.json``, else TensorFlow). The suite's workers, though, may serve several
targets of one adapter in turn: the pool hands a worker the next job whatever its target (the
plan groups jobs by target, and each run starts with a sample of every target's jobs). So a worker
that served ``keras/tensorflow/cpu`` may next be given a job of ``keras/jax/cpu``.

:func:`select` makes the process's Keras the route's before every item: when Keras was imported
with another backend it calls ``keras.config.set_backend``, Keras's own way to switch (it sets
``KERAS_BACKEND``, drops every ``keras`` module and imports Keras again, so nothing of the old
backend's Keras is left; nothing of ours is kept across items, which the function's warning asks
for). Then it checks ``keras.backend.backend()`` and raises :class:`AdapterError` if it is not the
route's: an item never runs under another backend's Keras without saying so.

Nothing here imports Keras or a backend at module level: the run's parent process and the zygote
import this module, and ``import keras`` would fix the process's Keras on the default backend
(TensorFlow) for every worker forked from it, which must choose its own.
"""

from __future__ import annotations

import getpass
import importlib
import importlib.util
import os
import sys
import tempfile
import warnings
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from types import ModuleType
from typing import Final

from conformance.plugin import AdapterError


@dataclass(frozen=True)
class Backend:
    """One Keras backend, the route of the same name."""

    #: Keras's name of the backend (``KERAS_BACKEND``), which is also the route's name
    name: str
    #: the import package the backend needs, and the distributions that may install it
    package: str
    distributions: tuple[str, ...]
    #: the extra of conformance-keras that installs it (empty: a dependency of Keras itself)
    extra: str


BACKENDS: Final[dict[str, Backend]] = {
    backend.name: backend
    for backend in (
        Backend("tensorflow", "tensorflow", ("tensorflow-cpu", "tensorflow"), "tensorflow"),
        Backend("jax", "jax", ("jax",), "jax"),
        Backend("torch", "torch", ("torch",), "torch"),
        Backend("numpy", "numpy", ("numpy",), ""),
        Backend("openvino", "openvino", ("openvino",), "openvino"),
    )
}


@cache
def missing(name: str) -> str | None:
    """Why the route ``name`` cannot run here (its backend's package is not installed), or None."""
    backend = BACKENDS[name]
    if importlib.util.find_spec(backend.package) is not None:
        return None
    extra = f"python -m pip install 'conformance-keras[{backend.extra}]'" if backend.extra else "pip"
    return f"route {name} needs {backend.package}, which is not installed ({extra})"


def version(name: str) -> str:
    """``distribution version`` of the backend's package, from the installed metadata (importing
    the backend to ask it would cost seconds and, for TensorFlow, a thread in the parent)."""
    for distribution in BACKENDS[name].distributions:
        try:
            return f"{distribution} {metadata.version(distribution)}"
        except metadata.PackageNotFoundError:
            continue
    return f"{BACKENDS[name].package} not installed"


def keras_version() -> str:
    return metadata.version("keras")


def running() -> str | None:
    """The backend of the Keras this process has imported, or None before the first import."""
    keras = sys.modules.get("keras")
    return None if keras is None else str(keras.backend.backend())


def private_home() -> str:
    """The KERAS_HOME the workers use: one folder per user under the system's temporary folder."""
    return os.path.join(tempfile.gettempdir(), f"conformance-keras-{getpass.getuser()}")


def select(name: str) -> ModuleType:
    """This process's Keras, imported with the backend ``name``; see the module docstring.

    Raises :class:`AdapterError` when Keras cannot be made to run that backend here (a Keras
    without ``config.set_backend``, or one whose switch did not take): the item is then the
    adapter's error, never a result of the wrong backend.
    """
    before = running()
    if before is None:
        os.environ["KERAS_BACKEND"] = name
        # Keras reads, and on first import writes, keras.json in KERAS_HOME (~/.keras by default):
        # a private one keeps the user's file untouched and its settings (floatx, ...) out of results
        os.environ["KERAS_HOME"] = private_home()
    elif before != name:
        keras = sys.modules["keras"]
        switch = getattr(keras.config, "set_backend", None)
        if switch is None:
            raise AdapterError(
                f"Keras {keras_version()} was imported with the {before} backend in this worker and has "
                f"no keras.config.set_backend to switch to {name}: this item cannot run on its route"
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
