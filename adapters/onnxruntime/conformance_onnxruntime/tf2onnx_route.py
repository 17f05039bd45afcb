"""Route ``tf2onnx``: a TensorFlow function converted to ONNX by tf2onnx and served by ONNX Runtime.

The other way Split and Slice reach ONNX from a framework: whatever ``tf2onnx.convert.from_function``
makes of a user's ``tf.split`` or ``tf.experimental.numpy.split``, ``tf.slice`` or
``tf.strided_slice``. The function is the suite's own, the one the TensorFlow adapter traces
(:func:`conformance.models.tf_functions.tf_function` for a split, the function of
:mod:`conformance.models.tf_slices` for a slice), handed over with its ``TensorSpec`` signature:
inputs ``data`` (unknown dims for ``data_shape: dynamic``) and ``axis`` / ``lengths``, or
``begin`` / ``end`` / ``strides`` / ``size``, when the case feeds them at run time, names the ONNX
graph keeps.

tf2onnx is asked for the newest opset it writes (:func:`opset`; its default is older), so that
Split is written as Split-18. Its Python API converts with ``continue_on_error=True``: a node it
fails to convert is left as TensorFlow wrote it, which ORT then refuses as an invalid model; that
refusal, and any from tracing or conversion, is the route's answer (judged), never ``unsupported``.

Needs tf2onnx and TensorFlow beside onnxruntime (``pip install adapters/onnxruntime[tensorflow]``).
"""

from __future__ import annotations

import functools
import importlib.util
import os
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from conformance.plugin import Route, Target, Task, Unsupported, version_of
from conformance_onnxruntime import transport

if TYPE_CHECKING:
    import onnxruntime  # type: ignore[import-untyped]

    from conformance_onnxruntime.adapter import Settings


@cache
def opset() -> int | None:
    """The newest ONNX opset this tf2onnx writes, the last of its opset-to-IR-version table; None
    without tf2onnx. Read from ``tf2onnx/constants.py`` loaded by path: importing
    ``tf2onnx.constants`` would import TensorFlow (seconds) in every worker's ``info()``."""
    spec = importlib.util.find_spec("tf2onnx")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(next(iter(spec.submodule_search_locations)), "constants.py")
    found = importlib.util.spec_from_file_location("_conformance_tf2onnx_constants", path)
    if found is None or found.loader is None:
        return None
    constants = importlib.util.module_from_spec(found)
    found.loader.exec_module(constants)
    return int(max(constants.OPSET_TO_IR_VERSION))


def options() -> dict[str, str]:
    """The converter's settings and the versions that decide what it writes."""
    return {
        "tf2onnx_version": version_of("tf2onnx"),
        "tf2onnx_opset": str(opset() or "not installed"),
    }


def _support(task: Task, target: Target) -> Unsupported | None:
    """A missing converter, or an axis input int32 cannot hold."""
    refused = transport.missing(
        "tf2onnx", ("tensorflow", "tf2onnx"), "pip install adapters/onnxruntime[tensorflow]"
    )
    if refused is not None:
        return refused
    from conformance.models import tf_functions, tf_slices

    problem = None if task.op in tf_slices.OPS else tf_functions.build_problem(task)
    return None if problem is None else Unsupported(problem)


def _function(task: Task) -> tuple[Any, tuple[Any, ...]]:
    """The ``tf.function``, not yet traced (tf2onnx traces it), and its ``input_signature``: the
    split's from tf_functions, or the slice's from tf_slices."""
    from conformance.models import tf_functions, tf_slices

    models: Any = tf_slices if task.op in tf_slices.OPS else tf_functions
    return models.tf_function(task), models.input_signature(task)


def _export(task: Task, target: Target) -> bytes:
    """The function converted to ONNX at :func:`opset`, serialized."""
    import tf2onnx.convert  # type: ignore[import-untyped]

    function, signature = _function(task)
    model, _ = tf2onnx.convert.from_function(function, input_signature=signature, opset=opset())
    serialized: bytes = model.SerializeToString()
    return serialized


def warm_up(target: Target) -> None:
    """What every route prepares, and one throwaway conversion: a process's first imports
    TensorFlow and tf2onnx (seconds), which would otherwise be timed as one item's build."""
    transport.prepare(target)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")  # TensorFlow's INFO lines say nothing of an item
    import tensorflow as tf  # type: ignore[import-untyped]  # TensorFlow ships no type information
    import tf2onnx.convert

    signature = [tf.TensorSpec([2], tf.float32, name="x")]
    function = tf.function(lambda x: tf.split(x, 2), input_signature=signature, autograph=False)
    tf2onnx.convert.from_function(function, input_signature=signature, opset=opset())


def _run(compiled: onnxruntime.InferenceSession, task: Task) -> Sequence[np.ndarray]:
    """Feeds the inputs as the signature names them (tf2onnx keeps those names)."""
    return transport.run(compiled, _feeds(task))


def _feeds(task: Task) -> dict[str, np.ndarray]:
    """The traced function's inputs of this run, by the names its signature gives them."""
    from conformance.models import tf_functions, tf_slices

    return tf_slices.feeds(task) if task.op in tf_slices.OPS else tf_functions.feeds(task)


def _function_code(task: Task) -> str:
    """The Python function as model code writes it and its signature as ``signature``, then
    ``function``, the tf.function of it the route converts (text only: no TensorFlow imported)."""
    from conformance.models import tf_functions, tf_slices

    if task.op in tf_slices.OPS:
        names = tf_slices.input_names(task)
        code = (
            f"def {tf_slices.FUNCTION}({', '.join(names)}):\n    return {tf_slices.call_code(task, names)}\n"
        )
        specs = ", ".join(
            f"tf.TensorSpec({shape!r}, tf.{dtype}, name={name!r})"
            for shape, dtype, name in tf_slices.signature(task)
        )
        name = tf_slices.FUNCTION
    else:
        code, specs, name = tf_functions.split_code(task), tf_functions.signature_code(task), "split"
    return (
        f"{code}\n\nsignature = [{specs}]\n"
        f"function = tf.function({name}, input_signature=signature, autograph=False)\n"
    )


def _reproducer(settings: Settings, task: Task, target: Target) -> str:
    """The function and its signature as plain TensorFlow code, the conversion as the route calls
    it, and one session run per run."""
    from conformance import reproducers

    body = (
        "import onnxruntime as ort\nimport tensorflow as tf\nimport tf2onnx.convert\n\n"
        f"{_function_code(task)}"
        f"model, _ = tf2onnx.convert.from_function(function, input_signature=signature, opset={opset()})\n"
        f"session = ort.InferenceSession(model.SerializeToString(), providers={list(settings.providers)!r})\n"
    )
    if task.dtype == "bfloat16":
        body += "# bfloat16 feeds must go through ort.OrtValue (see conformance_onnxruntime.transport)\n"
    return body + reproducers.session_runs_code(task, _feeds, "session")


def route(settings: Settings) -> Route:
    """The route, its sessions made with the adapter's ``settings``."""
    return Route(
        "tf2onnx",
        ("tensorflow.*split", "tensorflow.slice", "tensorflow.strided_slice"),
        "the traced tf.function converted by tf2onnx.convert.from_function (its newest opset), run by an "
        "InferenceSession",
        build=_export,
        compile=settings.session,
        run=_run,
        support=_support,
        reproducer=functools.partial(_reproducer, settings),
        prepare=warm_up,
        default=False,
    )
