"""Route ``native``: an ``ov.Model`` of one Split-1, VariadicSplit-1, Slice-8 or StridedSlice-1 node,
built with the Python API.

The graph a user writes by hand with ``openvino.opset1`` (``opset8`` for Slice-8), so the ops are
exactly the versions judged (``Split-1``'s ``num_splits`` an attribute, ``VariadicSplit-1``'s
``split_lengths`` an input, the Slice ops' indices inputs of ``graph.index_dtype`` and
StridedSlice-1's masks 0/1 lists), every input built as the case states it, invalid values
included. OpenVINO validates while nodes are created (shape inference runs in the constructor), so
many refusals surface in :func:`build_model` as the backend's own exception.

Inputs, in parameter order: ``data``, then those the case feeds at run time: ``axis`` and
(VariadicSplit) ``split_lengths``; a Slice op's index inputs in the node's order
(:mod:`conformance_openvino.slice_inputs`). :func:`runtime_inputs` gives the arrays in that order,
from the task it is handed, so a later run feeds its own values.
"""

from __future__ import annotations

import numpy as np
import openvino as ov  # type: ignore[import-untyped]  # ships .pyi stubs but no py.typed

try:
    import openvino.opset1 as opset1  # type: ignore[import-untyped]
    import openvino.opset8 as opset8  # type: ignore[import-untyped]
    from openvino.op import Constant  # type: ignore[import-untyped]
except ImportError:  # OpenVINO before 2025.0 has its opsets and ops only under openvino.runtime
    from openvino.runtime import opset1, opset8  # type: ignore[import-untyped]
    from openvino.runtime.op import Constant  # type: ignore[import-untyped]

from conformance import dtypes
from conformance.plugin import Task
from conformance_openvino import slice_inputs
from conformance_openvino.tensors import element_type

SPLIT = "openvino.Split-1"
VARIADIC = "openvino.VariadicSplit-1"


def build_model(task: Task, core: ov.Core) -> ov.Model:
    """The model for ``task``: one Split-1, VariadicSplit-1, Slice-8 or StridedSlice-1 node and a
    Result per output."""
    del core  # built in memory; the other routes read files through the core
    if task.graph.data_shape == "dynamic":
        shape = ov.PartialShape([ov.Dimension() for _ in task.data.shape])
    else:
        shape = ov.PartialShape(list(task.data.shape))
    data = opset1.parameter(shape, element_type(task.dtype), name="data")
    parameters = [data]
    node = (
        _slice_node(task, data, parameters)
        if task.op in slice_inputs.OPS
        else _split_node(task, data, parameters)
    )
    results = [opset1.result(output, name=f"output_{index}") for index, output in enumerate(node.outputs())]
    return ov.Model(results, parameters, f"{task.op}:{task.case.id}")


def _split_node(task: Task, data: ov.Node, parameters: list[ov.Node]) -> ov.Node:
    """Split-1 or VariadicSplit-1 on ``data``, with its axis and lengths as the case places them."""
    graph = task.graph
    axis_array, lengths_array = _axis_array(task), _lengths_array(task)
    axis = _input(axis_array, graph.axis_dtype, "axis", graph.runtime("axis"), parameters)
    if task.op == SPLIT:
        assert isinstance(task.request.form.value, int)
        node = opset1.split(data, axis, task.request.form.value, name="split")
    elif task.op == VARIADIC:
        assert lengths_array is not None
        runtime = graph.runtime("lengths")
        lengths = _input(lengths_array, graph.lengths_dtype, "split_lengths", runtime, parameters)
        node = opset1.variadic_split(data, axis, lengths, name="split")
    else:
        raise ValueError(f"route native runs openvino.* ops, not {task.op}")
    return node


def _slice_node(task: Task, data: ov.Node, parameters: list[ov.Node]) -> ov.Node:
    """Slice-8 or StridedSlice-1 on ``data``: each index input a Constant or a Parameter of
    ``graph.index_dtype``; StridedSlice-1's masks as the 0/1 lists its builder takes."""
    index_type = task.graph.index_dtype
    nodes = {
        item.name: _input(item.array, index_type, item.name, item.runtime, parameters)
        for item in slice_inputs.index_inputs(task)
    }
    if task.op == slice_inputs.SLICE_8:
        return opset8.slice(
            data, nodes["start"], nodes["stop"], nodes["step"], nodes.get("axes"), name="slice"
        )
    masks = slice_inputs.masks(task)
    return opset1.strided_slice(data, nodes["begin"], nodes["end"], nodes["stride"], **masks, name="slice")


def runtime_inputs(task: Task) -> list[np.ndarray]:
    """The arrays to feed, in parameter order: the data, then axis and lengths (a Slice op's index
    inputs) when fed at run time."""
    arrays = [task.data]
    if task.op in slice_inputs.OPS:
        return arrays + [item.array for item in slice_inputs.index_inputs(task) if item.runtime]
    if task.graph.runtime("axis"):
        arrays.append(_axis_array(task))
    lengths = _lengths_array(task)
    if lengths is not None and task.graph.runtime("lengths"):
        arrays.append(lengths)
    return arrays


def unsupported(task: Task) -> str | None:
    """Why the case's axis, lengths or slice indices cannot be held in the element type it names,
    if they cannot.

    An axis of -1 in uint8 does not exist in any backend: casting would wrap it to 255, a
    different request, so such a case is not expressible rather than refused by OpenVINO.
    """
    graph = task.graph
    checks: list[tuple[str, str, tuple[int, ...]]] = []
    for run in task.every_run:  # a later run feeds its own values through the same typed inputs
        if task.op in slice_inputs.OPS:
            checks.extend((key, graph.index_dtype, given) for key, given in slice_inputs.values(run).items())
            continue
        checks.append(("axis", graph.axis_dtype, (run.request.axis,) if run.request.axis is not None else ()))
        if task.op == VARIADIC:
            checks.append(("split_lengths", graph.lengths_dtype, run.request.form.values))
    for what, name, values in checks:
        if name in dtypes.COMPLEX or name in dtypes.STRING:
            return f"a {name} {what} tensor cannot hold the integer the case gives"
        numpy_type = dtypes.numpy_dtype(name)
        for value in values:
            held = np.array(value).astype(numpy_type)
            if held.item() != value:
                return f"{what} value {value} cannot be held in a {name} tensor"
    return None


def _axis_array(task: Task) -> np.ndarray:
    given = task.request.axis
    assert given is not None, "openvino ops need an axis; ops.why_not_applicable keeps others away"
    axis = np.array(given).astype(dtypes.numpy_dtype(task.graph.axis_dtype))
    return axis.reshape(1) if task.graph.axis_shape == "[1]" else axis.reshape(())


def _lengths_array(task: Task) -> np.ndarray | None:
    if task.op != VARIADIC:
        return None
    values = np.array(task.request.form.values, dtype=np.int64)
    return values.astype(dtypes.numpy_dtype(task.graph.lengths_dtype)).reshape(len(values))


def _input(array: np.ndarray, name: str, label: str, runtime: bool, parameters: list[ov.Node]) -> ov.Node:
    """A Constant holding ``array`` or, for run-time inputs, a Parameter of its type and shape."""
    if runtime:
        parameter = opset1.parameter(list(array.shape), element_type(name), name=label)
        parameters.append(parameter)
        return parameter
    # op.Constant (the one Constant op of every opset) because opset1.constant refuses an
    # empty array, and an empty split_lengths is a request the suite judges.
    constant = Constant(array)
    constant.set_friendly_name(label)
    return constant
