"""ONNX models for the ``onnx.Split-*``, ``onnx.SplitToSequence-*`` and ``onnx.Slice-*`` ops: one
node, built exactly as a case states it, so that every backend that reads ONNX is handed the *same*
model.

- The default-domain opset import is the op's version, with :data:`IR_VERSION` for every opset.
- The split request as that version defines it: Split-1 ``split`` attribute (``constant``) or
  second input of the data's type T (``runtime``); Split-2/-11 attribute; Split-13/-18 input, an
  initializer or a graph input of ``graph.lengths_dtype``. The axis is always an attribute. A piece
  count is the number of declared outputs (Split-1..13), or Split-18's ``num_outputs``.
- Invalid values are built as given, never fixed, and no ``onnx.checker`` gate: the backend's own
  reaction is judged (:func:`check` runs the checker on demand).
- Outputs state the element type and rank only: the backend's shape inference decides the shapes.
  SplitToSequence's one output, ``seq(tensor(T))``, states no rank either (``keepdims`` decides it);
  its model declares opset 11, which resolves to SplitToSequence-11 up to opset 23.
- Slice-1 takes ``starts``, ``ends`` and ``axes`` as attributes; Slice-10 on as inputs of
  ``graph.index_dtype`` (``axes`` and ``steps`` only where the case gives them, an empty name
  standing for omitted ``axes`` before given ``steps``), each an initializer or, where the case
  places it at run time, a graph input.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Final, Protocol

import numpy as np
import onnx
from onnx import AttributeProto, GraphProto, TensorProto, ValueInfoProto, helper, numpy_helper

from conformance import dtypes, reproducers
from conformance.plugin import Task

#: The IR version every model is stamped with (ONNX 1.13: opsets up to 18), which every backend loads.
IR_VERSION: Final = 8

DATA: Final = "data"
SPLIT: Final = "split"
#: SplitToSequence's one output: the sequence of pieces.
SEQUENCE: Final = "output_sequence"

#: ONNX element types by the suite's dtype names.
ELEMENT_TYPES: Final[dict[str, int]] = {
    "bool": TensorProto.BOOL,
    "int8": TensorProto.INT8,
    "int16": TensorProto.INT16,
    "int32": TensorProto.INT32,
    "int64": TensorProto.INT64,
    "uint8": TensorProto.UINT8,
    "uint16": TensorProto.UINT16,
    "uint32": TensorProto.UINT32,
    "uint64": TensorProto.UINT64,
    "float16": TensorProto.FLOAT16,
    "bfloat16": TensorProto.BFLOAT16,
    "float32": TensorProto.FLOAT,
    "float64": TensorProto.DOUBLE,
    "complex64": TensorProto.COMPLEX64,
    "complex128": TensorProto.COMPLEX128,
    "string": TensorProto.STRING,
}


#: The ONNX operator an op id names, by the op id's prefix (the version follows it).
_OPERATORS: Final = {
    "onnx.Split-": "Split",
    "onnx.SplitToSequence-": "SplitToSequence",
    "onnx.Slice-": "Slice",
}
#: Slice's index inputs, in the node's order.
SLICE_INPUTS: Final = ("starts", "ends", "axes", "steps")


def operator_of(op: str) -> tuple[str, int]:
    """The ONNX operator and version of an ``onnx.Split-<v>`` or ``onnx.SplitToSequence-<v>`` op id."""
    for prefix, operator in _OPERATORS.items():
        version = op[len(prefix) :]
        if op.startswith(prefix) and version.isdigit():
            return operator, int(version)
    raise ValueError(
        f"{op!r} is not an ONNX op of the suite (onnx.Split-<v>, onnx.SplitToSequence-<v>, onnx.Slice-<v>)"
    )


def version_of(op: str) -> int:
    """The version of an ONNX op id: the opset the model imports."""
    return operator_of(op)[1]


def is_sequence(op: str) -> bool:
    """Whether the op's one output is a sequence holding the pieces (SplitToSequence), rather than
    one output per piece (Split): what an adapter unpacks into the list of pieces."""
    return operator_of(op)[0] == "SplitToSequence"


def output_name(index: int) -> str:
    return f"output_{index}"


def output_count(task: Task) -> int:
    """How many outputs the node declares: one for SplitToSequence; ``graph.declared_outputs`` where
    set; one per length (none for an empty split); else the piece count (none below 1), except that
    Split-18's ``num_outputs`` keeps one output, so the one rule broken is its own.
    """
    if is_sequence(task.op) or operator_of(task.op)[0] == "Slice":
        return 1
    if task.graph.declared_outputs is not None:
        return task.graph.declared_outputs
    if task.request.form.kind == "lengths":
        return len(task.request.form.values)
    return max(task.request.form.values[0], 1 if _has_num_outputs(task) else 0)


def _has_num_outputs(task: Task) -> bool:
    """Split-18 states the piece count as ``num_outputs``: for a count ("auto"), or with a split ("both")."""
    if version_of(task.op) != 18:
        return False
    if task.request.form.kind == "parts":
        return task.graph.num_outputs != "neither"
    return task.graph.num_outputs == "both"


def _split_is_input(task: Task) -> bool:
    """Whether ``split`` is a node input (rather than an attribute, or absent) for this task."""
    if operator_of(task.op)[0] == "Slice":
        return False
    if is_sequence(task.op):  # optional: left out only when the case says so
        return task.graph.split_input == "given"
    if task.request.form.kind != "lengths":
        return False
    version = version_of(task.op)
    return task.graph.runtime("lengths") if version == 1 else version >= 13


def _lengths_dtype(task: Task) -> str:
    """Element type of a ``split`` input: the data's type T for Split-1, else ``lengths_dtype``."""
    return task.dtype if version_of(task.op) == 1 and not is_sequence(task.op) else task.graph.lengths_dtype


