"""Element types: the suite's names for them and how NumPy holds each one, in one place.

bfloat16 comes from ml_dtypes (NumPy has none); strings are object arrays of ``str``, which ONNX
Runtime and OpenVINO accept and which keep trailing NUL characters (fixed-width unicode strips them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import ml_dtypes
import numpy as np

BOOL: Final = ("bool",)
SIGNED: Final = ("int8", "int16", "int32", "int64")
UNSIGNED: Final = ("uint8", "uint16", "uint32", "uint64")
INTEGER: Final = SIGNED + UNSIGNED
FLOATING: Final = ("float16", "bfloat16", "float32", "float64")
COMPLEX: Final = ("complex64", "complex128")
STRING: Final = ("string",)

#: Every dtype name a case may use, in the order reports list them.
ALL: Final = BOOL + INTEGER + FLOATING + COMPLEX + STRING

_OWN: Final = {"bfloat16": np.dtype(ml_dtypes.bfloat16), "string": np.dtype(object)}
#: How NumPy holds each type: NumPy's dtype of that name, but for bfloat16 and strings.
_NUMPY: Final[dict[str, np.dtype]] = {name: _OWN[name] if name in _OWN else np.dtype(name) for name in ALL}

#: Unsigned integer type of the same width, used to compare floats by bit pattern.
_BITS: Final[dict[str, np.dtype]] = {
    "float16": np.dtype(np.uint16),
    "bfloat16": np.dtype(np.uint16),
    "float32": np.dtype(np.uint32),
    "float64": np.dtype(np.uint64),
    "complex64": np.dtype(np.uint32),
    "complex128": np.dtype(np.uint64),
}


def numpy_dtype(name: str) -> np.dtype:
    """The NumPy dtype that holds elements of the named type."""
    try:
        return _NUMPY[name]
    except KeyError:
        raise ValueError(f"unknown dtype {name!r}; known: {', '.join(ALL)}") from None


def name_of(dtype: np.dtype) -> str:
    """The suite's name for a NumPy dtype (the inverse of :func:`numpy_dtype`)."""
    for name, candidate in _NUMPY.items():
        if candidate == dtype:
            return name
    if dtype.kind in "US" or dtype == np.dtypes.StringDType():
        return "string"
    raise ValueError(f"dtype {dtype} has no name in the suite")


def shown_name(dtype: np.dtype) -> str:
    """The suite's name where it has one, else NumPy's: for outputs of types the suite does not know
    (a backend returning datetime64 is a dtype mismatch to report, not a failure of the suite)."""
    try:
        return name_of(dtype)
    except ValueError:
        return str(dtype)


def bits_dtype(name: str) -> np.dtype | None:
    """Unsigned type of the same width for float and complex types, else None: Split only moves
    data, so floats are judged by bit pattern (a NaN payload or a zero's sign changed is wrong)."""
    return _BITS.get(name)


def integer_range(name: str) -> tuple[int, int]:
    """Smallest and largest value of an integer type."""
    info = np.iinfo(_NUMPY[name])
    return int(info.min), int(info.max)


def suite_strings(raw: Any, shape: Sequence[int] | None = None) -> np.ndarray:
    """Strings as the suite holds them (an object array of ``str``) from what a backend returns:
    UTF-8 ``bytes`` (TensorFlow, LiteRT, OpenVINO's bytes view) or ``str``. Bytes that are not
    UTF-8 are kept as surrogate escapes, so a corrupted string shows as a value mismatch instead of
    failing the conversion. ``shape`` overrides the array's own (a 0-d tensor given as bare bytes)."""
    array = np.asarray(raw, dtype=object) if isinstance(raw, bytes | str) else np.asarray(raw)
    flat = [
        bytes(item).decode("utf-8", "surrogateescape") if isinstance(item, bytes) else str(item)
        for item in array.reshape(-1)
    ]
    out = np.empty(len(flat), dtype=object)
    out[:] = flat
    return out.reshape(tuple(array.shape) if shape is None else tuple(shape))
