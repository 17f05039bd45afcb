"""pnnx's side of an item: the case's model handed to the ``pnnx`` executable, which writes the
ncnn model (``.ncnn.param`` and ``.ncnn.bin``) that ncnn runs.

pnnx (https://github.com/pnnx/pnnx, the wheel ``pnnx`` 20261020) reads a TorchScript file or an
ONNX file and takes the inputs' shapes and types as ``inputshape=[2,4]f32`` (one bracket per
input, comma-separated). The route runs the executable the wheel ships (it links its own libtorch,
so the suite's torch is not involved in the conversion) in a child process and scratch folder
(:mod:`conformance.models.converter_process`), with ``inputshape`` and nothing else, and reads
``model.ncnn.param`` and ``model.ncnn.bin``:

- route ``pnnx`` (``torch.*``): the case's module (:mod:`conformance.models.torch_modules` for a
  split, :mod:`conformance.models.torch_slicing` for narrow and basic slicing: the ones every torch
  route judges) traced with ``torch.jit.trace`` on the case's data and saved as
  ``model.pt``, pnnx's documented input; torch's refusal to trace is the route's refusal;
- route ``onnx`` (``onnx.*``): the suite's one-node ONNX model saved as ``model.onnx``.

pnnx prints its passes and exits 0 after many problems (an operator it cannot convert is left in
the model as an unknown layer, with a warning): its exit code is not taken at its word, the model it
wrote is loaded and run, and a run that fails is judged. A conversion is refused only when no
``.ncnn.param`` was written; that refusal quotes the end of what pnnx printed.
"""

from __future__ import annotations

import importlib.util
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from conformance.models import converter_process
from conformance.plugin import AdapterError, BackendRefusal, Task, backend_calls

#: pnnx's name for float32 in ``inputshape`` (the only element type the routes hand it).
FLOAT32: Final = "f32"
_STEM: Final = "model"


@dataclass(frozen=True)
class Converted:
    """The ncnn model pnnx wrote: the param text and the weights (empty for a split)."""

    param: str
    weights: bytes


def executable() -> Path:
    """The ``pnnx`` executable inside the installed wheel, found without importing the package."""
    spec = importlib.util.find_spec("pnnx")
    if spec is None or not spec.submodule_search_locations:
        raise AdapterError("pnnx is not installed: pip install --no-deps pnnx==20261020")
    return Path(next(iter(spec.submodule_search_locations))) / "pnnx"


def inputshape(shapes: Sequence[Sequence[int]]) -> str:
    """pnnx's ``inputshape`` argument for float32 inputs of these shapes."""
    bracketed = ("[" + ",".join(str(dim) for dim in shape) + "]" + FLOAT32 for shape in shapes)
    return "inputshape=" + ",".join(bracketed)


def command(source: str, shapes: Sequence[Sequence[int]]) -> list[str]:
    """The command line the route runs in its scratch folder (and the reproducer prints)."""
    return [str(executable()), source, inputshape(shapes)]


def convert_file(source_name: str, content: bytes, shapes: Sequence[Sequence[int]]) -> Converted:
    """pnnx on ``content`` saved as ``source_name`` in a scratch folder; the ncnn model it wrote."""
    with tempfile.TemporaryDirectory(prefix="conformance-pnnx-") as directory:
        folder = Path(directory)
        (folder / source_name).write_bytes(content)
        try:
            done = converter_process.run(command(source_name, shapes), folder)
        except converter_process.ConverterHung as hung:
            raise AdapterError(str(hung)) from hung
        param, weights = folder / f"{_STEM}.ncnn.param", folder / f"{_STEM}.ncnn.bin"
        if not param.is_file():
            raise BackendRefusal(
                f"pnnx wrote no {param.name} (exit {done.returncode}): {converter_process.tail(done.stdout)}"
            )
        return Converted(param.read_text(), weights.read_bytes() if weights.is_file() else b"")


def traced_module(task: Task) -> bytes:
    """The case's module traced by ``torch.jit.trace`` on the case's data, as TorchScript bytes;
    torch's refusal to trace the request is marked as the route's."""
    import io

    import torch

    from conformance.models import torch_builders

    models = torch_builders.for_task(task)
    module, example = models.build_module(task), models.example_inputs(task)
    with backend_calls():
        traced = torch.jit.trace(module, example)  # type: ignore[no-untyped-call]
    buffer = io.BytesIO()
    torch.jit.save(traced, buffer)
    return buffer.getvalue()


def convert_torch(task: Task) -> Converted:
    """Route ``pnnx``: the traced module through pnnx."""
    from conformance_ncnn import ncnn_calls

    return convert_file(f"{_STEM}.pt", traced_module(task), [array.shape for array in ncnn_calls.feeds(task)])


def convert_onnx(task: Task) -> Converted:
    """Route ``onnx``: the suite's ONNX model through pnnx's ONNX import."""
    from conformance.models import onnx_graphs

    shapes = [array.shape for array in onnx_graphs.feeds(task).values()]
    return convert_file(f"{_STEM}.onnx", onnx_graphs.model_bytes(task), shapes)
