"""Standalone reproducers for OpenVINO results: Python that uses only OpenVINO (and NumPy).

Each route's snippet redoes what the route did, construction included, because many refusals
happen while the model is built (node constructors run shape inference): the native route as
``openvino.opset1`` calls, the onnx route as the model file read by ``read_model``, the pytorch
route as the torch module handed to ``convert_model``, the tensorflow and tflite routes as the
traced function handed to ``convert_model`` or converted to the ``.tflite`` file it reads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from conformance import dtypes, reproducers
from conformance.plugin import Target, Task

_ELEMENT_NAMES = {
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


def _typed_array(name: str, value: object, type_name: str, shape_code: str) -> str:
    return (
        f"{name} = np.array({value!r}).astype(np.{dtypes.numpy_dtype(type_name).name}).reshape({shape_code})"
    )


def native_snippet(task: Task, device: str, config: Mapping[str, str]) -> str:
    graph = task.graph
    rank = task.data.ndim
    shape = (
        f"ov.PartialShape([ov.Dimension() for _ in range({rank})])"
        if graph.data_shape == "dynamic"
        else repr(list(task.data.shape))
    )
    lines = [
        "import openvino as ov",
        "import openvino.opset1 as opset1",
        "",
        f"data_node = opset1.parameter({shape}, ov.Type.{_ELEMENT_NAMES[task.dtype]}, name='data')",
    ]
    parameters = ["data_node"]
    variadic = task.op == "openvino.VariadicSplit-1"
    axis_shape = "(1,)" if graph.axis_shape == "[1]" else "()"
    lengths_shape = f"({len(task.form.values)},)"

    def inputs(run: Task) -> list[tuple[str, object, str, str, bool]]:
        """(name, value, element type, shape, fed at run time): the axis and VariadicSplit's lengths."""
        found: list[tuple[str, object, str, str, bool]] = [
            ("axis", run.axis, graph.axis_dtype, axis_shape, graph.runtime("axis"))
        ]
        if variadic:
            values = list(run.form.values)
            found.append(
                ("split_lengths", values, graph.lengths_dtype, lengths_shape, graph.runtime("lengths"))
            )
        return found

    for name, value, type_name, shape_code, runtime in inputs(task):
        if runtime:
            lines.append(
                f"{name}_node = opset1.parameter(list({shape_code}), "
                f"ov.Type.{_ELEMENT_NAMES.get(type_name, 'f32')}, name={name!r})"
            )
            parameters.append(f"{name}_node")
        else:
            lines.append(_typed_array(name, value, type_name, shape_code))
            lines.append(f"{name}_node = ov.op.Constant({name})")
    if variadic:
        lines.append("node = opset1.variadic_split(data_node, axis_node, split_lengths_node)")
    else:
        lines.append(f"node = opset1.split(data_node, axis_node, {task.form.values[0]})")
    lines += [f"model = ov.Model(node.outputs(), [{', '.join(parameters)}])", "core = ov.Core()"]
    body = "\n".join(lines) + "\n" + _compile(device, config)
    for run in task.every_run:
        feeds = ["data"]
        body += reproducers.run_heading(run) + reproducers.array_code(run.data) + "\n"
        for name, value, type_name, shape_code, runtime in inputs(run):
            if runtime:
                body += _typed_array(name, value, type_name, shape_code) + "\n"
                feeds.append(name)
        body += _infer(f"[{', '.join(feeds)}]")
    return body


def onnx_snippet(task: Task, device: str, config: Mapping[str, str]) -> str:
    from conformance.models import onnx_graphs, sequence_consumers

    rule = sequence_consumers.CONCAT  # the onnx route's (see onnx_route.py)
    model = reproducers.wrapped_base64(sequence_consumers.model_bytes(task, rule))
    read = (
        f", read through {sequence_consumers.consumer(task, rule)}"
        if onnx_graphs.is_sequence(task.op)
        else ""
    )
    body = (
        "import base64\nimport os\nimport tempfile\n\nimport openvino as ov\n\n"
        f"# {task.op}: one {onnx_graphs.operator_of(task.op)[0]} node{read},\n"
        "# byte for byte as this run built it,\n"
        "# written to a folder of its own (never over a file of yours)\n"
        "path = os.path.join(tempfile.mkdtemp(), 'split.onnx')\n"
        f"with open(path, 'wb') as file:\n    file.write(base64.b64decode('''\n{model}\n'''))\n"
        "core = ov.Core()\nmodel = core.read_model(path)\n" + _compile(device, config)
    )
    for run in task.every_run:
        arrays, mapping = reproducers.feeds_code(onnx_graphs.feeds(run))
        body += reproducers.run_heading(run) + f"{arrays}\n" + _infer(mapping)
    return body


