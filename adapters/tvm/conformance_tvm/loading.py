"""TVM's side of an item: the ONNX model imported by the Relax frontend, compiled for the CPU,
run on the Relax virtual machine, and tensors carried between NumPy and TVM without touching a value.

The calls, as TVM's Relax ONNX frontend and its ``tvm.compile`` document them (TVM 0.27):

1. ``onnx.load_from_string(model)`` then ``tvm.relax.frontend.onnx.from_onnx(model)`` with every
   default: no ``shape_dict`` (input shapes are the model's own: the suite's dynamic models name
   their dims ``d0``, ``d1`` ..., which become symbolic shape variables, so one compiled module takes
   every run of a case), no ``opset`` (the frontend reads the model's opset import, so each Split
   version is converted by its own converter), ``keep_params_in_input=False`` (a constant ``split``
   initializer is bound into the module as a constant, as a user's model would be). This is where
   the frontend checks and refuses a Split request.
2. ``tvm.compile(module, target="llvm")``: the default Relax and TIR pipelines for the host CPU,
   then ``relax.VirtualMachine(executable, tvm.cpu())``.
3. ``vm["main"](*tensors)``: the graph's inputs in the model's order (``data``, then ``split`` when
   fed at run time), each ``tvm.runtime.tensor(array)``.

Outputs come back as a ``tvm.runtime.Tensor`` or an FFI array of them (several outputs, and a
SplitToSequence's sequence, which the frontend makes a Relax tuple); each tensor's ``.numpy()``
is a byte copy into the array of the same element type (bfloat16 as ml_dtypes.bfloat16), so every
bit is kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Final

import numpy as np

#: The pipeline, as recorded in every result's options.
CALL: Final = (
    "relax.frontend.onnx.from_onnx(onnx.load_from_string(model)); tvm.compile(mod, target='llvm'); "
    "relax.VirtualMachine(ex, tvm.cpu())['main'](*inputs)"
)
#: What from_onnx is given besides the model (see the module docstring).
FRONTEND_ARGUMENTS: Final = "defaults: no shape_dict, no opset (the model's), keep_params_in_input=False"
#: The compilation target.
TARGET: Final = "llvm"


@dataclass(frozen=True)
class Imported:
    """A Relax module and the names of the graph inputs it takes, in the model's order."""

    module: Any  # tvm.IRModule: TVM's types are not checked here (no stubs for its FFI objects)
    inputs: tuple[str, ...]


@dataclass(frozen=True)
class Compiled:
    """The VM's ``main`` and the names of its inputs, in the order it takes them."""

    main: Any  # a tvm_ffi Function
    inputs: tuple[str, ...]


def version() -> str:
    """The installed ``apache-tvm`` distribution's version, read without importing TVM (3 s)."""
    try:
        return metadata.version("apache-tvm")
    except metadata.PackageNotFoundError:
        return "not installed"


def import_model(model: bytes) -> Imported:
    """The serialized model through the Relax ONNX frontend (every exception is TVM's)."""
    import onnx
    from tvm.relax.frontend.onnx import from_onnx

    proto = onnx.load_from_string(model)
    constants = {initializer.name for initializer in proto.graph.initializer}
    names = tuple(value.name for value in proto.graph.input if value.name not in constants)
    return Imported(from_onnx(proto), names)


def compile_module(imported: Imported) -> Compiled:
    """``tvm.compile`` for the host CPU and a VM on it."""
    import tvm
    from tvm import relax

    executable = tvm.compile(imported.module, target=TARGET)
    machine = relax.VirtualMachine(executable, tvm.cpu())
    return Compiled(machine["main"], imported.inputs)


def run(compiled: Compiled, feeds: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    """Feed the arrays in the model's input order and copy every output tensor into NumPy."""
    import tvm

    tensors = [tvm.runtime.tensor(np.ascontiguousarray(feeds[name])) for name in compiled.inputs]
    return _arrays(compiled.main(*tensors))


def _arrays(output: Any) -> list[np.ndarray]:
    """A tensor, or a (nested) FFI array of tensors, as the flat list of pieces in order."""
    if hasattr(output, "numpy"):
        return [np.asarray(output.numpy())]
    return [array for element in output for array in _arrays(element)]
