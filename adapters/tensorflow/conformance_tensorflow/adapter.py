"""The TensorFlow adapter: tf.split, tf.experimental.numpy.split, tf.slice and tf.strided_slice,
run by TensorFlow itself.

Every route builds its call with :mod:`conformance.models.tf_functions` (the Split ops) or
:mod:`conformance.models.tf_slices` (the Slice ops), the builders LiteRT, OpenVINO and tf2onnx
convert from, so that all of them judge one program:

``eager``
    The op called on a tensor of the case's data, as a user calls it: the axis a Python int (left
    out when the case omits it), sizes and slice indices tensors of the case's type; the other
    graph options change nothing.
``function``
    The ``tf.function`` traced once with the case's signature (``build``, timed): the data an input
    (None dims where the case declares them unknown), the axis, sizes and slice indices inputs where
    the case feeds them at run time; every run calls that one concrete function, as a deployed
    graph is.
``xla``
    The same function with ``jit_compile=True``; XLA has no string type, so string data is
    ``unsupported`` here.

Refusals are TensorFlow's (tracing and calls are inside ``backend_calls``). Options: ``device``
(``cpu`` only; this adapter judges the CPU build).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from conformance import dtypes, plugin
from conformance.plugin import AdapterInfo, AdapterOptions, Route, Target, Task, Unsupported, backend_calls
from conformance_tensorflow import snippets

if TYPE_CHECKING:
    import tensorflow as tf  # type: ignore[import-untyped]  # TensorFlow ships no type information

NAME = "tensorflow"
DEVICES = ("cpu",)
_OPS: Final = ("tensorflow.*split", "tensorflow.slice", "tensorflow.strided_slice")


#: TensorFlow starts its threads at its first op, not when imported: a run's zygote imports it
_IMPORTS = ("tensorflow",)


def _prepare(target: Target) -> None:
    """Import TensorFlow, its thread pools sized to the worker's share of the cores, untimed."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")  # TensorFlow's INFO lines say nothing of an item
    import tensorflow as tf

    threads = int(os.environ.get("CONFORMANCE_THREADS", "0") or 0)
    with contextlib.suppress(RuntimeError):  # set already: a second target in this worker
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)


def _build_eager(task: Task, target: Target) -> None:
    return None


def _run_eager(model: None, task: Task) -> Sequence[np.ndarray]:
    """Converts the data bit for bit, calls TensorFlow, converts every piece back."""
    from conformance.models import tf_functions, tf_slices

    call = tf_slices.call if task.op in tf_slices.OPS else tf_functions.call
    data = tf_functions.to_tf(task.data)
    with backend_calls():
        outputs: Any = call(task, {tf_functions.DATA: data})
    return tf_functions.to_numpy_all(outputs)


@dataclass(frozen=True)
class _Traced:
    """The calls of a traced route: the function compiled by XLA at its first call, or not."""

    jit_compile: bool

    def support(self, task: Task, target: Target) -> Unsupported | None:
        """Refuses only what cannot be handed over: strings to XLA, which has no string type, an
        axis input that int32 (the type of ``split_dim``) cannot hold (a mask bit past an int32 is
        the catalogue's: such a case is not applicable to tf.strided_slice)."""
        from conformance.models import tf_functions, tf_slices

        if self.jit_compile and task.dtype in dtypes.STRING:
            return Unsupported("XLA has no string element type: it cannot compile a function of strings")
        why_not = None if task.op in tf_slices.OPS else tf_functions.build_problem(task)
        return None if why_not is None else Unsupported(why_not)

    def build(self, task: Task, target: Target) -> tf.types.experimental.ConcreteFunction:
        """Traces the function (timed as the build)."""
        from conformance.models import tf_functions, tf_slices

        if task.op in tf_slices.OPS:
            return tf_slices.concrete_function(task, jit_compile=self.jit_compile)
        return tf_functions.split_function(task, jit_compile=self.jit_compile)

    @staticmethod
    def run(model: tf.types.experimental.ConcreteFunction, task: Task) -> Sequence[np.ndarray]:
        """Converts the task's inputs bit for bit, calls the function, converts every piece back."""
        from conformance.models import tf_functions, tf_slices

        inputs = tf_slices.tensors(task) if task.op in tf_slices.OPS else tf_functions.tensors(task)
        with backend_calls():
            outputs = model(*inputs)
        return tf_functions.to_numpy_all(outputs)

    def reproducer(self, task: Task, target: Target) -> str:
        return snippets.traced(task, jit_compile=self.jit_compile)

    def prepare(self, target: Target) -> None:
        """TensorFlow imported, and one throwaway trace (and XLA compilation): a process's first costs
        far more than any later one."""
        _prepare(target)
        import tensorflow as tf

        tf.function(lambda x: tf.split(x, 2), autograph=False, jit_compile=self.jit_compile)(tf.zeros([2]))

    def route(self, name: str, description: str, *, default: bool = True) -> Route:
        return Route(
            name,
            _OPS,
            description,
            build=self.build,
            run=self.run,
            support=self.support,
            reproducer=self.reproducer,
            prepare=self.prepare,
            default=default,
            imports=_IMPORTS,
        )


ROUTES: Final = (
    Route(
        "eager",
        _OPS,
        "the TensorFlow function called eagerly on a tensor of the data",
        build=_build_eager,
        run=_run_eager,
        reproducer=snippets.eager,
        prepare=_prepare,
        imports=_IMPORTS,
    ),
    _Traced(jit_compile=False).route(
        "function", "a tf.function traced with the case's input signature, run as the concrete function"
    ),
    _Traced(jit_compile=True).route(
        "xla", "the same tf.function compiled by XLA (jit_compile=True) at its first call", default=False
    ),
)


class TensorflowAdapter:
    """Runs the tensorflow.* ops through TensorFlow; see the module docstring for the routes."""

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = AdapterOptions.parse(options, devices=DEVICES)

    def info(self) -> AdapterInfo:
        """The distribution that installed TensorFlow (``tensorflow-cpu`` or another) and its version,
        from the installed metadata: importing TensorFlow in the main process costs seconds and a thread."""
        found = plugin.installed_distribution("tensorflow")
        if found is None:
            raise ModuleNotFoundError("TensorFlow is not installed (python -m pip install tensorflow-cpu)")
        distribution, version = found
        return AdapterInfo(
            name=NAME,
            backend=distribution,
            version=version,
            routes=ROUTES,
            devices=self.options.devices,
            options=self.options.resolved,
        )
