"""The TensorFlow adapter: tf.split and tf.experimental.numpy.split, run by TensorFlow itself.

Routes (every one builds its call with :mod:`conformance.models.tf_functions`, the builder
LiteRT, OpenVINO and tf2onnx convert from, so that all of them judge one program):

``eager``
    The op called eagerly on a tensor of the case's data, the way a user calls it: the axis a
    Python int (left out when the case omits it), sizes a tensor of the case's type. Eager
    TensorFlow has no graph, so the graph options change nothing here: ``inputs`` and
    ``data_shape`` describe a traced program.
``function``
    The ``tf.function`` traced once with the case's signature (``build``, timed): the data an
    input, with None dims when the case declares them unknown, the axis and sizes inputs when
    the case feeds them at run time. Every run of the case calls that one concrete function
    with its own data and runtime values, as a deployed graph is called.
``xla``
    The same function with ``jit_compile=True``: XLA compiles it at its first call for the
    shapes (and the values of the inputs XLA needs as constants, axis and sizes) it is called
    with. XLA has no string type, so string data is ``unsupported`` on this route.

Refusals are TensorFlow's: tracing and calls reach it inside ``backend_calls``, and nothing here
checks a request. Options: ``device`` (``cpu`` only; this adapter judges the CPU build).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from conformance import dtypes
from conformance.plugin import (
    AdapterInfo,
    AdapterOptions,
    Route,
    Target,
    Task,
    Unsupported,
    backend_calls,
    installed_distribution,
)
from conformance_tensorflow import snippets

if TYPE_CHECKING:
    import tensorflow as tf  # type: ignore[import-untyped]  # TensorFlow ships no type information

NAME = "tensorflow"
DEVICES = ("cpu",)
#: What the workers' parent may import: this module, the builder and TensorFlow, which starts no
#: thread when imported with the zygote's thread variables (the one thread once seen was NumPy's
#: OpenBLAS pool). A worker that replaces one TensorFlow killed then starts in milliseconds, not
#: the 3-4.5 s of a fresh import (six such deaths in a full run, and every new worker's first
#: TensorFlow item). Its thread pools start at the first operation, in ``prepare``, in the worker.
_IMPORTS = (__name__, "tensorflow", "conformance.models.tf_functions")
_OPS = ("tensorflow.*",)

ROUTES = (
    Route("eager", _OPS, "the TensorFlow function called eagerly on a tensor of the data", imports=_IMPORTS),
    Route(
        "function",
        _OPS,
        "a tf.function traced with the case's input signature, run as the concrete function",
        imports=_IMPORTS,
    ),
    Route(
        "xla",
        _OPS,
        "the same tf.function compiled by XLA (jit_compile=True) at its first call",
        default=False,
        imports=_IMPORTS,
    ),
)


@dataclass(frozen=True)
class Built:
    """What ``run`` calls: the traced concrete function, or None for an eager call."""

    function: tf.types.experimental.ConcreteFunction | None


class TensorflowAdapter:
    """Runs the tensorflow.* ops through TensorFlow; see the module docstring for the routes."""

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = AdapterOptions.parse(options, devices=DEVICES)

    def info(self) -> AdapterInfo:
        """The distribution that installed TensorFlow (the CPU wheel ``tensorflow-cpu``, or another)
        and its version, which is ``tf.__version__`` for a release. Read from the installed
        metadata: importing TensorFlow in the run's main process would cost it 2 s and a thread."""
        distribution, version = _distribution()
        return AdapterInfo(
            name=NAME,
            backend=distribution,
            version=version,
            routes=ROUTES,
            devices=self.options.devices,
            options=self.options.resolved,
        )

    def support(self, task: Task, target: Target) -> Unsupported | None:
        """Refuses only what cannot be handed over: strings to XLA, which has no string type, and
        an axis input that int32 (the type of ``split_dim``) cannot hold."""
        if target.route == "xla" and task.dtype in dtypes.STRING:
            return Unsupported("XLA has no string element type: it cannot compile a function of strings")
        if target.route != "eager":
            from conformance.models import tf_functions

            why_not = tf_functions.build_problem(task)
            return None if why_not is None else Unsupported(why_not)
        return None

    def build(self, task: Task, target: Target) -> Built:
        """Traces the function (``function``, ``xla``); an eager call has nothing to build."""
        from conformance.models import tf_functions

        if target.route == "eager":
            return Built(None)
        return Built(tf_functions.split_function(task, jit_compile=target.route == "xla"))

    def run(self, model: Built, task: Task) -> Sequence[np.ndarray]:
        """Converts the task's inputs bit for bit, calls TensorFlow, converts every piece back."""
        from conformance.models import tf_functions

        if model.function is None:
            data = tf_functions.to_tf(task.data)
            with backend_calls():
                outputs: Any = tf_functions.call(task, {tf_functions.DATA: data})
        else:
            inputs = tf_functions.tensors(task)
            with backend_calls():
                outputs = model.function(*inputs)
        return tf_functions.to_numpy_all(outputs)

    def prepare(self, target: Target) -> None:
        """Import TensorFlow with its thread pools sized to the worker's share of the cores; on
        ``function`` and ``xla``, one throwaway trace (and XLA compilation), whose first time in a
        process costs far more than any later one and would otherwise land on one item."""
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")  # TensorFlow's INFO lines say nothing of an item
        import tensorflow as tf

        threads = int(os.environ.get("CONFORMANCE_THREADS", "0") or 0)
        with contextlib.suppress(RuntimeError):  # set already: a second target in this worker
            tf.config.threading.set_intra_op_parallelism_threads(threads)
            tf.config.threading.set_inter_op_parallelism_threads(threads)
        if target.route != "eager":
            warm = tf.function(lambda x: tf.split(x, 2), autograph=False, jit_compile=target.route == "xla")
            warm(tf.zeros([2]))

    def reproducer(self, task: Task, target: Target) -> str | None:
        """The TensorFlow call on the case's data; through tf.function (and XLA) as the route does."""
        return snippets.reproducer(task, target.route)


def _distribution() -> tuple[str, str]:
    """The name and version of the distribution that installed the ``tensorflow`` package."""
    found = installed_distribution("tensorflow")
    if found is None:
        raise ModuleNotFoundError("TensorFlow is not installed (python -m pip install tensorflow-cpu)")
    return found
