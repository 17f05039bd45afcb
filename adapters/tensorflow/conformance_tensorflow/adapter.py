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
checks a request. Options: ``device`` (``cpu`` only; this adapter judges the CPU build). Each
route's calls are in :mod:`conformance_tensorflow.routes`.
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


def _distribution() -> tuple[str, str]:
    """The name and version of the distribution that installed the ``tensorflow`` package."""
    found = installed_distribution("tensorflow")
    if found is None:
        raise ModuleNotFoundError("TensorFlow is not installed (python -m pip install tensorflow-cpu)")
    return found
