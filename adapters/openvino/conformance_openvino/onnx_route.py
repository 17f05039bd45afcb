"""Route ``onnx``: the suite's ONNX model, written to a ``.onnx`` file and read by OpenVINO.

The model is :mod:`conformance.models.onnx_graphs`'s, the bytes ONNX Runtime is handed, read as a
user reads one: ``core.read_model("model.onnx")``, which runs OpenVINO's ONNX frontend, whose
translation of each ``Split`` and ``Slice`` version and its checks are part of what is judged. A SplitToSequence
model gets the Sequence ops that consume its sequence (:mod:`conformance.models.sequence_consumers`).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import openvino as ov  # type: ignore[import-untyped]  # ships .pyi stubs but no py.typed

from conformance.models import onnx_graphs, sequence_consumers
from conformance.plugin import Task


def unsupported(task: Task) -> str | None:
    """Every onnx.* task the catalogue admits is expressible: SplitToSequence through the Sequence
    ops that consume it (see :mod:`conformance.models.sequence_consumers`); complex data is
    refused by the adapter."""
    del task
    return None


def build_model(task: Task, core: ov.Core) -> ov.Model:
    """Read the task's model from a real ``.onnx`` file through the ONNX frontend."""
    data = sequence_consumers.model_bytes(task, sequence_consumers.CONCAT)
    with tempfile.TemporaryDirectory(prefix="conformance-openvino-") as directory:
        path = Path(directory) / "model.onnx"
        path.write_bytes(data)
        return core.read_model(str(path))


def runtime_inputs(task: Task) -> dict[str, np.ndarray]:
    """The graph inputs by name: ``data``, and ``split`` (Slice's index inputs) when the case feeds
    them at run time."""
    return onnx_graphs.feeds(task)
