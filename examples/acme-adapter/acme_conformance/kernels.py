"""ACME's split kernels: the backend this example adapter certifies.

They stand in for a vendor's own library (a device runtime, a compiler, a framework port) and
give torch.split / tensor_split / chunk and numpy.split / array_split the semantics their API
documentation states, written from scratch with plain slicing. A request the documentation
rejects raises ValueError, as a real backend raises its own error type; the suite judges the
refusal, not its wording.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

#: The backend's version, which certificates record (a real backend reports its own build).
__version__ = "1.0.0"

Pieces = list[np.ndarray]


def torch_split(data: np.ndarray, size_or_sizes: int | Sequence[int], dim: int = 0) -> Pieces:
    """Pieces of ``size`` elements with a smaller last one, or exactly the given sizes."""
    axis = _axis(data, dim)
    length = data.shape[axis]
    if not isinstance(size_or_sizes, int):
        return _cut(data, axis, _exact(size_or_sizes, length))
    size = size_or_sizes
    if size < 0 or (size == 0 and length != 0):
        raise ValueError(f"split size must be positive, got {size}")
    full, rest = divmod(length, size) if size else (0, 0)
    return _cut(data, axis, [size] * full + ([rest] if rest else []))


def torch_chunk(data: np.ndarray, chunks: int, dim: int = 0) -> Pieces:
    """Pieces of ceil(n / chunks) elements: possibly fewer than ``chunks`` of them."""
    axis = _axis(data, dim)
    length = data.shape[axis]
    if chunks < 1:
        raise ValueError(f"chunks must be at least 1, got {chunks}")
    if length == 0:
        return _cut(data, axis, [0] * chunks)
    piece = -(-length // chunks)
    return torch_split(data, piece, axis)


def torch_tensor_split(data: np.ndarray, sections_or_indices: int | Sequence[int], dim: int = 0) -> Pieces:
    return _sections_or_indices(data, sections_or_indices, dim, must_divide=False)


def numpy_split(data: np.ndarray, sections_or_indices: int | Sequence[int], axis: int = 0) -> Pieces:
    return _sections_or_indices(data, sections_or_indices, axis, must_divide=True)


def numpy_array_split(data: np.ndarray, sections_or_indices: int | Sequence[int], axis: int = 0) -> Pieces:
    return _sections_or_indices(data, sections_or_indices, axis, must_divide=False)


def _sections_or_indices(
    data: np.ndarray, request: int | Sequence[int], dim: int, *, must_divide: bool
) -> Pieces:
    """An int: that many pieces, the first n % sections one longer; a list: split points."""
    axis = _axis(data, dim)
    if not isinstance(request, int):
        bounds: list[int | None] = [None, *request, None]  # Python slices: negative and past-the-end work
        return [_take(data, axis, start, stop) for start, stop in itertools.pairwise(bounds)]
    length, sections = data.shape[axis], request
    if sections < 1:
        raise ValueError(f"the number of sections must be at least 1, got {sections}")
    if must_divide and length % sections:
        raise ValueError(f"{sections} sections do not divide an axis of {length}")
    base, extra = divmod(length, sections)
    return _cut(data, axis, [base + 1] * extra + [base] * (sections - extra))


def _axis(data: np.ndarray, dim: int) -> int:
    if not -data.ndim <= dim < data.ndim:
        raise ValueError(f"dimension {dim} is out of range for a tensor of rank {data.ndim}")
    return dim % data.ndim


def _exact(sizes: Sequence[int], length: int) -> list[int]:
    if any(size < 0 for size in sizes) or sum(sizes) != length:
        raise ValueError(f"split sizes {list(sizes)} must be non-negative and sum to {length}")
    return list(sizes)


def _cut(data: np.ndarray, axis: int, lengths: Sequence[int]) -> Pieces:
    starts = np.cumsum([0, *lengths]).tolist()
    return [_take(data, axis, start, stop) for start, stop in itertools.pairwise(starts)]


def _take(data: np.ndarray, axis: int, start: int | None, stop: int | None) -> np.ndarray:
    index: list[slice] = [slice(None)] * data.ndim
    index[axis] = slice(start, stop)
    return data[tuple(index)]
