"""Standalone reproducers: Python statements that redo an item with MNN and NumPy alone.

They write out what route ``onnx`` does: the suite's one-node model embedded byte for byte and
saved as ``model.onnx``, MNN's converter run in a child Python as the route runs it (its native
entry, the console script's first step, with the same arguments), ``model.mnn`` loaded with the
graph's input and output names, and for each run of the case its inputs, already in the type MNN
is handed (:data:`conformance_mnn.mnn_calls.CARRIERS`), fed to ``forward`` with one printed line of
output shapes.
"""

from __future__ import annotations

from collections.abc import Sequence

from conformance import reproducers
from conformance.plugin import Task
from conformance_mnn import mnn_calls

_CONVERT = """\
import pathlib
import subprocess
import sys

import MNN.expr as expr
import MNN.nn as nn

pathlib.Path("model.onnx").write_bytes(model)
converter = [sys.executable, "-c", {code!r}, *{arguments!r}]
print(subprocess.run(converter, capture_output=True, text=True).stdout.strip().splitlines()[-1:])
module = nn.load_module_from_file("model.mnn", {inputs!r}, {outputs!r})
"""


def snippet(task: Task, inputs: Sequence[str], outputs: Sequence[str]) -> str:
    """The model, its conversion and load, and one ``forward`` per run of the case."""
    from conformance.models import onnx_graphs

    encoded = reproducers.wrapped_base64(onnx_graphs.model_bytes(task))
    operator = onnx_graphs.operator_of(task.op)[0]
    body = (
        f"# {task.op}: one {operator} node, byte for byte as this run built it\n"
        f"model = base64.b64decode('''\n{encoded}\n''')\n"
        + _CONVERT.format(
            code=mnn_calls.CONVERTER_CODE,
            arguments=list(mnn_calls.CONVERTER_ARGS),
            inputs=list(inputs),
            outputs=list(outputs),
        )
    )
    for run in task.every_run:
        feeds = onnx_graphs.feeds(run)
        statements, variables = [], []
        for number, name in enumerate(inputs):
            array, mnn_name = mnn_calls.carried(feeds[name], mnn_calls.suite_name(feeds[name]))
            statements.append(reproducers.array_code(array, f"feed_{number}"))
            statements.append(
                f"var_{number} = expr.placeholder({list(array.shape)!r}, expr.NCHW, expr.{mnn_name})\n"
                f"var_{number}.write(feed_{number})"
            )
            variables.append(f"var_{number}")
        body += (
            f"{reproducers.run_heading(run)}" + "\n".join(statements) + "\n"
            f"results = [output.read() for output in module.forward([{', '.join(variables)}])]\n"
            "print([result.shape for result in results])\n"
        )
    return body
