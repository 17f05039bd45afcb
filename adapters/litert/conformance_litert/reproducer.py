"""Standalone reproducers: Python statements that redo an item with TensorFlow and ai_edge_litert.

Route ``converter``: the ``tf.function`` of :mod:`conformance.models.tf_functions` (Split) or
:mod:`conformance.models.tf_slices` (Slice), its conversion
as :func:`conformance.models.tflite_models.convert` does it, the operators emitted, and the
interpreter fed by the signature's names, resized and allocated for each run as
:func:`conformance.models.tflite_models.invoke` does; output shapes come from the output details,
which also hold for the empty pieces ``get_tensor`` cannot read. Route ``onnx2tf``
(:func:`onnx2tf_snippet`): the suite's ONNX model byte for byte, onnx2tf's call as the route makes
it, the float32 model's operators and signature, and each run fed by the ONNX input names.
"""

from __future__ import annotations

from collections.abc import Mapping

from conformance import reproducers
from conformance.plugin import Task

_LOAD = """\
interpreter = litert.Interpreter(
    model_content=model, experimental_op_resolver_type=litert.OpResolverType.{resolver}, num_threads={threads}
)
runner = interpreter.get_signature_runner()
inputs = {{name: detail["index"] for name, detail in runner.get_input_details().items()}}
named = runner.get_output_details()
outputs = [named[name]["index"] for name in sorted(named, key=lambda name: int(name.rpartition("_")[2]))]
del runner  # a live signature runner makes allocate_tensors refuse ("at least 1 reference to internal data")
"""

_RUN = """\
interpreter.invoke()
details = {detail["index"]: detail for detail in interpreter.get_output_details()}
print([details[index]["shape"].tolist() for index in outputs])
"""


def snippet(task: Task, *, delegates: bool, threads: int) -> str:
    """Conversion, the operators emitted, and one invoke per run of the case."""
    from conformance.models import tf_functions, tf_slices, tflite_models

    dynamic = task.graph.data_shape == "dynamic"
    resolver = "AUTO" if delegates else "BUILTIN_WITHOUT_DEFAULT_DELEGATES"
    sliced = task.op in tf_slices.OPS
    code, name = (
        (tf_slices.function_code(task), tf_slices.FUNCTION)
        if sliced
        else (tf_functions.function_code(task), "split")
    )
    body = (
        "import tensorflow as tf\nfrom ai_edge_litert import interpreter as litert\n\n"
        f"{code}"
        "# the route's conversion: builtin operators only, no optimizations\n"
        f"model = tf.lite.TFLiteConverter.from_concrete_functions([{name}], tf.Module()).convert()\n"
        "builtin = litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES\n"
        "listing = litert.Interpreter(model_content=model, experimental_op_resolver_type=builtin)\n"
        'print("operators:", [op["op_name"] for op in listing._get_ops_details()])\n\n'
        f"{_LOAD.format(resolver=resolver, threads=threads)}"
    )
    if not dynamic:
        body += "interpreter.allocate_tensors()\n"
    for run in task.every_run:
        body += reproducers.run_heading(run)
        feeds = tflite_models.feeds(run)
        for name, array in feeds.items():
            body += f"{reproducers.array_code(array, name)}\n"
        if dynamic:  # unknown dims: resize every input to this run's shapes, then allocate again
            body += "".join(f"interpreter.resize_tensor_input(inputs[{n!r}], {n}.shape)\n" for n in feeds)
            body += "interpreter.allocate_tensors()\n"
        body += "".join(f"interpreter.set_tensor(inputs[{name!r}], {name})\n" for name in feeds)
        body += _RUN
    return body


_ONNX2TF_IMPORTS = """\
import pathlib
import tempfile

import onnx
import onnx2tf
from ai_edge_litert import interpreter as litert

"""

_ONNX2TF = """\
print("ONNX outputs:", [output.name for output in onnx.load_model_from_string(original).graph.output])
folder = pathlib.Path(tempfile.mkdtemp())
(folder / "model.onnx").write_bytes(original)
onnx2tf.convert(
    input_onnx_file_path=str(folder / "model.onnx"), output_folder_path=str(folder / "out"), {keywords}
)
model = (folder / "out" / "model_float32.tflite").read_bytes()
builtin = litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
listing = litert.Interpreter(model_content=model, experimental_op_resolver_type=builtin)
print("operators:", [op["op_name"] for op in listing._get_ops_details()])
print("signature:", listing.get_signature_list())

interpreter = litert.Interpreter(
    model_content=model, experimental_op_resolver_type=litert.OpResolverType.{resolver}, num_threads={threads}
)
runner = interpreter.get_signature_runner()
inputs = {{name: detail["index"] for name, detail in runner.get_input_details().items()}}
print("inputs:", {{name: detail["shape"].tolist() for name, detail in runner.get_input_details().items()}})
named = runner.get_output_details()
# by the ONNX output names where the signature keeps them, else in the signature's order
wanted = {names!r}
outputs = [named[name]["index"] for name in (wanted if set(wanted) <= set(named) else named)]
del runner  # a live signature runner makes allocate_tensors refuse ("at least 1 reference to internal data")
dynamic = any(-1 in detail["shape_signature"] for detail in interpreter.get_input_details())
if not dynamic:
    interpreter.allocate_tensors()
"""


def onnx2tf_snippet(task: Task, *, delegates: bool, threads: int) -> str:
    """The ONNX model, its conversion by onnx2tf, the converted model's operators, signature and
    input shapes, and one invoke per run fed as the ONNX model declares its inputs."""
    from conformance.models import onnx_graphs
    from conformance_litert import onnx2tf_route

    load = _ONNX2TF.format(
        keywords=", ".join(f"{key}={value}" for key, value in onnx2tf_route.SETTINGS.items()),
        resolver="AUTO" if delegates else "BUILTIN_WITHOUT_DEFAULT_DELEGATES",
        threads=threads,
        names=onnx2tf_route.output_names(task),
    )
    return onnx_graphs.snippet(task, _ONNX2TF_IMPORTS, load, _onnx2tf_call, variable="original")


def _onnx2tf_call(variables: Mapping[str, str]) -> str:
    """One run's feeds set by input name (resized first where the model's dims are unknown)."""
    named = variables.items()
    return (
        "if dynamic:  # unknown dims: resize every input to this run's shapes, then allocate again\n"
        + "".join(f"    interpreter.resize_tensor_input(inputs[{n!r}], {v}.shape)\n" for n, v in named)
        + "    interpreter.allocate_tensors()\n"
        + "".join(f"interpreter.set_tensor(inputs[{n!r}], {v})\n" for n, v in named)
        + _RUN
    )
