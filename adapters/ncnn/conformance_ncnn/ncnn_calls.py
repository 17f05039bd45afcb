"""ncnn's side of an item: the model pnnx wrote loaded into an ``ncnn.Net`` and run through an
``Extractor``, and arrays carried to and from ``ncnn.Mat`` bit for bit.

The calls are those of ncnn's Python README (https://github.com/Tencent/ncnn, python/README.md):
``Net.load_param`` and ``Net.load_model`` from files, ``create_extractor``, ``input(name, Mat)`` per
input and ``extract(name)`` per output, which returns a status and the ``Mat``. Inputs and outputs
are taken in the order the param file lists them (``net.input_names()``, ``net.output_names()``):
pnnx names them ``in0``, ``in1`` ... and ``out0``, ``out1`` ... in the source model's order. The
net's options are its defaults (CPU, no Vulkan, fp16 storage allowed where the CPU has it) but one
thread: workers run side by side, and a split moves data, so the count cannot change a result.

What ncnn can be handed, exactly: an ``ncnn.Mat`` built from a NumPy array (the README's
``ncnn.Mat(array)``) holds 1 to 4 dims (w; h, w; c, h, w; c, d, h, w; python/src/main.cpp refuses
more), and ncnn's layers compute on float32 blobs: the binding sizes elements by the array's
format (8 bytes for float64, 2 for float16, 1 for int8/uint8, 4 for everything else) without
recording a type, the ``Input`` layer and every layer after it read 4-byte elements as float32
(fp16 and int8 storage are conversions *from* float32 inside the net), and ncnn's maintainers
answer integer inputs with "convert to a float Mat" (Tencent/ncnn#757). So float32 data of rank 1
to 4 is fed; every other element type and rank is unsupported with that reason, and a Mat comes
back as the float32 array NumPy's buffer protocol gives for it.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from conformance import dtypes
from conformance.plugin import BackendRefusal, Task, backend_calls
from conformance_ncnn.pnnx_calls import Converted

#: The net's options the route sets (every other one at ncnn's default).
OPTIONS: Final = "ncnn.Net() defaults (CPU, use_vulkan_compute False), opt.num_threads = 1"
#: The ranks an ncnn.Mat built from NumPy holds.
RANKS: Final = range(1, 5)
ELEMENT: Final = "float32"
WHY_FLOAT32: Final = (
    "ncnn computes on float32 blobs: ncnn.Mat(array) sizes elements by the array's format without "
    "recording a type (python/src/main.cpp) and its layers read 4-byte elements as float32; ncnn's "
    "maintainers answer other element types with 'convert to a float Mat' "
    "(https://github.com/Tencent/ncnn/issues/757)"
)
WHY_RANK: Final = (
    "an ncnn.Mat built from a NumPy array holds 1 to 4 dims (w; h, w; c, h, w; c, d, h, w): "
    "python/src/main.cpp refuses more, and a 0-d array has no Mat shape"
)


@dataclass(frozen=True)
class Loaded:
    """A loaded net and its inputs' and outputs' names in the param file's order."""

    net: Any  # ncnn.Net: the bindings ship no type information
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]


def feeds(task: Task) -> list[np.ndarray]:
    """The source model's runtime inputs in order: the data, and for an ONNX op a runtime ``split``
    or Slice index inputs, for torch.narrow a fed start (a 0-dim tensor of ``graph.index_dtype``)."""
    from conformance.models import torch_slice_code

    if task.op.startswith("onnx."):
        from conformance.models import onnx_graphs

        return list(onnx_graphs.feeds(task).values())
    if torch_slice_code.start_fed(task):
        start = torch_slice_code.narrow_arguments(task)[1]
        return [
            task.data,
            np.asarray(start, dtype=np.int64).astype(dtypes.numpy_dtype(task.graph.index_dtype)),
        ]
    return [task.data]


def unfed(arrays: Sequence[np.ndarray]) -> str | None:
    """Why these inputs cannot be handed to ncnn, or None (see the module docstring)."""
    for array in arrays:
        if array.dtype != np.float32:
            name = "string" if array.dtype.kind in "OUS" else str(array.dtype)
            return f"ncnn cannot be handed tensor({name}): {WHY_FLOAT32}"
        if array.ndim not in RANKS:
            return f"ncnn cannot be handed a rank-{array.ndim} tensor: {WHY_RANK}"
    return None


def load(converted: Converted) -> Loaded:
    """The param and weights files loaded into a net with one thread; a load that fails is ncnn's
    refusal, quoting its status."""
    import ncnn

    net = ncnn.Net()
    net.opt.num_threads = 1
    with tempfile.TemporaryDirectory(prefix="conformance-ncnn-") as directory:
        param, weights = Path(directory) / "model.ncnn.param", Path(directory) / "model.ncnn.bin"
        param.write_text(converted.param)
        weights.write_bytes(converted.weights)
        with backend_calls():
            status = net.load_param(str(param))
            if status != 0:
                raise BackendRefusal(f"ncnn.Net.load_param returned {status}")
            status = net.load_model(str(weights))
            if status != 0 and converted.weights:
                raise BackendRefusal(f"ncnn.Net.load_model returned {status}")
            return Loaded(net, tuple(net.input_names()), tuple(net.output_names()))


def run(loaded: Loaded, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Each array into its input, each output extracted and copied out of ncnn's memory."""
    import ncnn

    if len(arrays) != len(loaded.inputs):
        raise BackendRefusal(
            f"the ncnn model takes {len(loaded.inputs)} input(s) ({', '.join(loaded.inputs)}); "
            f"the source model takes {len(arrays)}"
        )
    # ncnn.Mat(array) wraps the array's memory without copying it, and the extractor reads its
    # inputs only when an output is extracted: the arrays and Mats are held until this returns
    held = [np.array(array, copy=True, order="C") for array in arrays]
    mats = [ncnn.Mat(array) for array in held]
    with backend_calls():
        extractor = loaded.net.create_extractor()
        for name, mat in zip(loaded.inputs, mats, strict=True):
            extractor.input(name, mat)
        outputs = []
        for name in loaded.outputs:
            status, mat = extractor.extract(name)
            if status != 0:
                raise BackendRefusal(f"ncnn's Extractor.extract({name!r}) returned {status}")
            outputs.append(np.array(mat, copy=True))
        return outputs
