"""Route ``tflite``: the suite's LiteRT flatbuffer, written to a ``.tflite`` file and read by OpenVINO.

The flatbuffer comes from :func:`conformance.models.tflite_models.model_bytes`, the same bytes the
LiteRT interpreter runs: the traced ``tf.split`` converted by ``TFLiteConverter`` with its defaults,
and for ``tflite.SPLIT`` / ``tflite.SPLIT_V`` only a model that holds exactly that builtin (anything
else is ``unsupported``, raised by that builder). It is read the way a user reads one,
``ov.convert_model("model.tflite")``, which runs OpenVINO's TensorFlow Lite frontend.

The file's interface is its ``serving_default`` signature: inputs ``data`` (and ``axis`` /
``lengths`` fed at run time), outputs ``output_0``, ``output_1`` ... in the function's order. The
frontend does not read signatures: it names the inputs and outputs by their tensors
(``serving_default_data:0``, ``PartitionedCall:0``) and orders them as the subgraph lists them,
which is not the function's order (the converter's, see tensorflow/tensorflow#33303). So the
model's results are put in the signature's order and its parameters also answer to the
signature's names, as an application reading the signature would address them; no value, type or
shape is touched. A model whose results are not the subgraph's outputs one for one (the frontend
drops outputs that are constant tensors, a known issue) is judged as read. A refusal by the
converter is the route's answer (a user meets it first), as it is the litert adapter's.

Needs TensorFlow (the converter) and ai-edge-litert (the flatbuffer schema) beside OpenVINO
(``pip install adapters/openvino[tflite]``).
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np
import openvino as ov  # type: ignore[import-untyped]  # ships .pyi stubs but no py.typed

from conformance.models import tf_functions, tflite_models
from conformance.plugin import Task

#: The distributions the route imports, by module.
_NEEDS: Final = {"tensorflow": "tensorflow", "ai_edge_litert": "ai-edge-litert"}


def unsupported(task: Task) -> str | None:
    """A missing converter or schema, or a value the model's 32-bit axis or sizes cannot hold."""
    missing = [name for module, name in _NEEDS.items() if importlib.util.find_spec(module) is None]
    if missing:
        return f"route tflite needs {' and '.join(missing)}: pip install adapters/openvino[tflite]"
    return tf_functions.build_problem(task) or tflite_models.build_problem(task)


def build_model(task: Task, core: ov.Core) -> ov.Model:
    """Convert the task's function to a ``.tflite`` file, read it with ``convert_model``, and
    address the result by the file's signature."""
    del core  # convert_model needs no core; compile uses the adapter's
    flatbuffer = tflite_models.model_bytes(task)
    with tempfile.TemporaryDirectory(prefix="conformance-openvino-") as directory:
        path = Path(directory) / "model.tflite"
        path.write_bytes(flatbuffer)
        model: ov.Model = ov.convert_model(str(path))
    return by_signature(model, flatbuffer)


@dataclass(frozen=True)
class Signature:
    """What a ``.tflite`` file says of its interface (its first signature, and its subgraph)."""

    #: the signature's input names and the names of their tensors
    inputs: dict[str, str]
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
    inputs = {
        bytes(found.Inputs(i).Name()).decode(): bytes(
            graph.Tensors(found.Inputs(i).TensorIndex()).Name()
        ).decode()
        for i in range(found.InputsLength())
    }
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
    return Signature(inputs, positions, len(listed))


def by_signature(model: ov.Model, flatbuffer: bytes) -> ov.Model:
    """``model`` with its results in the signature's order and each parameter also named as the
    signature names it. A model without a signature, or whose results are not the subgraph's
    outputs one for one (the frontend dropped or added some), is returned as read: its outputs
    are then judged as the frontend gave them."""
    found = signature(flatbuffer)
    if found is None:
        return model
    for parameter in model.get_parameters():
        names = parameter.output(0).get_names()
        aliases = {name for name, tensor in found.inputs.items() if tensor in names}
        parameter.output(0).get_tensor().add_names(aliases)
    results = model.get_results()
    if len(results) != found.outputs or -1 in found.positions:
        return model
    ordered = [results[position] for position in found.positions]
    reordered: ov.Model = ov.Model(ordered, model.get_parameters(), model.friendly_name)
    return reordered


def runtime_inputs(task: Task) -> dict[str, np.ndarray]:
    """The inputs by the signature's names, from this run's task (its shape, its runtime values)."""
    return tf_functions.feeds(task)


def warm_up() -> None:
    """One throwaway conversion and read: the first of a process imports TensorFlow, sets up the
    converter and loads the frontend (seconds), which would otherwise be one item's build."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")  # TensorFlow's INFO lines say nothing of an item
    import tensorflow as tf  # type: ignore[import-untyped]  # TensorFlow ships no type information

    function = tf.function(
        lambda x: tf.split(x, 2), input_signature=[tf.TensorSpec([2], tf.float32)], autograph=False
    )
    flatbuffer = tflite_models.convert(function.get_concrete_function())
    with tempfile.TemporaryDirectory(prefix="conformance-openvino-") as directory:
        path = Path(directory) / "model.tflite"
        path.write_bytes(flatbuffer)
        ov.convert_model(str(path))
