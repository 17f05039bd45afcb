"""The TensorFlow adapter: tf.split and tf.experimental.numpy.split, run by TensorFlow itself.

Routes (every one builds its call with :mod:`conformance.models.tf_functions`, the builder LiteRT,
OpenVINO and tf2onnx convert from, so that all of them judge one program; their calls are in
:mod:`conformance_tensorflow.routes`):

``eager``
    The op called eagerly on a tensor of the case's data, as a user calls it: the axis a Python int
    (left out when the case omits it), sizes a tensor of the case's type. The graph options, which
    describe a traced program, change nothing here.
``function``
    The ``tf.function`` traced once with the case's signature (``build``, timed): the data an input
    (None dims where the case declares them unknown), the axis and sizes inputs where the case feeds
    them at run time. Every run of the case calls that one concrete function, as a deployed graph is.
``xla``
    The same function with ``jit_compile=True``, compiled by XLA at its first call. XLA has no
    string type, so string data is ``unsupported`` on this route.

Refusals are TensorFlow's: tracing and calls reach it inside ``backend_calls``, and nothing here
checks a request. Options: ``device`` (``cpu`` only; this adapter judges the CPU build).
"""

from __future__ import annotations

from collections.abc import Mapping

from conformance.plugin import AdapterInfo, AdapterOptions, installed_distribution
from conformance_tensorflow.routes import ROUTES

NAME = "tensorflow"
DEVICES = ("cpu",)


class TensorflowAdapter:
    """Runs the tensorflow.* ops through TensorFlow; see the module docstring for the routes."""

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = AdapterOptions.parse(options, devices=DEVICES)

    def info(self) -> AdapterInfo:
        """The distribution that installed TensorFlow (``tensorflow-cpu`` or another) and its version,
        from the installed metadata: importing TensorFlow in the main process costs seconds and a thread."""
        found = installed_distribution("tensorflow")
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