def pytorch_snippet(task: Task, device: str, config: Mapping[str, str]) -> str:
    from conformance.models import torch_modules

    argument = torch_modules.split_argument(task)
    dim = "" if task.axis is None else f", dim={task.axis}"
    dims = [-1] * task.data.ndim if task.graph.data_shape == "dynamic" else list(task.data.shape)
    tensor = (
        "torch.from_numpy(data.view(np.int16)).view(torch.bfloat16)"
        if task.dtype == "bfloat16"
        else "torch.from_numpy(data)"
    )
    body = (
        "import openvino as ov\nimport torch\n\n"
        f"{reproducers.array_code(task.data)}\n"
        "class Split(torch.nn.Module):\n    def forward(self, x):\n"
        f"        return {task.op}(x, {argument!r}{dim})\n\n"
        f"example = {tensor}\n"
        f"model = ov.convert_model(Split(), example_input=(example,), "
        f"input=[(ov.PartialShape({dims!r}), ov.Type.{_ELEMENT_NAMES[task.dtype]})])\n"
        "core = ov.Core()\n" + _compile(device, config)
    )
    for run in task.every_run:
        data = "" if run is task else reproducers.array_code(run.data) + "\n"
        body += reproducers.run_heading(run) + data + _infer("[data]")
    return body


def torch_export_snippet(task: Task, device: str, config: Mapping[str, str]) -> str:
    from conformance.models import torch_modules

    argument = torch_modules.split_argument(task)
    dim = "" if task.axis is None else f", dim={task.axis}"
    dynamic = (
        f", dynamic_shapes={{'x': dict.fromkeys(range({task.data.ndim}), torch.export.Dim.DYNAMIC)}}"
        if torch_modules.dynamic_shapes(task) is not None
        else ""
    )
    body = (
        "import openvino as ov\nimport torch\n\n"
        f"{reproducers.array_code(task.data)}\n"
        "class Split(torch.nn.Module):\n    def forward(self, x):\n"
        f"        return {task.op}(x, {argument!r}{dim})\n\n"
        f"program = torch.export.export(Split(), (torch.from_numpy(data),){dynamic})\n"
        "model = ov.convert_model(program)\n"
        "core = ov.Core()\n" + _compile(device, config)
    )
    for run in task.every_run:
        data = "" if run is task else reproducers.array_code(run.data) + "\n"
        body += reproducers.run_heading(run) + data + _infer("[data]")
    return body


def _tf_function(task: Task) -> str:
    """The imports and ``split``, the concrete function the routes convert, written by the shared
    builder (:func:`conformance.models.tf_functions.function_code`)."""
    from conformance.models import tf_functions

    return "import openvino as ov\nimport tensorflow as tf\n\n" + tf_functions.function_code(task)


def _tf_runs(task: Task, prefix: str = "", suffix: str = "", printed: str = "") -> str:
    """Each run's inputs fed by the model's input names (``prefix + name + suffix``), and the
    output shapes (``printed``: the list to print, by default every output in the model's order)."""
    from conformance.models import tf_functions

    body = ""
    for run in task.every_run:
        arrays, _ = reproducers.feeds_code(tf_functions.feeds(run))
        names = {name: f"feed_{number}" for number, name in enumerate(tf_functions.feeds(run))}
        mapping = ", ".join(f"{prefix + name + suffix!r}: {variable}" for name, variable in names.items())
        feeds = "{" + mapping + "}"
        body += reproducers.run_heading(run) + f"{arrays}\n"
        body += f"request.infer({feeds})\nprint({printed})\n" if printed else _infer(feeds)
    return body


def tensorflow_snippet(task: Task, device: str, config: Mapping[str, str]) -> str:
    """The function, ``convert_model`` on it (shapes from its signature), one infer per run."""
    return (
        _tf_function(task)
        + "model = ov.convert_model(split)\n"
        + _INPUT_TYPES
        + "core = ov.Core()\n"
        + _compile(device, config)
        + _tf_runs(task)
    )


#: The element types the frontend declared (a type it cannot map becomes f32 silently).
_INPUT_TYPES = (
    "print('inputs:', [(port.any_name, port.get_element_type().get_type_name()) for port in model.inputs])\n"
)
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
    return (
        _tf_function(task)
        + "converter = tf.lite.TFLiteConverter.from_concrete_functions([split], tf.Module())\n"
        "with open('split.tflite', 'wb') as file:\n    file.write(converter.convert())\n"
        "model = ov.convert_model('split.tflite')\n"
        + _INPUT_TYPES
        + _TFLITE_ORDER
        + "core = ov.Core()\n"
        + _compile(device, config)
        + _tf_runs(
            task, "serving_default_", ":0", "[tuple(request.get_output_tensor(at).shape) for at in order]"
        )
    )


#: What a route's snippet writer takes: the task, the device and the compile properties.
Writer = Callable[[Task, str, Mapping[str, str]], str]


def snippet(
    task: Task, target: Target, config: Mapping[str, str], writer: Writer, complex_data: bool
) -> str | None:
    """The reproducer of ``task`` on ``target`` written by the route's ``writer``, compiled with
    the run's ``config``; ``complex_data``: whether the route's snippet can carry complex data (a
    model file or a TensorFlow function needs no OpenVINO element type)."""
    if task.dtype not in _ELEMENT_NAMES and not complex_data:
        return None
    return writer(task, target.device, config)