def _lengths_array(task: Task) -> np.ndarray:
    """The ``split`` input's value in its type: 1-D lengths, or 0-d for a ``size`` request. Cast
    from int64, so a -1 in an unsigned type keeps its two's-complement bits (as a C caller would
    hand it) instead of raising; a string T gets each length's decimal text."""
    name = _lengths_dtype(task)
    scalar = task.request.form.kind == "size"
    values = np.asarray(task.request.form.values, dtype=np.int64).reshape(() if scalar else (-1,))
    if name == "string":
        return np.array([str(v) for v in values.flat], dtype=object).reshape(values.shape)
    return values.astype(dtypes.numpy_dtype(name))


def _data_shape(task: Task) -> list[int | str]:
    shape = task.case.data.shape
    if task.graph.data_shape == "dynamic":
        return [f"d{i}" for i in range(len(shape))]
    return list(shape)


def build_model(task: Task) -> onnx.ModelProto:
    """The one-node model for ``task`` (see the module docstring for the mapping)."""
    operator, version = operator_of(task.op)
    graphs = {"SplitToSequence": _sequence_graph, "Slice": _slice_graph, "Split": _split_graph}
    graph = graphs[operator](task)
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", version)],
        producer_name="split-conformance",
        doc_string=task.item_id,
    )
    model.ir_version = IR_VERSION
    return model


def _inputs(task: Task) -> tuple[list[ValueInfoProto], list[TensorProto], list[str]]:
    """The graph inputs, the initializers and the node's inputs: the data, and ``split`` where it
    is an input (an initializer when ``constant``, a graph input when fed at run time)."""
    inputs = [helper.make_tensor_value_info(DATA, ELEMENT_TYPES[task.dtype], _data_shape(task))]
    initializers: list[TensorProto] = []
    node_inputs = [DATA]
    if _split_is_input(task):
        node_inputs.append(SPLIT)
        lengths = _lengths_array(task)
        if task.graph.runtime("lengths"):
            split_type = ELEMENT_TYPES[_lengths_dtype(task)]
            inputs.append(helper.make_tensor_value_info(SPLIT, split_type, list(lengths.shape)))
        else:
            initializers.append(numpy_helper.from_array(lengths, SPLIT))  # any suite dtype
    return inputs, initializers, node_inputs


