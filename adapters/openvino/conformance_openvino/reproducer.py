"""Standalone reproducers for OpenVINO results: Python that uses only OpenVINO (and NumPy).

Each route's snippet redoes what the route did, construction included, because many refusals
happen while the model is built (node constructors run shape inference): the native route as
``openvino.opset1`` (``opset8``) calls, the onnx route as the model file read by ``read_model``, the pytorch
route as the torch module handed to ``convert_model``, the tensorflow and tflite routes as the
traced function handed to ``convert_model`` or converted to the ``.tflite`` file it reads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from conformance import dtypes, reproducers
from conformance.models.torch_builders import source_for
from conformance.plugin import Target, Task
from conformance_openvino import slice_inputs

#: The suite's dtype names and the names of OpenVINO's element types (``ov.Type.<name>``).
ELEMENT_NAMES: Final = {
    "bool": "boolean",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "uint8": "u8",
    "uint16": "u16",
    "uint32": "u32",
    "uint64": "u64",
    "float16": "f16",
    "bfloat16": "bf16",
    "float32": "f32",
    "float64": "f64",
    "string": "string",
}


def _compile(device: str, config: Mapping[str, str]) -> str:
    return (
        f"compiled = core.compile_model(model, {device!r}, {dict(config)!r})\n"
        "request = compiled.create_infer_request()\n"
    )


def _infer(feeds: str) -> str:
    return f"outputs = request.infer({feeds})\nprint([tuple(output.shape) for output in outputs.values()])\n"


def _data_feed(task: Task, variable: str) -> str:
    """How a snippet feeds the data array ``variable``: infer refuses an object array of strings
    ("Unknown string kind passed to fill the Tensor's data"), and encodes a str array."""
    return f"{variable}.astype(str)" if task.dtype == "string" else variable


def _typed_array(name: str, value: object, type_name: str, shape_code: str) -> str:
    return (
        f"{name} = np.array({value!r}).astype(np.{dtypes.numpy_dtype(type_name).name}).reshape({shape_code})"
    )


#: One input of a native snippet: (name, value, element type, shape code, fed at run time).
_Input = tuple[str, object, str, str, bool]


def _split_inputs(run: Task) -> list[_Input]:
    """The axis and VariadicSplit's lengths of one run of a Split op."""
    graph = run.graph
    axis_shape = "(1,)" if graph.axis_shape == "[1]" else "()"
    found: list[_Input] = [("axis", run.request.axis, graph.axis_dtype, axis_shape, graph.runtime("axis"))]
    if run.op == "openvino.VariadicSplit-1":
        values = list(run.request.form.values)
        found.append(
            ("split_lengths", values, graph.lengths_dtype, f"({len(values)},)", graph.runtime("lengths"))
        )
    return found


def _slice_inputs(run: Task) -> list[_Input]:
    """The index inputs of one run of a Slice op, as the route builds them."""
    return [
        (item.name, item.array.tolist(), run.graph.index_dtype, f"({item.array.size},)", item.runtime)
        for item in slice_inputs.index_inputs(run)
    ]


def _native_node(task: Task, names: list[str]) -> str:
    """The statement creating the op's node from ``data_node`` and the input nodes ``names``."""
    nodes = ", ".join(["data_node", *(f"{name}_node" for name in names)])
    if task.op == slice_inputs.SLICE_8:
        return f"node = opset8.slice({nodes})"
    if task.op == slice_inputs.STRIDED:
        masks = ", ".join(f"{key}={value!r}" for key, value in slice_inputs.masks(task).items())
        return f"node = opset1.strided_slice({nodes}, {masks})"
    if task.op == "openvino.VariadicSplit-1":
        return f"node = opset1.variadic_split({nodes})"
    return f"node = opset1.split({nodes}, {task.request.form.values[0]})"


