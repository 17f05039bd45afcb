"""Moving tensors between the suite's NumPy arrays and ONNX Runtime, bit for bit.

ONNX Runtime's Python API speaks plain NumPy: ``InferenceSession.run`` takes and returns arrays
of the standard NumPy dtypes and object arrays of ``str`` for strings, which are exactly the
suite's carriers. bfloat16 is the exception: NumPy has no bfloat16, ORT does not recognise
``ml_dtypes.bfloat16`` ("Numpy_type 256 can't be converted to MLDataType"), and an ORT bfloat16
output has "no corresponding Numpy type" in ``OrtValue.numpy()``. So bfloat16 travels as its
16-bit patterns: in through ``OrtValue.ortvalue_from_numpy_with_onnx_type`` on a uint16 view,
out by copying the OrtValue's buffer and viewing it as ``ml_dtypes.bfloat16``. Nothing is
converted by value, so NaN payloads and signed zeros survive.

A sequence output (SplitToSequence's) comes back from ``session.run`` as a list of arrays: its
tensors are the pieces, so they take the output's place in the list returned, in order.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import ml_dtypes
import numpy as np

from conformance.plugin import Target, Task

if TYPE_CHECKING:
    import onnxruntime  # type: ignore[import-untyped]  # ORT ships no type information

_BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
_BFLOAT16_TYPE = "tensor(bfloat16)"


def prepare(target: Target) -> None:
    """Import onnxruntime and the suite's model builders before the first item is timed: every
    route ends in an InferenceSession."""
    import onnxruntime  # noqa: F401

    from conformance.models import onnx_graphs  # noqa: F401


def needs_ort_values(feeds: Mapping[str, np.ndarray]) -> bool:
    """Whether any feed is bfloat16 and so must be handed over as an OrtValue."""
    return any(array.dtype == _BFLOAT16 for array in feeds.values())


def run_onnx(session: onnxruntime.InferenceSession, task: Task) -> list[np.ndarray]:
    """The suite's model run on ``task``: its data (and a runtime ``split``) fed by the suite's
    input names, every output in the suite's dtypes (route ``default``'s run, the optimizers')."""
    from conformance.models import onnx_graphs

    return run(session, onnx_graphs.feeds(task))


def run(session: onnxruntime.InferenceSession, feeds: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    """Run ``session`` on ``feeds`` and return every output in the suite's dtypes.

    The plain ``session.run`` path is taken whenever it can carry the data, since it is the one
    ORT's users take; the OrtValue path only when bfloat16 is involved.
    """
    if not needs_ort_values(feeds):
        outputs: list[Any] = session.run(None, dict(feeds))
        return [np.asarray(tensor) for output in outputs for tensor in _tensors(output)]
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


def _tensors(output: Any) -> list[Any]:
    """One output of ``session.run`` as the tensors it holds: a sequence's elements, or itself."""
    return list(output) if isinstance(output, list) else [output]


def _to_numpy(value: onnxruntime.OrtValue) -> np.ndarray:
    """An output OrtValue as a NumPy array, bfloat16 copied by bit pattern."""
    if value.data_type() != _BFLOAT16_TYPE:
        return np.asarray(value.numpy())
    shape = tuple(int(dim) for dim in value.shape())
    # 2 bytes per element of a dense tensor; OrtValue.tensor_size_in_bytes() says the same but is
    # missing from ORT 1.22 and older, which the adapter supports (and the compat matrix runs)
    size = 2 * math.prod(shape)
    if size == 0:
        return np.empty(shape, dtype=_BFLOAT16)
    raw = ctypes.string_at(value.data_ptr(), size)
    bits: np.ndarray = np.frombuffer(raw, dtype=np.uint16).copy()
    values: np.ndarray = bits.view(_BFLOAT16).reshape(shape)
    return values
