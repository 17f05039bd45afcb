"""Moving tensors between the suite's NumPy arrays and ONNX Runtime, bit for bit, and what every
route of the adapter shares.

``InferenceSession.run`` takes and returns arrays of the standard NumPy dtypes and object arrays of
``str``, exactly the suite's carriers, except bfloat16: ORT does not recognise
``ml_dtypes.bfloat16`` ("Numpy_type 256 can't be converted to MLDataType"), and a bfloat16 output
has "no corresponding Numpy type" in ``OrtValue.numpy()``. So bfloat16 travels as its 16-bit
patterns: in through ``OrtValue.ortvalue_from_numpy_with_onnx_type`` on a uint16 view, out by
copying the OrtValue's buffer and viewing it as ``ml_dtypes.bfloat16``; NaN payloads and signed
zeros survive. A sequence output (SplitToSequence's) comes back as a list of arrays: its tensors
take the output's place, in order.
"""

from __future__ import annotations

import ctypes
import importlib.util
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import ml_dtypes
import numpy as np

from conformance.plugin import Target, Task, Unsupported

if TYPE_CHECKING:
    import onnxruntime  # type: ignore[import-untyped]  # ORT ships no type information

_BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
_BFLOAT16_TYPE = "tensor(bfloat16)"


def prepare(target: Target) -> None:
    """Import onnxruntime and the suite's model builders before the first item is timed: every
    route ends in an InferenceSession."""
    import onnxruntime  # noqa: F401

    from conformance.models import onnx_graphs  # noqa: F401


def missing(route: str, packages: Sequence[str], install: str) -> Unsupported | None:
    """The refusal of a route that needs ``packages`` where one is not found (found, not imported:
    some take seconds), with how to ``install`` them."""
    absent = [name for name in packages if importlib.util.find_spec(name) is None]
    return Unsupported(f"route {route} needs {' and '.join(absent)}: {install}") if absent else None


def run_onnx(session: onnxruntime.InferenceSession, task: Task) -> list[np.ndarray]:
    """The suite's model run on ``task``'s data (and a runtime ``split``), by the suite's input names."""
    from conformance.models import onnx_graphs

    return run(session, onnx_graphs.feeds(task))


def run(session: onnxruntime.InferenceSession, feeds: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    """Run ``session`` on ``feeds`` and return every output in the suite's dtypes: through the plain
    ``session.run`` ORT's users take, or OrtValues where bfloat16 is involved."""
    if not any(array.dtype == _BFLOAT16 for array in feeds.values()):
        outputs: list[Any] = session.run(None, dict(feeds))
        # a sequence output is a list: its tensors take its place
        return [
            np.asarray(tensor)
            for output in outputs
            for tensor in (output if isinstance(output, list) else [output])
        ]
    import onnxruntime
    from onnx import TensorProto

    held: list[np.ndarray] = []  # the OrtValues may borrow these buffers: keep them alive
    values: dict[str, onnxruntime.OrtValue] = {}
    for name, array in feeds.items():
        if array.dtype == _BFLOAT16:
            bits = np.ascontiguousarray(array).view(np.uint16)
            held.append(bits)
            values[name] = onnxruntime.OrtValue.ortvalue_from_numpy_with_onnx_type(bits, TensorProto.BFLOAT16)
        else:
            contiguous = np.ascontiguousarray(array)
            held.append(contiguous)
            values[name] = onnxruntime.OrtValue.ortvalue_from_numpy(contiguous)
    names = [output.name for output in session.get_outputs()]
    results = session.run_with_ort_values(names, values)
    return [_to_numpy(value) for value in results]


def _to_numpy(value: onnxruntime.OrtValue) -> np.ndarray:
    """An output OrtValue as a NumPy array, bfloat16 copied by bit pattern."""
    if value.data_type() != _BFLOAT16_TYPE:
        return np.asarray(value.numpy())
    shape = tuple(int(dim) for dim in value.shape())
    # 2 bytes per element; OrtValue.tensor_size_in_bytes() is missing from ORT 1.22 and older
    size = 2 * math.prod(shape)
    if size == 0:
        return np.empty(shape, dtype=_BFLOAT16)
    raw = ctypes.string_at(value.data_ptr(), size)
    bits: np.ndarray = np.frombuffer(raw, dtype=np.uint16).copy()
    values: np.ndarray = bits.view(_BFLOAT16).reshape(shape)
    return values
