"""Route ``torch-onnx``: a PyTorch model exported to ONNX and served by ONNX Runtime.

Where most users meet Split and Slice in ONNX: whatever ``torch.onnx.export`` makes of
``torch.split`` / ``tensor_split`` / ``chunk`` / ``hsplit`` / ``vsplit`` / ``dsplit``, and of
``torch.narrow`` and basic slicing ``x[a:b:c, ...]``. The module is the suite's own (the one the
torch adapter runs eagerly: :mod:`conformance.models.torch_modules` for a split,
:mod:`conformance.models.torch_slicing` for a slice, narrow's start a 0-dim tensor input where the
case feeds it at run time), exported as the exporter's documentation recommends today: the dynamo
exporter (``dynamo=True``), its ONNX optimizer on, its default opset, the data's dims
``Dim.DYNAMIC`` where the case says they are unknown. An export failure is the route refusing the
request (judged), never ``unsupported``.

Complex data: ONNX Runtime has no complex tensors, so the exporter writes a complex tensor as its
real representation (``torch.view_as_real``: a trailing dim of 2 holding the real and imaginary
parts). The route feeds and reads the model in that representation, bit for bit, so the pieces are
judged as complex.

Needs torch and onnxscript beside onnxruntime (``pip install adapters/onnxruntime[torch]``).
"""

from __future__ import annotations

import contextlib
import functools
import io
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

import numpy as np

from conformance.models.torch_builders import for_task as _models
from conformance.plugin import Route, Target, Task, Unsupported, version_of
from conformance_onnxruntime import transport

if TYPE_CHECKING:
    import onnxruntime  # type: ignore[import-untyped]

    from conformance_onnxruntime.adapter import Settings

#: The exporter's settings, recorded with the adapter's options in every results file.
EXPORTER_OPTIONS: Final = {
    "exporter": "torch.onnx.export",
    "dynamo": "True",
    "optimize": "True",
    "opset": "default",
}


def options() -> dict[str, str]:
    """The exporter's settings and the versions that decide what it emits."""
    found = {f"torch_onnx_{key}": value for key, value in EXPORTER_OPTIONS.items()}
    return found | {f"{name}_version": version_of(name) for name in ("torch", "onnxscript")}


def _support(task: Task, target: Target) -> Unsupported | None:
    """A missing exporter, or a dim torch.export cannot keep dynamic."""
    refused = transport.missing(
        "torch-onnx", ("torch", "onnxscript"), "pip install adapters/onnxruntime[torch]"
    )
    if refused is not None:
        return refused
    from conformance.models import torch_modules

    problem = torch_modules.export_dynamic_problem(task)
    return None if problem is None else Unsupported(problem)


def _export(task: Task, target: Target) -> bytes:
    """The module exported to ONNX, serialized; the exporter's console chatter is dropped."""
    import torch

    models = _models(task)
    with contextlib.redirect_stdout(io.StringIO()):
        program = torch.onnx.export(
            models.build_module(task),
            models.example_inputs(task),
            dynamo=True,
            optimize=True,
            dynamic_shapes=models.dynamic_shapes(task),
            verbose=False,
        )
    assert program is not None, "the dynamo exporter returns an ONNXProgram"
    serialized: bytes = program.model_proto.SerializeToString()
    return serialized


def _run(compiled: onnxruntime.InferenceSession, task: Task) -> Sequence[np.ndarray]:
    """The module's forward inputs (the data, and narrow's fed start) by position, whatever the
    exporter named them, complex data fed and read in the exporter's real representation."""
    from conformance.models import torch_modules, torch_slice_code

    arrays = [task.data]
    if torch_slice_code.start_fed(task):  # the start as torch_slicing hands it to forward
        arrays.append(torch_modules.to_numpy(_models(task).example_inputs(task)[1]))
    names = [given.name for given in compiled.get_inputs()]
    feeds = {name: _as_real(array) for name, array in zip(names, arrays, strict=True)}
    return [_as_complex(output, task.data.dtype) for output in transport.run(compiled, feeds)]


def _as_real(data: np.ndarray) -> np.ndarray:
    """Complex data as ``torch.view_as_real`` lays it out (the same bytes); other data as it is."""
    if data.dtype.kind != "c":
        return data
    parts: np.ndarray = np.ascontiguousarray(data).view(np.finfo(data.dtype).dtype)
    return parts.reshape(*data.shape, 2)