def _split_graph(task: Task) -> GraphProto:
    """One ``Split`` node of the op's version, one graph output per declared node output."""
    element = ELEMENT_TYPES[task.dtype]
    rank = len(task.case.data.shape)
    inputs, initializers, node_inputs = _inputs(task)
    attributes: dict[str, AttributeProto] = {}
    if task.request.axis is not None:
        attributes["axis"] = helper.make_attribute("axis", task.request.axis)
    if not _split_is_input(task) and task.request.form.kind == "lengths":
        attributes["split"] = helper.make_attribute(
            "split", list(task.request.form.values), attr_type=AttributeProto.INTS
        )
    if _has_num_outputs(task):
        form = task.request.form
        count = len(form.values) if form.kind == "lengths" else form.values[0]
        attributes["num_outputs"] = helper.make_attribute("num_outputs", count)
    names = [output_name(i) for i in range(output_count(task))]
    node = helper.make_node("Split", node_inputs, names, name="split_node")
    node.attribute.extend(attributes.values())
    outputs = [helper.make_tensor_value_info(name, element, [None] * rank) for name in names]
    return helper.make_graph([node], _graph_name(task), inputs, outputs, initializer=initializers)


def _sequence_graph(task: Task) -> GraphProto:
    """One ``SplitToSequence`` node: ``split`` 1-D (``lengths``), 0-d (``size``) or absent; ``axis``
    and ``keepdims`` written only where the case sets them, so the op's defaults are judged."""
    inputs, initializers, node_inputs = _inputs(task)
    node = helper.make_node("SplitToSequence", node_inputs, [SEQUENCE], name="split_node")
    if task.request.axis is not None:
        node.attribute.append(helper.make_attribute("axis", task.request.axis))
    if "keepdims" in task.graph.non_default():
        node.attribute.append(helper.make_attribute("keepdims", task.graph.keepdims))
    output = helper.make_tensor_sequence_value_info(SEQUENCE, ELEMENT_TYPES[task.dtype], None)
    return helper.make_graph([node], _graph_name(task), inputs, [output], initializer=initializers)


def _slice_indices(task: Task) -> dict[str, np.ndarray]:
    """Slice-10 on: each index input the case gives, in ``graph.index_dtype`` (the catalogue hands
    ONNX only values that fit it, and no omitted bound)."""
    arguments = task.request
    given = {name: getattr(arguments, name) for name in SLICE_INPUTS}
    kind = dtypes.numpy_dtype(task.graph.index_dtype)
    return {
        name: np.asarray(value, dtype=np.int64).astype(kind)
        for name, value in given.items()
        if value is not None
    }


def _slice_graph(task: Task) -> GraphProto:
    """One ``Slice`` node: Slice-1's attributes, or Slice-10's index inputs (see the module docstring)."""
    element = ELEMENT_TYPES[task.dtype]
    inputs = [helper.make_tensor_value_info(DATA, element, _data_shape(task))]
    initializers: list[TensorProto] = []
    node_inputs = [DATA]
    attributes: dict[str, AttributeProto] = {}
    if version_of(task.op) == 1:
        for name in ("starts", "ends", "axes"):
            value = getattr(task.request, name)
            if value is not None:
                attributes[name] = helper.make_attribute(name, list(value), attr_type=AttributeProto.INTS)
    else:
        indices = _slice_indices(task)
        for name in SLICE_INPUTS:
            if name not in indices:
                node_inputs.append("")  # an optional input left out (dropped below when last)
                continue
            node_inputs.append(name)
            if task.graph.runtime(name):
                index_type = ELEMENT_TYPES[task.graph.index_dtype]
                inputs.append(helper.make_tensor_value_info(name, index_type, list(indices[name].shape)))
            else:
                initializers.append(numpy_helper.from_array(indices[name], name))
        while node_inputs[-1] == "":
            node_inputs.pop()
    node = helper.make_node("Slice", node_inputs, [output_name(0)], name="slice_node")
    node.attribute.extend(attributes.values())
    output = helper.make_tensor_value_info(output_name(0), element, [None] * len(task.case.data.shape))
    return helper.make_graph([node], _graph_name(task), inputs, [output], initializer=initializers)


