"""The LiteRT adapter: what a TensorFlow function becomes once converted to a LiteRT model.

Route ``converter`` (off the default run: conversion costs about 65 ms per item, see docs/performance.md):
the task's ``tf.function``, traced with ``TensorSpec`` inputs by
:mod:`conformance.models.tf_functions`, converted by ``tf.lite.TFLiteConverter`` with its
defaults (builtin operators only, no optimizations: :func:`conformance.models.tflite_models.convert`)
as the *build*; the flatbuffer loaded into ``ai_edge_litert.interpreter.Interpreter`` and its
tensors allocated as the *compile*; inputs set, ``invoke``, outputs copied as the *run*.

It judges three ops:

- ``tensorflow.split``: what a converted model does with a user's ``tf.split``, whatever operators
  the converter chose for it;
- ``tflite.SPLIT`` and ``tflite.SPLIT_V``: the builtins themselves, converted from the same
  ``tf.split`` (a count becomes SPLIT, int32 sizes SPLIT_V). The converted model must hold exactly
  that one builtin: a model the converter folded, lowered to slices or otherwise rewrote does not
  judge the builtin, and neither does a request TensorFlow refuses to trace (LiteRT never sees
  it); both are ``unsupported`` with what happened instead, raised by the suite's model builder
  (:func:`conformance.models.tflite_models.model_bytes`). A refusal by the converter itself is
  LiteRT's answer, and is judged.

Devices are the interpreter's two CPU set-ups, both targets unless ``device`` names one:

``xnnpack``
    the default op resolver with its default delegates: XNNPACK takes the operators it supports
    (float32 SPLIT and SPLIT_V among them), the builtin kernels the rest. What an application gets.
``builtin``
    ``OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES``: LiteRT's builtin kernels alone.

Options: ``device`` (``xnnpack,builtin`` by default), ``num_threads`` (default ``1``: the suite runs
tiny models in parallel workers, and a split moves data, so the count cannot change a result).
Anything else is refused at construction.

Route ``onnx2tf`` (off the default run: seconds per item): the ``onnx.*`` ops, the suite's ONNX model
converted by onnx2tf and run by the same interpreter on the same devices
(:mod:`conformance_litert.onnx2tf_route`).

Only values beyond int32 where the model holds 32-bit integers are refused by ``support``: an axis
fed at run time (raw Split's int32 ``split_dim``), and for the builtins any axis and any SPLIT_V
size. Every element type and graph option is traced, handed to the converter and judged by what
the converter and the interpreter do with it.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

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
    """Only what the model cannot hold: an axis fed at run time is an int32 input (raw Split's
    ``split_dim``), and the builtins take the axis and SPLIT_V's sizes as 32-bit integers, so a
    value beyond int32 cannot reach them."""
    from conformance.models import tf_functions, tflite_models

    why_not = tf_functions.build_problem(task) or tflite_models.build_problem(task)
    return None if why_not is None else Unsupported(why_not)


def _build(task: Task, target: Target) -> bytes:
    """The converted flatbuffer; for a ``tflite.*`` op, only one that holds that builtin alone."""
    from conformance.models import tflite_models

    return tflite_models.model_bytes(task)


def _load(threads: int, model: bytes, target: Target) -> Interpreter:
    """The interpreter with the device's op resolver, tensors allocated (delegates apply here):
    both routes' compile."""
    from conformance.models import tflite_models

    return tflite_models.load(model, delegates=target.device == "xnnpack", threads=threads)


def _run(compiled: Interpreter, task: Task) -> Sequence[np.ndarray]:
    """Feeds the task's data (and runtime axis or sizes), invokes, returns every output."""
    from conformance.models import tf_functions, tflite_models

    return tflite_models.invoke(compiled, tf_functions.feeds(task))


def _reproducer(threads: int, task: Task, target: Target) -> str:
    """The function, its conversion and its run with TensorFlow and ai_edge_litert alone."""
    return reproducer.snippet(task, delegates=target.device == "xnnpack", threads=threads)


def _onnx2tf_reproducer(threads: int, task: Task, target: Target) -> str:
    """The ONNX model, its conversion by onnx2tf and the run."""
    return reproducer.onnx2tf_snippet(task, delegates=target.device == "xnnpack", threads=threads)


def _converter_route(threads: int) -> Route:
    return Route(
        "converter",
        ("tensorflow.split", "tflite.SPLIT", "tflite.SPLIT_V"),
        "the traced tf.function converted by TFLiteConverter, run by the LiteRT interpreter",
        build=_build,
        compile=functools.partial(_load, threads),
        run=_run,
        support=_support,
        reproducer=functools.partial(_reproducer, threads),
        prepare=functools.partial(_warm_up, threads),
        default=False,
        # neither starts a thread once the zygote has set the thread variables (OpenBLAS's pool)
    )


def _warm_up(threads: int, target: Target) -> None:
    """Import TensorFlow and LiteRT and convert one throwaway function: the first trace and
    conversion of a process set up TensorFlow's graph machinery, which would otherwise be timed as
    one item's build."""
    import tensorflow as tf  # type: ignore[import-untyped]  # TensorFlow ships no type information

    from conformance.models import tflite_models

    def increment(x: tf.Tensor) -> tf.Tensor:
        return x + 1

    traced = tf.function(increment, input_signature=[tf.TensorSpec([2], tf.float32)])
    model = tflite_models.convert(traced.get_concrete_function())
    _load(threads, model, target)


class LiteRTAdapter:
    """Runs tf.split, SPLIT and SPLIT_V through the converter and the LiteRT interpreter."""

    def __init__(self, options: Mapping[str, str]) -> None:
        given = {"device": ",".join(DEVICES), **options}
        self.options = AdapterOptions.parse(given, devices=DEVICES, known=("num_threads",))
        threads = self.options.get("num_threads", "1")
        if not threads.isdigit() or int(threads) < 1:
            raise UsageError(f"num_threads {threads!r}: expected a positive integer")
        self.threads = int(threads)

    def info(self) -> AdapterInfo:
        """LiteRT's version, and the TensorFlow whose converter wrote the models (from the installed
        metadata: an import here would cost every worker 4 s, the onnx2tf route's too)."""
        from ai_edge_litert import __version__ as litert_version

        onnx2tf = onnx2tf_route.route(
            functools.partial(_load, self.threads), functools.partial(_onnx2tf_reproducer, self.threads)
        )
        return AdapterInfo(
            name=NAME,
            backend="ai-edge-litert",
            version=litert_version,
            routes=(_converter_route(self.threads), onnx2tf),
            devices=self.options.devices,
            options={
                **self.options.resolved,
                "num_threads": str(self.threads),
                "converter": " ".join(installed_distribution("tensorflow") or ("tensorflow", "missing")),
                **onnx2tf_route.options(),
            },
        )
