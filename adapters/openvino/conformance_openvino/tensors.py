"""Moving arrays in and out of OpenVINO tensors without changing a single bit.

The suite compares outputs bit for bit, so the crossing into ``ov.Tensor`` and back must be
exact for every element type, and two types need care the Python bindings do not give:

- bfloat16: NumPy has none; the bindings expose a bf16 tensor's buffer as a float16 view (and
  handing them an ml_dtypes array converts values instead of copying bits). The bits are written
  and read through a uint16 view of that buffer.
- string: the bindings refuse object arrays. Strings are handed over as UTF-8 ``bytes`` through
  ``Tensor.bytes_data`` and read back the same way, then decoded. Both directions go through a
  fixed-width NumPy ``bytes`` array inside the bindings, which cannot hold a trailing NUL: the
  adapter declares such data unsupported rather than let the API alter it (embedded NULs survive).

The element type of an output is OpenVINO's own: nothing is cast to what the case expects, so a
frontend that changes a type shows as a wrong dtype rather than being hidden here.
"""

from __future__ import annotations

from typing import Final

import ml_dtypes
import numpy as np
import openvino as ov  # type: ignore[import-untyped]  # ships .pyi stubs but no py.typed

from conformance import dtypes
from conformance_openvino.reproducer import ELEMENT_NAMES

_BFLOAT16: Final = np.dtype(ml_dtypes.bfloat16)


def element_type(name: str) -> ov.Type:
    """OpenVINO's element type for a suite dtype name (KeyError for complex types: OpenVINO has none)."""
    return getattr(ov.Type, ELEMENT_NAMES[name])


def to_tensor(array: np.ndarray) -> ov.Tensor:
    """A tensor holding ``array``'s elements, of the element type that matches its dtype.

    The array's own dtype decides (bfloat16 and object arrays of strings included); if it differs
    from the type of the port it feeds, that mismatch is OpenVINO's to report at inference.
    """
    shape = list(array.shape)
    if array.dtype == _BFLOAT16:
        tensor = ov.Tensor(ov.Type.bf16, shape)
        tensor.data.view(np.uint16)[...] = array.view(np.uint16)
        return tensor
    if array.dtype == object:
        tensor = ov.Tensor(ov.Type.string, shape)
        if array.size:  # the bindings refuse an empty list even for an empty tensor
            tensor.bytes_data = [str(item).encode("utf-8", "surrogatepass") for item in array.flat]
        return tensor
    # Allocated by shape and filled, rather than ov.Tensor(array): the bindings give a 0-d array
    # the shape [1], which a scalar axis Parameter then refuses.
    tensor = ov.Tensor(ov.Type(array.dtype), ov.Shape(shape))
    if array.size:
        np.copyto(tensor.data, array, casting="no")
    return tensor


def from_tensor(tensor: ov.Tensor) -> np.ndarray:
    """A NumPy copy of ``tensor`` in the suite's representation of its element type."""
    kind = tensor.get_element_type()
    if kind == ov.Type.bf16:
        return np.array(tensor.data, copy=True).view(np.uint16).view(_BFLOAT16)
    if kind == ov.Type.string:
        return dtypes.suite_strings(tensor.bytes_data, tuple(tensor.get_shape()))
    return np.array(tensor.data, copy=True)
