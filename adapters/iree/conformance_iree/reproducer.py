"""Standalone reproducers: Python statements that redo an item with IREE, onnx and NumPy alone.

They write out what route ``onnx`` does in the form an issue report can quote: the suite's model
saved byte for byte, ``iree-import-onnx`` run as its console script (``python -m``, so no PATH is
assumed), ``iree.compiler.tools.compile_file`` with the route's flags, and the runtime on
``local-task``, called once per run of the case with one printed line of output shapes.
"""

from __future__ import annotations

from collections.abc import Mapping

from conformance.plugin import Target, Task
from conformance_iree import toolchain

_TOOLS = """\
import subprocess
import sys

import iree.compiler.tools as ireec
import iree.runtime as ireert

"""

_PIPELINE = """\
importer = [sys.executable, "-m", "iree.compiler.tools.import_onnx", "model.onnx", "-o", "model.mlir"]
subprocess.run(importer, check=True)
vmfb = ireec.compile_file("model.mlir", extra_args={flags!r})
context = ireert.SystemContext(config=ireert.Config({driver!r}))
context.add_vm_module(ireert.VmModule.copy_buffer(context.instance, vmfb))
function = context.modules.module[{function!r}]
"""

_CALL = """\
results = function({arguments})
results = results if isinstance(results, tuple) else (results,)
print([tuple(output.to_host().shape) for output in results])
"""


def snippet(task: Task, target: Target) -> str:
    """The model (saved as ``model.onnx``; a sequence read by the Sequence ops the route adds), the
    import and compile, and one call per run of the case."""
    from conformance.models import onnx_graphs, sequence_consumers

    model = onnx_graphs.build_model(task)  # the graph's name and inputs, which consumers keep
    pipeline = _PIPELINE.format(
        flags=list(toolchain.COMPILE_FLAGS), driver=toolchain.DRIVER, function=model.graph.name
    )
    inputs = [value.name for value in model.graph.input]

    def call(variables: Mapping[str, str]) -> str:  # the feeds in the graph's input order
        return _CALL.format(arguments=", ".join(variables[name] for name in inputs))

    return onnx_graphs.snippet(
        task, _TOOLS, pipeline, call, file="model.onnx", consumed=sequence_consumers.LENGTH
    )
