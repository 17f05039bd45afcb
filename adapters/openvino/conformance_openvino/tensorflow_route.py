"""Route ``tensorflow``: the suite's traced ``tf.function``, converted by OpenVINO's TensorFlow frontend.

The function is :func:`conformance.models.tflite_models.traced_function` (``tf_functions``' for a
split op, ``tf_slices``' for ``tf.slice`` and ``tf.strided_slice``), the very concrete function the
TensorFlow adapter runs and LiteRT and tf2onnx convert, handed over as OpenVINO's documentation
converts an in-memory model: ``ov.convert_model(concrete_function)``, with no ``input=`` argument,
because the frontend reads the input names, types and shapes from its ``TensorSpec`` signature
(unknown dims stay unknown, so the model must keep the op working at any later shape).

Tracing and conversion are timed together as the build; a refusal while tracing is TensorFlow's,
and the route's too (a user converting a ``tf.split`` meets it before OpenVINO does). Needs
TensorFlow beside OpenVINO (``pip install adapters/openvino[tensorflow]``).
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any

import numpy as np
import openvino as ov  # type: ignore[import-untyped]  # ships .pyi stubs but no py.typed

from conformance.models import tf_functions, tf_slices, tflite_models
from conformance.plugin import Task

#: What the route's own refusal says when TensorFlow is missing.
MISSING: str = "route tensorflow needs tensorflow: pip install adapters/openvino[tensorflow]"


def unsupported(task: Task) -> str | None:
    """TensorFlow missing, or a split axis fed at run time that its int32 input cannot hold; every
    other request is traced and converted (complex data included: the frontend is handed it)."""
    if importlib.util.find_spec("tensorflow") is None:
        return MISSING
    return build_problem(task)


def build_problem(task: Task) -> str | None:
    """Why the traced function cannot hold the request (a split's run-time axis past int32), or
    None; a Slice function takes every request the catalogue hands its op."""
    return None if task.op in tf_slices.OPS else tf_functions.build_problem(task)


def build_model(task: Task, core: ov.Core) -> ov.Model:
    """Trace the task's function and convert the ConcreteFunction, shapes from its signature."""
    del core  # convert_model needs no core; compile uses the adapter's
    model: ov.Model = ov.convert_model(tflite_models.traced_function(task))
    return model


def runtime_inputs(task: Task) -> dict[str, np.ndarray]:
    """The inputs by the signature's names, from this run's task (its shape, its runtime values)."""
    return tflite_models.feeds(task)


def throwaway_function() -> Any:
    """A concrete ``tf.split`` function for a warm-up: the first trace of a process imports
    TensorFlow (seconds), which would otherwise be timed as one item's build."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")  # TensorFlow's INFO lines say nothing of an item
    import tensorflow as tf  # type: ignore[import-untyped]  # TensorFlow ships no type information

    function = tf.function(
        lambda x: tf.split(x, 2), input_signature=[tf.TensorSpec([2], tf.float32)], autograph=False
    )
    return function.get_concrete_function()


def warm_up() -> None:
    """One throwaway trace and conversion, which also loads the frontend."""
    ov.convert_model(throwaway_function())
