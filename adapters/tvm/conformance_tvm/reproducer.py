"""Standalone reproducers: Python statements that redo an item with TVM, onnx and NumPy alone.

They write out what the route does: the suite's one-node model embedded byte for byte (also written
to ``model.onnx`` in the working directory, for anyone who wants to open it), TVM's import, compile
and VM calls as :mod:`conformance_tvm.loading` makes them, and for each run of the case its feeds in
the model's input order and one printed line of the output shapes (a SplitToSequence's sequence
comes back as a tuple of tensors, printed as its pieces).
"""

from __future__ import annotations

from conformance import reproducers
from conformance.plugin import Task

_IMPORT = """\
with open("model.onnx", "wb") as file:
    file.write(model)
# import: TVM's Relax ONNX frontend, the model's own opset and input shapes
mod = from_onnx(onnx.load_from_string(model))
# compile for the host CPU, and a Relax VM on it
vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())


def pieces(output):
    return [output.numpy()] if hasattr(output, "numpy") else [p for o in output for p in pieces(o)]
"""


def snippet(task: Task) -> str:
    """The model, its import and compile, and one ``vm["main"]`` call per run of the case."""
    from conformance.models import onnx_graphs

    encoded = reproducers.wrapped_base64(onnx_graphs.model_bytes(task))
    operator = onnx_graphs.operator_of(task.op)[0]
    body = (
        "import onnx\nimport tvm\nfrom tvm import relax\nfrom tvm.relax.frontend.onnx import from_onnx\n\n"
        f"# {task.op}: one {operator} node, byte for byte as this run built it\n"
        f"model = base64.b64decode('''\n{encoded}\n''')\n"
        f"{_IMPORT}"
    )
    for run in task.every_run:
        feeds = onnx_graphs.feeds(run)
        statements, _ = reproducers.feeds_code(feeds)
        names = ", ".join(f"tvm.runtime.tensor(feed_{number})" for number in range(len(feeds)))
        body += (
            f"{reproducers.run_heading(run)}{statements}\n"
            f'outputs = pieces(vm["main"]({names}))\n'
            "print([output.shape for output in outputs])\n"
        )
    return body