def _as_complex(output: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """An output in the real representation of the complex ``dtype`` viewed back as complex (the same
    bytes); any other output as it came, so a model that lost the complex type is seen as such."""
    if dtype.kind != "c" or output.dtype != np.finfo(dtype).dtype or output.shape[-1:] != (2,):
        return output
    values: np.ndarray = np.ascontiguousarray(output).view(dtype).reshape(output.shape[:-1])
    return values


def _slice_reproducer(settings: Settings, task: Task) -> str:
    """A Slice task's reproducer: torch_slice_code's module (narrow's start an input where it is
    fed), the export as the route calls it, and the session fed each run's data (and start) by
    position."""
    from conformance import reproducers
    from conformance.models import torch_slice_code

    dynamic = ""
    if task.graph.data_shape == "dynamic":
        dims = f"dict.fromkeys(range({task.data.ndim}), torch.export.Dim.DYNAMIC)"
        start = ", 'start': None" if torch_slice_code.start_fed(task) else ""
        dynamic = f", dynamic_shapes={{'x': {dims}{start}}}"
    body = (
        f"import onnxruntime as ort\nimport torch\n\n{torch_slice_code.module_code(task)}\n"
        f"{reproducers.array_code(task.data)}\n"
        f"program = torch.onnx.export(\n    Slice(), ({torch_slice_code.inputs_code(task)},), dynamo=True, "
        f"optimize=True, verbose=False{dynamic}\n)\n"
        "session = ort.InferenceSession(program.model_proto.SerializeToString(), "
        f"providers={list(settings.providers)!r})\n"
        "names = [given.name for given in session.get_inputs()]\n"
    )
    if task.dtype == "bfloat16":
        body += "# bfloat16 feeds must go through ort.OrtValue (see conformance_onnxruntime.transport)\n"
    for run in task.every_run:
        inputs = f"[value.numpy() for value in ({torch_slice_code.inputs_code(run)},)]"
        body += (
            f"{reproducers.run_heading(run)}{reproducers.array_code(run.data)}\n"
            f"outputs = session.run(None, dict(zip(names, {inputs})))\n"
            "print([output.shape for output in outputs])\n"
        )
    return body


def _reproducer(settings: Settings, task: Task, target: Target) -> str:
    """The module, the export as the route calls it, and one session run per run."""
    from conformance import reproducers
    from conformance.models import torch_code, torch_slice_code

    if task.op in torch_slice_code.OPS:
        return _slice_reproducer(settings, task)

    argument = torch_code.split_argument(task)
    dim = "" if task.request.axis is None else f", dim={task.request.axis}"
    dynamic = torch_code.dynamic_code(task)
    body = (
        "import onnxruntime as ort\nimport torch\n\n"
        "class Split(torch.nn.Module):\n    def forward(self, x):\n"
        f"        return {task.op}(x, {argument!r}{dim})\n\n"
        f"{reproducers.array_code(task.data)}\n"
        "program = torch.onnx.export(\n"
        f"    Split(), (torch.from_numpy(data),), dynamo=True, optimize=True, verbose=False{dynamic}\n)\n"
        "session = ort.InferenceSession(program.model_proto.SerializeToString(), "
        f"providers={list(settings.providers)!r})\n"
    )
    complex_data = task.data.dtype.kind == "c"  # in and out in the exporter's real representation
    feed = "torch.view_as_real(torch.from_numpy(data)).numpy()" if complex_data else "data"
    back = (
        "outputs = [torch.view_as_complex(torch.from_numpy(output)).numpy() for output in outputs]\n"
        if complex_data
        else ""
    )
    for run in task.every_run:
        body += (
            f"{reproducers.run_heading(run)}{reproducers.array_code(run.data)}\n"
            f"outputs = session.run(None, {{session.get_inputs()[0].name: {feed}}})\n"
            f"{back}print([output.shape for output in outputs])\n"
        )
    return body


def route(settings: Settings) -> Route:
    """The route, its sessions made with the adapter's ``settings``."""
    return Route(
        "torch-onnx",
        ("torch.*split", "torch.chunk", "torch.narrow", "torch.Tensor.__getitem__"),
        "the torch module exported by torch.onnx.export (dynamo exporter, optimizer on), run by an "
        "InferenceSession",
        build=_export,
        compile=settings.session,
        run=_run,
        support=_support,
        reproducer=functools.partial(_reproducer, settings),
        prepare=transport.prepare,
        default=False,
    )
