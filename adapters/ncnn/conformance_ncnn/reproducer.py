"""Standalone reproducers: Python statements that redo an item with pnnx, ncnn (and torch, to trace
a torch op's module) and NumPy alone.

They write out what the routes do: the source model (the ONNX model byte for byte, or the torch
op's call as a module, a split or a slice as conformance.models.torch_slice_code writes it, traced
with ``torch.jit.trace`` on the case's data), the ``pnnx`` command
with its ``inputshape``, and ncnn's load and one extraction per run of the case, each with one
printed line of output shapes.
"""

from __future__ import annotations

from conformance import reproducers
from conformance.plugin import Task
from conformance_ncnn import ncnn_calls, pnnx_calls

_PNNX = """\
import os
import subprocess

import ncnn
import pnnx

subprocess.run([os.path.join(os.path.dirname(pnnx.__file__), "pnnx"), {source!r}, {shape!r}], check=False)
net = ncnn.Net()
net.opt.num_threads = 1
net.load_param("model.ncnn.param")
net.load_model("model.ncnn.bin")
"""

_RUN = """\
extractor = net.create_extractor()
for name, feed in zip(net.input_names(), [{feeds}]):
    extractor.input(name, ncnn.Mat(feed))
outputs = [np.array(extractor.extract(name)[1]) for name in net.output_names()]
print([output.shape for output in outputs])
"""


def _torch_source(task: Task) -> str:
    """The torch op's call as a module (as pnnx_calls.traced_module builds it), traced on the data."""
    from conformance.models import torch_code, torch_slice_code

    if task.op in torch_slice_code.OPS:
        module, example = torch_slice_code.module_code(task), torch_slice_code.inputs_code(task)
        return (
            f"import torch\n\n\n{module}\n\n{reproducers.array_code(task.data)}\n"
            f"torch.jit.trace(Slice(), ({example},)).save('model.pt')\n"
        )
    function = task.op.removeprefix("torch.")
    argument = torch_code.split_argument(task)
    dim = "" if task.request.axis is None else f", {task.request.axis}"
    return (
        "import torch\n\n\n"
        "class Split(torch.nn.Module):\n"
        "    def forward(self, data):\n"
        f"        return tuple(torch.{function}(data, {argument!r}{dim}))\n\n\n"
        f"{reproducers.array_code(task.data, 'example')}\n"
        "torch.jit.trace(Split(), (torch.from_numpy(example),)).save('model.pt')\n"
    )


def snippet(task: Task) -> str:
    """The source model, pnnx, and one extraction per run."""
    if task.op.startswith("onnx."):
        from conformance.models import onnx_graphs

        encoded = reproducers.wrapped_base64(onnx_graphs.model_bytes(task))
        source = f"model = base64.b64decode('''\n{encoded}\n''')\nopen('model.onnx', 'wb').write(model)\n"
        name = "model.onnx"
        shapes = [array.shape for array in onnx_graphs.feeds(task).values()]
    else:
        source, name = _torch_source(task), "model.pt"
        shapes = [array.shape for array in ncnn_calls.feeds(task)]
    body = f"# {task.op}\n{source}" + _PNNX.format(source=name, shape=pnnx_calls.inputshape(shapes))
    for run in task.every_run:
        arrays = ncnn_calls.feeds(run)
        statements = "\n".join(reproducers.array_code(array, f"feed_{n}") for n, array in enumerate(arrays))
        feeds = ", ".join(f"feed_{n}" for n in range(len(arrays)))
        body += f"{reproducers.run_heading(run)}{statements}\n" + _RUN.format(feeds=feeds)
    return body
