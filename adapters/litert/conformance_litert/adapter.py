"""The LiteRT adapter: what a TensorFlow function becomes once converted to a LiteRT model.

Route ``converter`` (off the default run: about 65 ms an item, converting): the task's
``tf.function`` (:mod:`conformance.models.tf_functions`) converted by ``tf.lite.TFLiteConverter``
with its defaults (:func:`conformance.models.tflite_models.convert`) as the *build*; the
flatbuffer loaded into ``ai_edge_litert.interpreter.Interpreter``, tensors allocated, as the
*compile*; inputs set, ``invoke``, outputs copied as the *run*. It judges ``tensorflow.split``
(whatever operators the converter chose for it) and the builtins ``tflite.SPLIT`` and
``tflite.SPLIT_V``, converted from the same ``tf.split`` (a count, int32 sizes), and
``tensorflow.slice`` / ``tensorflow.strided_slice`` (:mod:`conformance.models.tf_slices`, judged
whatever the converter chose: SLICE for unit strides, STRIDED_SLICE otherwise). A model that does
not hold exactly that one builtin (folded, lowered to slices), or a request TensorFlow refuses to
trace, does not judge the builtin: both are ``unsupported``, raised by the suite's model builder.
A refusal by the converter itself is LiteRT's answer, and is judged.

Route ``onnx2tf`` (off the default run: seconds an item): ONNX Split and Slice, the suite's ONNX
model converted by onnx2tf and run by the same interpreter (:mod:`conformance_litert.onnx2tf_route`).

Devices, both targets unless ``device`` names one: ``xnnpack``, the default op resolver with its
default delegates (what an application gets), and ``builtin``
(``OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES``, the builtin kernels alone). Option
``num_threads`` (default ``1``: a split moves data, so the count cannot change a result); any
other option is refused at construction. Only values beyond int32 where the model holds 32-bit
integers (an axis fed at run time; for the builtins any axis and SPLIT_V size) are refused.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

from conformance.errors import UsageError
from conformance.plugin import (
    AdapterInfo,
    AdapterOptions,
    Route,
    Target,
    Task,
    Unsupported,
    installed_distribution,
)
from conformance_litert import onnx2tf_route, reproducer

if TYPE_CHECKING:
    from ai_edge_litert.interpreter import Interpreter

NAME = "litert"
DEVICES = ("xnnpack", "builtin")


def _support(task: Task, target: Target) -> Unsupported | None:
    """A value beyond int32 where the model holds 32-bit integers (see the module docstring)."""
    from conformance.models import tf_functions, tf_slices, tflite_models

    if task.op in tf_slices.OPS:  # the catalogue hands over only what tf.slice's signature can hold
        return None
    why_not = tf_functions.build_problem(task) or tflite_models.build_problem(task)
    return None if why_not is None else Unsupported(why_not)


def _build(task: Task, target: Target) -> bytes:
    """The converted flatbuffer; for a ``tflite.*`` op, only one that holds that builtin alone."""
    from conformance.models import tflite_models

    return tflite_models.model_bytes(task)


def _load(threads: int, model: bytes, target: Target) -> Interpreter:
    """The interpreter with the device's op resolver, tensors allocated: both routes' compile."""
    from conformance.models import tflite_models

    return tflite_models.load(model, delegates=target.device == "xnnpack", threads=threads)


def _run(compiled: Interpreter, task: Task) -> Sequence[np.ndarray]:
    """Feeds the task's data (and runtime axis, sizes or slice indices), invokes, returns every output."""
    from conformance.models import tflite_models

    return tflite_models.invoke(compiled, tflite_models.feeds(task))


class _Writer(Protocol):
    """A snippet writer of :mod:`conformance_litert.reproducer`."""

    def __call__(self, task: Task, *, delegates: bool, threads: int) -> str: ...


def _reproducer(write: _Writer, threads: int, task: Task, target: Target) -> str:
    """A route's snippet, written by ``write`` with the interpreter's settings."""
    return write(task, delegates=target.device == "xnnpack", threads=threads)


def _warm_up(threads: int, target: Target) -> None:
    """Convert and load one throwaway function: the first trace and conversion of a process set up
    TensorFlow's graph machinery, which would otherwise be timed as one item's build."""
    import tensorflow as tf  # type: ignore[import-untyped]  # TensorFlow ships no type information

    from conformance.models import tflite_models

    def increment(x: tf.Tensor) -> tf.Tensor:
        return x + 1

    traced = tf.function(increment, input_signature=[tf.TensorSpec([2], tf.float32)])
    model = tflite_models.convert(traced.get_concrete_function())
    _load(threads, model, target)


class LiteRTAdapter:
    """Runs tf.split, SPLIT, SPLIT_V, tf.slice and tf.strided_slice through the converter, and ONNX
    Split and Slice through onnx2tf, in the LiteRT interpreter."""

    def __init__(self, options: Mapping[str, str]) -> None:
        given = {"device": ",".join(DEVICES), **options}
        self.options = AdapterOptions.parse(given, devices=DEVICES, known=("num_threads",))
        threads = self.options.get("num_threads", "1")
        if not threads.isdigit() or int(threads) < 1:
            raise UsageError(f"num_threads {threads!r}: expected a positive integer")
        self.threads = int(threads)

    def info(self) -> AdapterInfo:
        """LiteRT's version, and the TensorFlow whose converter wrote the models (from the installed
        metadata: an import here would cost every worker 4 s)."""
        from ai_edge_litert import __version__ as litert_version

        load = functools.partial(_load, self.threads)
        converter = Route(
            "converter",
            (
                "tensorflow.split",
                "tflite.SPLIT",
                "tflite.SPLIT_V",
                "tensorflow.slice",
                "tensorflow.strided_slice",
            ),
            "the traced tf.function converted by TFLiteConverter, run by the LiteRT interpreter",
            build=_build,
            compile=load,
            run=_run,
            support=_support,
            reproducer=functools.partial(_reproducer, reproducer.snippet, self.threads),
            prepare=functools.partial(_warm_up, self.threads),
            default=False,
        )
        onnx2tf = onnx2tf_route.route(
            load, functools.partial(_reproducer, reproducer.onnx2tf_snippet, self.threads)
        )
        return AdapterInfo(
            name=NAME,
            backend="ai-edge-litert",
            version=litert_version,
            routes=(converter, onnx2tf),
            devices=self.options.devices,
            options={
                **self.options.resolved,
                "num_threads": str(self.threads),
                "converter": " ".join(installed_distribution("tensorflow") or ("tensorflow", "missing")),
                **onnx2tf_route.options(),
            },
        )
