"""Route ``onnx``: the suite's ONNX model, written to a ``.onnx`` file and read by OpenVINO.

The model comes from :mod:`conformance.models.onnx_graphs`, the same bytes ONNX Runtime is handed, so a
difference between the two targets is a difference between backends. It is read the way a user
reads one, ``core.read_model("model.onnx")``, which runs OpenVINO's ONNX frontend: the frontend
translates each ``Split`` version into opset ops (Split, VariadicSplit, or a subgraph), and its
checks, or the lack of them, are part of what is judged. The file lives only for the read; the
weights are in the model, so nothing refers to it afterwards.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Final

import numpy as np
import openvino as ov  # type: ignore[import-untyped]  # ships .pyi stubs but no py.typed

from conformance.models import onnx_graphs
from conformance.plugin import Task

#: Why a SplitToSequence model cannot be judged here (checked on OpenVINO 2026.4.1).
SEQUENCE_OUTPUT: Final = (
    "OpenVINO has no sequence type, so a model whose output is a sequence cannot be read: the ONNX "
    "frontend (since 2025.4) lowers SplitToSequence only where a SequenceAt, ConcatFromSequence or "
    "SequenceLength consumes it, and read_model fails on a sequence graph output ('No conversion rule "
    "found for operations: util::SequenceMark'); earlier releases have no SplitToSequence at all "
    "(https://github.com/openvinotoolkit/openvino/issues/26107)"
)


def unsupported(task: Task) -> str | None:
    """A sequence output (SplitToSequence) is refused whatever the request, so judging the refusal
    would score every invalid request a pass for the wrong reason; every other onnx.* task the
    catalogue admits is expressible (complex is refused by the adapter)."""
    return SEQUENCE_OUTPUT if onnx_graphs.is_sequence(task.op) else None


def build_model(task: Task, core: ov.Core) -> ov.Model:
    """Read the task's model from a real ``.onnx`` file through the ONNX frontend."""
    data = onnx_graphs.model_bytes(task)
    with tempfile.TemporaryDirectory(prefix="conformance-openvino-") as directory:
        path = Path(directory) / "model.onnx"
        path.write_bytes(data)
        return core.read_model(str(path))


def runtime_inputs(task: Task) -> dict[str, np.ndarray]:
    """The graph inputs by name: ``data``, and ``split`` when the case feeds it at run time."""
    return onnx_graphs.feeds(task)
