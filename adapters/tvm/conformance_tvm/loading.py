"""TVM's side of an item: the ONNX model imported by the Relax frontend, compiled for the CPU, run
on the Relax virtual machine, and tensors carried between NumPy and TVM without touching a value.

1. ``from_onnx(onnx.load_from_string(model))`` with every default (TVM 0.27): no ``shape_dict``
   (the model's own shapes: a dynamic model's dims ``d0``, ``d1`` ... become symbolic, so one
   compiled module takes every run of a case), no ``opset`` (each Split version goes through its
   own converter), ``keep_params_in_input=False`` (a constant ``split`` is bound into the module,
   as a user's would be). This is where the frontend checks and refuses a Split request.
2. ``tvm.compile(module, target="llvm")``, then ``relax.VirtualMachine(executable, tvm.cpu())``.
3. ``vm["main"](*tensors)``: the graph's inputs in the model's order (``data``, then a runtime
   ``split`` or Slice's runtime index inputs), each ``tvm.runtime.tensor(array)`` (a 0-d array kept 0-d).

Outputs come back as a tensor or an FFI array of them (several outputs, or a SplitToSequence's
tuple); ``.numpy()`` copies each tensor's bytes into an array of its element type (bfloat16 as
ml_dtypes.bfloat16), so every bit is kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
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

    module: Any  # tvm.IRModule: TVM's FFI objects have no type stubs
    inputs: tuple[str, ...]


@dataclass(frozen=True)
class Compiled:
    """The VM's ``main`` and the names of its inputs, in the order it takes them."""

    main: Any  # a tvm_ffi Function
    inputs: tuple[str, ...]


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

    machine = relax.VirtualMachine(tvm.compile(imported.module, target=TARGET), tvm.cpu())
    return Compiled(machine["main"], imported.inputs)


def run(compiled: Compiled, feeds: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    """Feed the arrays in the model's input order and copy every output tensor into NumPy."""
    import tvm

    # np.require, not np.ascontiguousarray: that one makes a 0-d array 1-d (Slice takes scalars)
    tensors = [tvm.runtime.tensor(np.require(feeds[name], requirements="C")) for name in compiled.inputs]
    return _arrays(compiled.main(*tensors))


def _arrays(output: Any) -> list[np.ndarray]:
    """A tensor, or a (nested) FFI array of tensors, as the flat list of pieces in order."""
    if hasattr(output, "numpy"):
        return [np.asarray(output.numpy())]
    return [array for element in output for array in _arrays(element)]