def consumed_sequence_model(task: Task, reader: int | str) -> onnx.ModelProto:
    """The SplitToSequence model of ``task`` with its sequence read by Sequence ops, for a backend
    that cannot hand a sequence out (:func:`conformance.models.sequence_consumers.reader`):
    ``reader`` a count n (``SequenceAt`` at 0..n-1, outputs ``output_<i>``), ``"ConcatFromSequence"``
    (joined along the split axis) or ``"SequenceLength"`` (an int64 scalar), output ``output_0``."""
    model = build_model(task)
    graph = model.graph
    del graph.output[:]
    squeezed = task.graph.split_input == "omitted" and task.graph.keepdims == 0
    rank = len(task.case.data.shape)
    element = ELEMENT_TYPES[task.dtype]
    names = [output_name(index) for index in range(reader if isinstance(reader, int) else 1)]
    if reader == "ConcatFromSequence":
        axis = task.request.axis or 0
        graph.node.append(helper.make_node(reader, [SEQUENCE], names, axis=axis, new_axis=int(squeezed)))
    elif reader == "SequenceLength":
        graph.node.append(helper.make_node(reader, [SEQUENCE], names))
        element, rank = TensorProto.INT64, 0
    elif isinstance(reader, int):
        rank -= int(squeezed)
        for index, name in enumerate(names):
            position = f"position_{index}"
            graph.initializer.append(numpy_helper.from_array(np.array(index, dtype=np.int64), position))
            graph.node.append(helper.make_node("SequenceAt", [SEQUENCE, position], [name]))
    else:
        raise ValueError(
            f"no such Sequence consumer: {reader!r} (a count, ConcatFromSequence, SequenceLength)"
        )
    graph.output.extend(helper.make_tensor_value_info(name, element, [None] * rank) for name in names)
    return model


def _graph_name(task: Task) -> str:
    return "split_" + "".join(c if c.isalnum() else "_" for c in task.item_id)


def feeds(task: Task) -> dict[str, np.ndarray]:
    """The runtime inputs: the data, and ``split`` when the model takes it as a graph input, in the
    suite's dtypes (an adapter converts to what its API needs)."""
    result = {DATA: task.data}
    if _split_is_input(task) and task.graph.runtime("lengths"):
        result[SPLIT] = _lengths_array(task)
    if operator_of(task.op)[0] == "Slice" and version_of(task.op) >= 10:
        result.update(
            (name, value) for name, value in _slice_indices(task).items() if task.graph.runtime(name)
        )
    return result


def model_bytes(task: Task) -> bytes:
    """The serialized model, as a backend session or a reproducer file takes it."""
    serialized: bytes = build_model(task).SerializeToString()
    return serialized


def save(task: Task, path: Path | str) -> Path:
    """Write the model to ``path`` (a reproducer anyone can load with their own backend)."""
    target = Path(path)
    target.write_bytes(model_bytes(task))
    return target


def check(model: onnx.ModelProto) -> None:
    """Run onnx's own checker with full shape inference; raises ``onnx.checker.ValidationError``.
    Never called by the builder: invalid cases must reach the backend."""
    onnx.checker.check_model(model, full_check=True)


class SequenceReading(Protocol):
    """How a route that cannot hand a sequence out reads SplitToSequence's (a
    :class:`conformance.models.sequence_consumers.Rule`, which builds on this module): the model
    with its consumers, and those consumers in words."""

    def model_bytes(self, task: Task) -> bytes: ...

    def consumer(self, task: Task) -> str: ...


def snippet(
    task: Task,
    imports: str,
    load: str,
    call: Callable[[Mapping[str, str]], str] | None,
    *,
    variable: str = "model",
    file: str | None = None,
    consumed: SequenceReading | None = None,
) -> str:
    """A reproducer snippet for a route handed this module's model: ``imports``, the model's bytes
    in ``variable`` (also saved as ``file`` if given), the backend's ``load`` statements, then each
    run with its feeds and ``call`` on them (:func:`conformance.reproducers.feed_runs_code`; None
    runs nothing). ``consumed``: the :mod:`~conformance.models.sequence_consumers` rule for a
    SplitToSequence model, for a route that cannot return a sequence."""
    rule = consumed if is_sequence(task.op) else None
    data = model_bytes(task) if rule is None else rule.model_bytes(task)
    through = "" if rule is None else f", read through {rule.consumer(task)}"
    encoded = reproducers.wrapped_base64(data)
    operator = operator_of(task.op)[0]
    body = (
        f"{imports}# {task.op}: one {operator} node{through}, byte for byte as this run built it\n"
        f"{variable} = base64.b64decode('''\n{encoded}\n''')\n"
    )
    if file is not None:
        body += f'with open("{file}", "wb") as file:\n    file.write({variable})\n'
    body += load
    return body if call is None else body + reproducers.feed_runs_code(task, feeds, call)