def native_snippet(task: Task, device: str, config: Mapping[str, str]) -> str:
    graph = task.graph
    rank = task.data.ndim
    shape = (
        f"ov.PartialShape([ov.Dimension() for _ in range({rank})])"
        if graph.data_shape == "dynamic"
        else repr(list(task.data.shape))
    )
    opset8 = ["import openvino.opset8 as opset8"] if task.op == slice_inputs.SLICE_8 else []
    lines = [
        "import openvino as ov",
        "import openvino.opset1 as opset1",
        *opset8,
        "",
        f"data_node = opset1.parameter({shape}, ov.Type.{ELEMENT_NAMES[task.dtype]}, name='data')",
    ]
    parameters = ["data_node"]
    inputs = _slice_inputs if task.op in slice_inputs.OPS else _split_inputs
    for name, value, type_name, shape_code, runtime in inputs(task):
        if runtime:
            lines.append(
                f"{name}_node = opset1.parameter(list({shape_code}), "
                f"ov.Type.{ELEMENT_NAMES.get(type_name, 'f32')}, name={name!r})"
            )
            parameters.append(f"{name}_node")
        else:
            lines.append(_typed_array(name, value, type_name, shape_code))
            lines.append(f"{name}_node = ov.op.Constant({name})")
    lines.append(_native_node(task, [entry[0] for entry in inputs(task)]))
    lines += [f"model = ov.Model(node.outputs(), [{', '.join(parameters)}])", "core = ov.Core()"]
    body = "\n".join(lines) + "\n" + _compile(device, config)
    for run in task.every_run:
        feeds = [_data_feed(task, "data")]
        body += reproducers.run_heading(run) + reproducers.array_code(run.data) + "\n"
        for name, value, type_name, shape_code, runtime in inputs(run):
            if runtime:
                body += _typed_array(name, value, type_name, shape_code) + "\n"
                feeds.append(name)
        body += _infer(f"[{', '.join(feeds)}]")
    return body


def onnx_snippet(task: Task, device: str, config: Mapping[str, str]) -> str:
    from conformance.models import onnx_graphs, sequence_consumers

    load = (
        "# written to a folder of its own (never over a file of yours)\n"
        "path = os.path.join(tempfile.mkdtemp(), 'split.onnx')\n"
        "with open(path, 'wb') as file:\n    file.write(onnx_bytes)\n"
        "core = ov.Core()\nmodel = core.read_model(path)\n" + _compile(device, config)
    )
    imports = "import base64\nimport os\nimport tempfile\n\nimport openvino as ov\n\n"
    return onnx_graphs.snippet(
        task,
        imports,
        load,
        lambda variables: _infer(
            reproducers.feeds_literal(
                {
                    name: _data_feed(task, value) if name == onnx_graphs.DATA else value
                    for name, value in variables.items()
                }
            )
        ),
        variable="onnx_bytes",
        consumed=sequence_consumers.CONCAT,  # the onnx route's (see onnx_route.py)
    )


def _torch_feeds(run: Task) -> str:
    """The infer feeds of one run: the data, and narrow's start as the 0-dim array it declares."""
    from conformance.models import torch_slice_code

    if not torch_slice_code.start_fed(run):
        return "[data]"
    start = torch_slice_code.narrow_arguments(run)[1]
    return f"[data, np.array({start}, dtype=np.{run.graph.index_dtype})]"


def _torch_snippet(task: Task, convert: str, device: str, config: Mapping[str, str]) -> str:
    """The data, the suite's module (``Split`` or ``Slice``, and ``tensor`` for the data),
    ``convert`` making ``model``, and one infer per run."""
    writer = source_for(task)[0]
    body = (
        "import openvino as ov\nimport torch\n\n"
        f"{reproducers.array_code(task.data)}\n{writer.module_code(task)}\n{convert}\n"
        "core = ov.Core()\n" + _compile(device, config)
    )
    for run in task.every_run:
        data = "" if run is task else reproducers.array_code(run.data) + "\n"
        body += reproducers.run_heading(run) + data + _infer(_torch_feeds(run))
    return body


def pytorch_snippet(task: Task, device: str, config: Mapping[str, str]) -> str:
    from conformance.models import torch_slice_code

    dims = [-1] * task.data.ndim if task.graph.data_shape == "dynamic" else list(task.data.shape)
    declared = [f"(ov.PartialShape({dims!r}), ov.Type.{ELEMENT_NAMES[task.dtype]})"]
    if torch_slice_code.start_fed(task):
        declared.append(f"(ov.PartialShape([]), ov.Type.{ELEMENT_NAMES[task.graph.index_dtype]})")
    _, name, example = source_for(task)
    convert = f"model = ov.convert_model({name}(), example_input=({example},), input=[{', '.join(declared)}])"
    return _torch_snippet(task, convert, device, config)


