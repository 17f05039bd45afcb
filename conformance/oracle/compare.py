"""Bit-exact comparison of output tensors.

Split computes nothing, so there is no tolerance: floats and complex numbers are compared by bit
pattern (a changed NaN payload or sign of zero is a wrong result), strings exactly. The first
mismatching elements are reported with their indices.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from conformance import dtypes

#: How many mismatching elements a mismatch lists (the count is always exact).
FIRST = 8


@dataclass(frozen=True)
class ElementDiff:
    index: tuple[int, ...]
    expected: str
    actual: str


@dataclass(frozen=True)
class Mismatch:
    """What differs between expected and actual outputs, for messages and reports."""

    what: Literal["count", "shape", "dtype", "values"]
    message: str
    output: int | None = None
    differing: int = 0
    first: tuple[ElementDiff, ...] = ()


def _bits_view(array: np.ndarray, name: str) -> np.ndarray:
    """The array as unsigned integers when its type is compared by bit pattern."""
    bits = dtypes.bits_dtype(name)
    return array if bits is None else np.ascontiguousarray(array).view(bits)


def _show(array: np.ndarray, name: str, index: tuple[int, ...]) -> str:
    """One element as text; floats and complex numbers with their bit patterns."""
    flat = np.ascontiguousarray(array).reshape(-1)
    position = int(np.ravel_multi_index(index, array.shape)) if index else 0
    cell = flat[position : position + 1]
    value = cell[0]
    bits = dtypes.bits_dtype(name)
    if bits is None:
        return repr(value.item() if isinstance(value, np.generic) else value)
    hexes = " ".join(f"0x{int(p):0{bits.itemsize * 2}x}" for p in cell.view(bits))
    return f"{value!r} ({hexes})"


#: Elements compared at a time when looking for any difference in a large tensor.
_CHUNK = 1 << 24


def _unequal_count(left: np.ndarray, right: np.ndarray) -> int:
    """How many elements differ, chunk by chunk over the flat arrays."""
    flat_left, flat_right = left.reshape(-1), right.reshape(-1)
    return sum(
        int(np.count_nonzero(flat_left[start : start + _CHUNK] != flat_right[start : start + _CHUNK]))
        for start in range(0, flat_left.size, _CHUNK)
    )


def _same_bytes(left: np.ndarray, right: np.ndarray) -> bool:
    """Whether two arrays of one size hold the same bytes, compared a 64-bit word at a time chunk by
    chunk when C-contiguous (faster than element by element), else element by element. Unequal
    bytes prove nothing (a bool's byte can differ where its truth does not): the caller looks."""
    if not (left.flags.c_contiguous and right.flags.c_contiguous):
        return _unequal_count(left, right) == 0
    bytes_left, bytes_right = left.reshape(-1).view(np.uint8), right.reshape(-1).view(np.uint8)
    whole = bytes_left.size // 8 * 8
    words_left, words_right = bytes_left[:whole].view(np.uint64), bytes_right[:whole].view(np.uint64)
    return all(
        np.array_equal(words_left[start : start + _CHUNK], words_right[start : start + _CHUNK])
        for start in range(0, words_left.size, _CHUNK)
    ) and np.array_equal(bytes_left[whole:], bytes_right[whole:])


def same_elements(left: np.ndarray, right: np.ndarray) -> bool:
    """Whether two arrays are the very same elements of one buffer (same address, shape, strides
    and type), so equal without reading them: a backend that returns views of its input (NumPy,
    PyTorch eager) hands back the reference's own pieces."""
    return (
        left.__array_interface__["data"][0] == right.__array_interface__["data"][0]
        and left.shape == right.shape
        and left.strides == right.strides
        and left.dtype == right.dtype
    )


def diff_values(
    expected: np.ndarray, actual: np.ndarray, name: str, output: int | None = None
) -> Mismatch | None:
    """None when two arrays of one shape and dtype hold the same bits, else where they differ."""
    if same_elements(expected, actual):
        return None
    left, right = _bits_view(expected, name), _bits_view(actual, name)
    if name != "string" and left.size > _CHUNK and _same_bytes(left, right):
        return None  # the common case on a large tensor, found without a bool array as large
    if name == "string":
        unequal = np.frompyfunc(lambda a, b: not (type(a) is type(b) and a == b), 2, 1)(left, right)
        unequal = np.asarray(unequal).astype(bool)  # a 0-d input gives a Python bool
    else:
        unequal = left != right
        if name in dtypes.COMPLEX:  # the bits view holds (real, imaginary) pairs along the last axis
            unequal = unequal.reshape(*expected.shape, 2).any(axis=-1)
        unequal = unequal.reshape(expected.shape)  # the bits view of a 0-d array has one dimension
    count = int(np.count_nonzero(unequal))
    if count == 0:
        return None
    first = tuple(
        ElementDiff(
            tuple(int(i) for i in index),
            _show(expected, name, tuple(index)),
            _show(actual, name, tuple(index)),
        )
        for index in np.argwhere(unequal)[:FIRST]
    )
    where = "" if output is None else f"output {output}: "
    return Mismatch("values", f"{where}{count} of {expected.size} elements differ", output, count, first)


def diff_outputs(
    expected: Sequence[np.ndarray], actual: Sequence[np.ndarray], *, values: bool = True
) -> Mismatch | None:
    """Output count, then each output's shape, dtype and (unless ``values`` is False) values; the
    first difference found."""
    if len(expected) != len(actual):
        return Mismatch("count", f"expected {len(expected)} outputs, got {len(actual)}")
    for number, (want, got) in enumerate(zip(expected, actual, strict=True)):
        if want.shape != got.shape:
            return Mismatch(
                "shape", f"output {number}: expected shape {list(want.shape)}, got {list(got.shape)}", number
            )
        want_name, got_name = dtypes.name_of(want.dtype), dtypes.shown_name(got.dtype)
        if want_name != got_name:
            return Mismatch("dtype", f"output {number}: expected {want_name}, got {got_name}", number)
        mismatch = diff_values(want, got, want_name, number) if values else None
        if mismatch is not None:
            return mismatch
    return None
