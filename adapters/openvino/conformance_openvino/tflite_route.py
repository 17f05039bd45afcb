"""Route ``tflite``: the suite's LiteRT flatbuffer, written to a ``.tflite`` file and read by OpenVINO.

The flatbuffer is :func:`conformance.models.tflite_models.model_bytes`, the bytes the LiteRT
interpreter runs: ``tf.split``, ``tf.slice`` and ``tf.strided_slice`` converted as they come (the
converter writes SLICE or STRIDED_SLICE for the Slice ops), and for ``tflite.SPLIT`` /
``tflite.SPLIT_V`` only a model holding exactly that builtin (anything else is ``unsupported``,
raised by that builder), read as a user reads one:
``ov.convert_model("model.tflite")``. A refusal by the converter is the route's answer (a user
meets it first), as it is the litert adapter's.

The frontend does not read the file's ``serving_default`` signature: it names inputs and outputs by
their tensors and orders the outputs as the subgraph lists them, not in the function's order
(tensorflow/tensorflow#33303). So the model's results are put in the signature's order, and its
inputs are fed by their tensors' names (``serving_default_<name>:0``, as the converter writes
them): a name added to a parameter is lost when the model is compiled if a result reads the same
tensor (a slice the converter folded to nothing), and the input would go unfed. No value, type or
shape is touched. A model whose results are not the subgraph's
outputs one for one (the frontend drops constant outputs, a known issue) is judged as read.

Needs TensorFlow and ai-edge-litert beside OpenVINO (``pip install adapters/openvino[tflite]``).
"""

from __future__ import annotations

import importlib.util
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import openvino as ov  # type: ignore[import-untyped]  # ships .pyi stubs but no py.typed

import numpy as np

from conformance.models import tflite_models
from conformance.plugin import Task
from conformance_openvino import tensorflow_route
from conformance_openvino.tensorflow_route import build_problem, throwaway_function

#: The distributions the route imports, by module.
_NEEDS: Final = {"tensorflow": "tensorflow", "ai_edge_litert": "ai-edge-litert"}


def unsupported(task: Task) -> str | None:
    """A missing converter or schema, or a value the model's 32-bit axis or sizes cannot hold."""
    missing = [name for module, name in _NEEDS.items() if importlib.util.find_spec(module) is None]
    if missing:
        return f"route tflite needs {' and '.join(missing)}: pip install adapters/openvino[tflite]"
    return build_problem(task) or tflite_models.build_problem(task)


def build_model(task: Task, core: ov.Core) -> ov.Model:
    """The task's ``.tflite`` file read by ``convert_model``, addressed by the file's signature."""
    del core  # convert_model needs no core; compile uses the adapter's
    flatbuffer = tflite_models.model_bytes(task)
    return by_signature(_read(flatbuffer), flatbuffer)


def runtime_inputs(task: Task) -> dict[str, np.ndarray]:
    """The tensorflow route's feeds, by the names the converter gives the file's input tensors."""
    return {
        f"serving_default_{name}:0": array for name, array in tensorflow_route.runtime_inputs(task).items()
    }


def _read(flatbuffer: bytes) -> ov.Model:
    """``flatbuffer`` written to a private ``.tflite`` file and read by ``convert_model``."""
    with tempfile.TemporaryDirectory(prefix="conformance-openvino-") as directory:
        path = Path(directory) / "model.tflite"
        path.write_bytes(flatbuffer)
        return ov.convert_model(str(path))


@dataclass(frozen=True)
class Signature:
    """What a ``.tflite`` file says of its outputs (its first signature, and its subgraph)."""

    #: for each output of the signature, ``output_<n>`` in order of n, its position among the
    #: subgraph's outputs (the order the frontend keeps): several may share one tensor
    positions: list[int]
    #: how many outputs the subgraph lists
    outputs: int


def signature(flatbuffer: bytes) -> Signature | None:
    """The first signature of ``flatbuffer`` and where its outputs are; None without one."""
    from ai_edge_litert import schema_py_generated as schema

    root = schema.Model.GetRootAs(flatbuffer, 0)
    if not root.SignatureDefsLength():
        return None
    found = root.SignatureDefs(0)
    graph = root.Subgraphs(found.SubgraphIndex())
    by_name = {
        bytes(found.Outputs(i).Name()).decode(): found.Outputs(i).TensorIndex()
        for i in range(found.OutputsLength())
    }
    tensors = [by_name[name] for name in sorted(by_name, key=lambda name: int(name.rpartition("_")[2]))]
    listed = [graph.Outputs(i) for i in range(graph.OutputsLength())]
    positions: list[int] = []
    for tensor in tensors:  # the first position of that tensor not taken yet
        free = [
            at for at, listed_tensor in enumerate(listed) if listed_tensor == tensor and at not in positions
        ]
        positions.append(free[0] if free else -1)
    return Signature(positions, len(listed))


def by_signature(model: ov.Model, flatbuffer: bytes) -> ov.Model:
    """``model`` with its results in the signature's order; returned as read without a signature,
    or where its results are not the subgraph's outputs one for one."""
    found = signature(flatbuffer)
    if found is None:
        return model
    results = model.get_results()
    if len(results) != found.outputs or -1 in found.positions:
        return model
    ordered = [results[position] for position in found.positions]
    reordered: ov.Model = ov.Model(ordered, model.get_parameters(), model.friendly_name)
    return reordered


def warm_up() -> None:
    """One throwaway conversion and read: the first of a process imports TensorFlow, sets up the
    converter and loads the frontend (seconds), which would otherwise be one item's build."""
    _read(tflite_models.convert(throwaway_function()))
