"""MNN's side of an item: the ONNX model through MNN's converter, the converted model loaded and
run by MNN's Express module API, and arrays carried in the element types MNN has.

The converter is the one MNN's wheel ships (MNN 3.6, https://mnn-docs.readthedocs.io/ "Model
conversion"): ``mnnconvert -f ONNX --modelFile model.onnx --MNNModel model.mnn --bizCode ...``.
The route calls the native function that console script calls, ``_tools.mnnconvert(argv)``, in a
child Python (:mod:`conformance.models.converter_process`), and not the script itself: the script
then imports ``MNN.tools.utils.log``, which runs ``pip install aliyun-log-python-sdk`` when that
package is missing and sends a usage record to Alibaba's log service. The function returns True
even when it wrote nothing (a missing input file included), so a conversion succeeded when
``model.mnn`` exists; what it printed is quoted otherwise.

The run (MNN's Python API, "pymnn" in the docs): ``MNN.nn.load_module_from_file(path, inputs,
outputs)`` with its defaults (CPU backend, normal precision, one thread), then
``module.forward([...])`` with one ``MNN.expr`` variable per graph input and ``Var.read()`` of
each output.

Element types (checked on MNN 3.6.1). MNN's tensors hold float32, int32, uint8 and int8 (its
Express API's ``dtype``: float, double, int, int64, uint8, int8, of which double and int64 are held
as float32 and int32). Its ONNX converter maps every ONNX element type onto those
(tools/converter/source/onnx/onnxOpConverter.cpp, ``convertDataType``), without a word: float16,
bfloat16 and float64 models take and return float32, 16-, 32- and 64-bit integer and bool models
int32. The route feeds those models the case's data in the type the converted model declares (what
an MNN user must do: the model takes nothing else) and returns what MNN returns, so the narrowed
type is judged against the spec's (a ``dtype`` mismatch, a known issue by meaning). Slice's index
inputs fed at run time are fed the same way: an int64 ``starts`` or ``ends`` as int32, a value past
int32 wrapped, which is what MNN's own ``Var.write`` does with a Python int past int32 (it refuses an
int64 array). Unsupported:
int8 (the converted model takes int8, but the Python API cannot write it: ``Var.write`` and
``expr.const`` refuse an int8 array, "does not support this dtype"), complex and string (the
converter turns them into float32 inputs, which no value of theirs can be written into).
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from conformance.models import converter_process
from conformance.plugin import AdapterError, BackendRefusal, backend_calls

#: The code the child Python runs: the converter's native entry, the console script's first step.
CONVERTER_CODE: Final = "import sys, _tools; sys.exit(0 if _tools.mnnconvert(sys.argv) else 1)"
#: The converter's arguments after the program name (the files are in the scratch folder).
CONVERTER_ARGS: Final = (
    "-f",
    "ONNX",
    "--modelFile",
    "model.onnx",
    "--MNNModel",
    "model.mnn",
    "--bizCode",
    "conformance",
)
#: The load as recorded in every result's options.
LOAD_CALL: Final = (
    "MNN.nn.load_module_from_file(path, inputs, outputs): CPU, PrecisionMode.Normal, thread_num=1"
)

#: The NumPy type and the MNN Express type a case's element type is fed as, for the types the
#: converted model can take (see the module docstring).
CARRIERS: Final[Mapping[str, tuple[str, str]]] = {
    **dict.fromkeys(("float32", "float16", "bfloat16", "float64"), ("float32", "float")),
    **dict.fromkeys(("int16", "uint16", "int32", "uint32", "int64", "uint64", "bool"), ("int32", "int")),
    "uint8": ("uint8", "uint8"),
}
#: Why the other element types cannot be fed, by type.
NOT_FED: Final[Mapping[str, str]] = {
    "int8": (
        "MNN's Python API cannot write int8 data: Var.write and expr.const refuse an int8 array ('does "
        "not support this dtype'; pymnn's numpy conversion has no int8), though the converted model "
        "takes int8"
    ),
    **dict.fromkeys(
        ("complex64", "complex128", "string"),
        "MNN has no complex or string tensor type: its ONNX converter turns such an input into a float32 "
        "one (tools/converter/source/onnx/onnxOpConverter.cpp, convertDataType), which no value of the "
        "case can be written into",
    ),
}


@dataclass(frozen=True)
class Converted:
    """The converter's model and the graph's input and output names (the load names both)."""

    model: bytes
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]


@dataclass(frozen=True)
class Loaded:
    """A loaded MNN module and the graph's input names in the order ``forward`` takes them."""

    module: Any  # MNN.nn._Module: MNN ships no type information
    inputs: tuple[str, ...]


def convert(model: bytes) -> bytes:
    """The MNN model the converter writes for ``model`` (ONNX bytes); its refusal quotes its output."""
    with tempfile.TemporaryDirectory(prefix="conformance-mnn-") as directory:
        folder = Path(directory)
        (folder / "model.onnx").write_bytes(model)
        try:
            done = converter_process.run([sys.executable, "-c", CONVERTER_CODE, *CONVERTER_ARGS], folder)
        except converter_process.ConverterHung as hung:
            raise AdapterError(str(hung)) from hung
        written = folder / "model.mnn"
        if done.returncode != 0 or not written.is_file() or written.stat().st_size == 0:
            said = converter_process.tail(done.stdout)
            raise BackendRefusal(f"mnnconvert wrote no model (exit {done.returncode}): {said}")
        return written.read_bytes()


def load(converted: Converted) -> Loaded:
    """The module MNN loads from the converted file, with the graph's input and output names."""
    import MNN.nn

    with tempfile.TemporaryDirectory(prefix="conformance-mnn-") as directory:
        path = Path(directory) / "model.mnn"
        path.write_bytes(converted.model)
        with backend_calls():
            module = MNN.nn.load_module_from_file(str(path), list(converted.inputs), list(converted.outputs))
    if module is None:
        raise BackendRefusal("MNN.nn.load_module_from_file returned no module")
    return Loaded(module, converted.inputs)


def carried(array: np.ndarray, element: str) -> tuple[np.ndarray, str]:
    """``array`` in the NumPy type MNN is handed for a model of ``element`` type, and MNN's name for
    it; ``KeyError`` for the types :data:`NOT_FED` lists (the adapter refuses them first)."""
    numpy_name, mnn_name = CARRIERS[element]
    return np.array(array, dtype=numpy_name, copy=True, order="C"), mnn_name


def run(loaded: Loaded, feeds: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    """One Express variable per input, ``forward``, every output read into a NumPy array."""
    import MNN.expr as expr

    variables = []
    with backend_calls():
        for name in loaded.inputs:
            array, mnn_name = carried(feeds[name], suite_name(feeds[name]))
            variable = expr.placeholder(list(array.shape), expr.NCHW, getattr(expr, mnn_name))
            variable.write(array)
            variables.append(variable)
        outputs = loaded.module.forward(variables)
        return [np.array(output.read(), copy=True) for output in _as_list(outputs)]


def suite_name(array: np.ndarray) -> str:
    """The suite's name of an array's element type: NumPy's (bfloat16 is ml_dtypes', named so), or
    ``string`` for the object arrays of str the suite holds strings in."""
    return "string" if array.dtype.kind in "OUS" else str(array.dtype)


def _as_list(outputs: Any) -> list[Any]:
    """``forward`` returns a list of variables, or one variable for a one-output module."""
    if outputs is None:
        return []
    return list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