def torch_export_snippet(task: Task, device: str, config: Mapping[str, str]) -> str:
    writer, _, example = source_for(task)
    program = writer.export_code(task, example)
    return _torch_snippet(task, f"model = ov.convert_model({program})", device, config)


def _tf_source(task: Task) -> tuple[Any, str]:
    """The module that writes the task's traced function (tf_slices for a Slice op, tf_functions
    for a split op: both give ``function_code`` and ``feeds``) and the name it defines."""
    from conformance.models import tf_functions, tf_slices

    return (tf_slices, tf_slices.FUNCTION) if task.op in tf_slices.OPS else (tf_functions, "split")


def _tf_snippet(
    task: Task,
    device: str,
    config: Mapping[str, str],
    convert: Callable[[str], str],
    names: str = "{}",
    printed: str = "",
) -> str:
    """The traced function (``function_code`` of :func:`_tf_source`), ``convert(its name)`` making
    ``model``, the element types its frontend declared (a type it cannot map becomes f32
    silently), and one infer per run: inputs fed by the model's names (``names`` formatted with
    the function's), ``printed`` the list to print (by default every output's shape)."""
    source, function = _tf_source(task)

    def call(variables: Mapping[str, str]) -> str:
        feeds = reproducers.feeds_literal({names.format(name): value for name, value in variables.items()})
        return f"request.infer({feeds})\nprint({printed})\n" if printed else _infer(feeds)

    return (
        f"import openvino as ov\nimport tensorflow as tf\n\n{source.function_code(task)}"
        f"{convert(function)}"
        "print('inputs:', [(port.any_name, port.get_element_type().get_type_name())"
        " for port in model.inputs])\n"
        "core = ov.Core()\n" + _compile(device, config) + reproducers.feed_runs_code(task, source.feeds, call)
    )


def tensorflow_snippet(task: Task, device: str, config: Mapping[str, str]) -> str:
    """The function, ``convert_model`` on it (shapes from its signature), one infer per run."""
    return _tf_snippet(task, device, config, lambda function: f"model = ov.convert_model({function})\n")


#: The .tflite file's signature: where each ``output_<n>`` is among the subgraph's outputs, which
#: the frontend keeps in the file's order (not the function's).
_TFLITE_ORDER = """from ai_edge_litert import schema_py_generated as schema

root = schema.Model.GetRootAs(open('split.tflite', 'rb').read(), 0)
signature, graph = root.SignatureDefs(0), root.Subgraphs(0)
tensors = {signature.Outputs(i).Name().decode(): signature.Outputs(i).TensorIndex()
           for i in range(signature.OutputsLength())}
listed = [graph.Outputs(i) for i in range(graph.OutputsLength())]
order = []
for name in sorted(tensors, key=lambda name: int(name.rpartition('_')[2])):
    order.append(next(at for at, tensor in enumerate(listed) if tensor == tensors[name] and at not in order))
"""


def tflite_snippet(task: Task, device: str, config: Mapping[str, str]) -> str:
    """The function, TFLiteConverter's defaults, the ``.tflite`` file read by ``convert_model``;
    the frontend names inputs by their tensors and keeps the file's output order, so the shapes
    are printed in the signature's order."""

    def convert(function: str) -> str:
        return (
            f"converter = tf.lite.TFLiteConverter.from_concrete_functions([{function}], tf.Module())\n"
            "with open('split.tflite', 'wb') as file:\n    file.write(converter.convert())\n"
            "model = ov.convert_model('split.tflite')\n" + _TFLITE_ORDER
        )

    shapes = "[tuple(request.get_output_tensor(at).shape) for at in order]"
    return _tf_snippet(task, device, config, convert, "serving_default_{}:0", shapes)


#: What a route's snippet writer takes: the task, the device and the compile properties.
Writer = Callable[[Task, str, Mapping[str, str]], str]


def snippet(
    task: Task, target: Target, config: Mapping[str, str], writer: Writer, complex_data: bool
) -> str | None:
    """The reproducer of ``task`` on ``target`` written by the route's ``writer``, compiled with
    the run's ``config``; ``complex_data``: whether the route's snippet can carry complex data (a
    model file or a TensorFlow function needs no OpenVINO element type)."""
    if task.dtype not in ELEMENT_NAMES and not complex_data:
        return None
    return writer(task, target.device, config)
