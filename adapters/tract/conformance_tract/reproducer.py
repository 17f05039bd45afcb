"""Standalone reproducers: Python statements that redo an item with tract and NumPy alone.

They write out what the route does: the suite's one-node model embedded byte for byte (written to
``model.onnx`` in the working directory, since tract's bindings load from a path), tract's three
calls as :mod:`conformance_tract.loading` makes them, and for each run of the case its feeds in
tract's input order (the graph's inputs: ``data``, then a runtime ``split``) and one printed line of
the output shapes.
"""

from __future__ import annotations

from conformance import reproducers
from conformance.plugin import Task

_LOAD = """\
with open("model.onnx", "wb") as file:
    file.write(model)
# load: the ONNX frontend; into_model: typing and declutter; into_runnable: optimized CPU plan
runnable = tract.onnx().load("model.onnx").into_model().into_runnable()
"""


def snippet(task: Task) -> str:
    """The model, its load, and one ``runnable.run`` per run of the case."""
    from conformance.models import onnx_graphs

    encoded = reproducers.wrapped_base64(onnx_graphs.model_bytes(task))
    operator = onnx_graphs.operator_of(task.op)[0]
    body = (
        "import tract\n\n"
        f"# {task.op}: one {operator} node, byte for byte as this run built it\n"
        f"model = base64.b64decode('''\n{encoded}\n''')\n"
        f"{_LOAD}"
    )
    for run in task.every_run:
        feeds = onnx_graphs.feeds(run)
        statements, _ = reproducers.feeds_code(feeds)
        names = ", ".join(f"feed_{number}" for number in range(len(feeds)))
        body += (
            f"{reproducers.run_heading(run)}{statements}\n"
            f"outputs = [tensor.to_numpy() for tensor in runnable.run([{names}])]\n"
            "print([output.shape for output in outputs])\n"
        )
    return body
