"""The reproducer of the ``edge`` route: the module, its export, lowering and runs with torch and
ExecuTorch alone, as :mod:`conformance_executorch.program` does them."""

from __future__ import annotations

from conformance import reproducers
from conformance.models.torch_builders import source_for
from conformance.plugin import Task


def snippet(task: Task, device: str) -> str:
    """Statements that export and lower the task's module for ``device``, load the program from its
    bytes and execute every run of the case on the one loaded method."""
    if device == "xnnpack":
        lowering = (
            "from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner\n"
            "edge = to_edge_transform_and_lower(exported, partitioner=[XnnpackPartitioner()])\n"
        )
    else:
        lowering = "edge = to_edge(exported)\n"
    writer, _, given = source_for(task)
    body = (
        "import torch\nfrom executorch.exir import to_edge, to_edge_transform_and_lower\n"
        "from executorch.runtime import Runtime\n\n"
        f"{writer.module_code(task)}\n"
        "def dense(*tensors):  # the strides torch gives a new tensor (NumPy's empty arrays have 0s)\n"
        "    return [t.clone(memory_format=torch.contiguous_format) for t in tensors]\n\n"
        f"{reproducers.array_code(task.data)}\n"
        f"exported = {writer.export_code(task, f'*dense({given})')}\n{lowering}"
        "method = Runtime.get().load_program(edge.to_executorch().buffer).load_method('forward')\n"
    )
    for run in task.every_run:
        data = "" if run is task else reproducers.array_code(run.data) + "\n"
        body += (
            f"{reproducers.run_heading(run)}{data}"
            f"pieces = method.execute(dense({source_for(run).inputs}))\n"
            "print([tuple(piece.shape) for piece in pieces])\n"
        )
    return body
