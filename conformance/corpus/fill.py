"""Deterministic input data for a case: the same spec gives the same bytes, on every machine.

Split only moves elements, so the data must make every misplaced element visible: ``arange`` gives
each element a distinct value (as far as the dtype allows); ``special`` mixes in values backends
mangle in transit (NaN payloads, signalling NaNs, -0.0, subnormals, extreme integers, strings with
NULs or markup). Floats are built from bit patterns, never by arithmetic, so payloads are exact.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import cycle, islice
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from conformance import dtypes
from conformance.corpus.case import DataSpec
from conformance.corpus.repeated import repeated

Array = npt.NDArray[Any]

#: (exponent bits, mantissa bits) of each float type, to build special values from bit patterns.
_FORMAT: Final[dict[str, tuple[int, int]]] = {
    "float16": (5, 10),
    "bfloat16": (8, 7),
    "float32": (8, 23),
    "float64": (11, 52),
}
#: The float type of each complex type's real and imaginary parts.
_PART: Final[dict[str, str]] = {"complex64": "float32", "complex128": "float64"}

#: Suffixes that make arange strings vary in length and leave ASCII (accents, CJK, emoji, RTL).
_SUFFIXES: Final = ("", "é", "字", "🙂", "  ", "ש", "e\u0301", "ß")
#: Random strings draw from ASCII, Latin-1, CJK, emoji, Hebrew, a combining mark and a NUL.
_ALPHABET: Final = tuple("aZ09 _-<>&\"'é字🙂ש\u0301\x00ßΩ")

#: Strings that break naive pipelines: empty, long, NULs (fixed-width numpy strips a trailing one),
#: combining characters, emoji, right-to-left text and override, markup a report must escape.
HOSTILE_STRINGS: Final = (
    "",
    "long-" * 60,
    "a\x00b",
    "ab\x00",
    "e\u0301\u0327",
    "🙂👍🏽",
    "שלום עולם",
    "\u202eabc",
    "<script>alert(1)</script>",
)


def describe_fill(spec: DataSpec) -> str:
    """One line naming the fill, for reports and reproducers."""
    return f"random(seed={spec.seed})" if spec.fill == "random" else spec.fill


def make_data(spec: DataSpec) -> Array:
    """The input tensor of ``spec``: its dtype and shape, elements chosen by its fill."""
    count = math.prod(spec.shape)
    if spec.fill == "values":
        flat = values_array(spec.dtype, spec.values, count)
    elif spec.fill == "random":
        flat = _random(spec.dtype, count, spec.seed)
    elif spec.fill == "special":
        flat = _special(spec.dtype, count)
    else:  # a counter: nothing writes into it, so from REPEATED_FROM_BYTES on it may be mapped
        flat = arange(spec.dtype, count, mapped=True)
    return flat.reshape(spec.shape)


def arange(dtype: str, count: int, *, mapped: bool = False) -> Array:
    """``count`` distinct elements in C order (as long as the dtype has that many values);
    ``mapped``: a large integer counter may come read-only (for a caller that writes nothing)."""
    if dtype in dtypes.INTEGER:
        # Wrap by unsigned arithmetic, then reinterpret. One period is tiled: a uint64 index would
        # take 8 bytes per element (16 GiB for a [2^31] uint8 tensor).
        unsigned = np.dtype(f"uint{dtypes.numpy_dtype(dtype).itemsize * 8}")
        pattern = np.arange(min(count, 1 << (unsigned.itemsize * 8)), dtype=np.uint64).astype(unsigned)
        return _tiled(pattern, count, mapped=mapped).view(dtypes.numpy_dtype(dtype))
    index = np.arange(count, dtype=np.uint64)
    if dtype == "bool":
        # Thue-Morse: parity of the popcount has no period, so a shifted slice never lines up.
        return (np.bitwise_count(index) & 1).astype(np.bool_)
    if dtype in _FORMAT:
        return _float_arange(dtype, index)
    if dtype in _PART:
        real = _float_arange(_PART[dtype], index)
        imag = -(real.astype(np.float64) + 0.5)
        return _complex(dtype, real, imag.astype(real.dtype))
    if dtype == "string":
        return _strings(
            f"e{i}" + _SUFFIXES[i % len(_SUFFIXES)] * (1 + i // len(_SUFFIXES) % 3) for i in range(count)
        )
    raise ValueError(f"unknown dtype {dtype!r}")


#: From this size on a counter handed to a backend is mapped read-only from one block
#: (:mod:`conformance.corpus.repeated`); a worker keeps so large an item's input read-only anyway.
REPEATED_FROM_BYTES: Final = 1 << 30


def _tiled(pattern: Array, count: int, *, mapped: bool) -> Array:
    """``count`` elements repeating ``pattern``: mapped from :data:`REPEATED_FROM_BYTES` on where
    allowed, else written in place (np.resize's concatenated copies are several times slower)."""
    if mapped and count * pattern.itemsize >= REPEATED_FROM_BYTES:
        tensor = repeated(pattern, count)
        if tensor is not None:
            return tensor
    out = np.empty(count, dtype=pattern.dtype)
    period = len(pattern)
    if period:
        whole = count // period * period
        out[:whole].reshape(-1, period)[...] = pattern
        out[whole:] = pattern[: count - whole]
    return out


def _float_arange(dtype: str, index: npt.NDArray[np.uint64]) -> Array:
    """Element i is i itself while floats hold it exactly, then the positive finite bit patterns
    above it, then the negative finite ones (-0.0 excluded), before repeating."""
    target = dtypes.numpy_dtype(dtype)
    bits_type = dtypes.bits_dtype(dtype)
    assert bits_type is not None
    exponent_bits, mantissa_bits = _FORMAT[dtype]
    limit = 1 << (mantissa_bits + 1)  # the largest n with every integer 0..n exact
    if not index.size or int(index.max()) <= limit:  # every element exact: most cases
        return index.astype(np.float64).astype(target)
    out = np.empty(index.shape, dtype=target)
    exact = index <= limit
    out[exact] = index[exact].astype(np.float64).astype(target)
    sign = 1 << (exponent_bits + mantissa_bits)
    max_finite = (((1 << exponent_bits) - 1) << mantissa_bits) - 1
    start = int(np.array(limit, dtype=target).view(bits_type)) + 1
    positives = max_finite - start + 1
    beyond = (index[~exact] - np.uint64(limit + 1)) % np.uint64(positives + max_finite)
    bits = np.where(beyond < positives, beyond + np.uint64(start), (beyond - np.uint64(positives) + 1) | sign)
    out[~exact] = bits.astype(bits_type).view(target)
    return out


def _random(dtype: str, count: int, seed: int) -> Array:
    """Values from ``numpy.random.default_rng(seed)``, which is stable across NumPy releases."""
    rng = np.random.default_rng(seed)
    target = dtypes.numpy_dtype(dtype)
    if dtype == "bool":
        return rng.integers(0, 2, size=count).astype(np.bool_)
    if dtype in dtypes.INTEGER:
        low, high = dtypes.integer_range(dtype)
        return rng.integers(low, high, size=count, dtype=target, endpoint=True)
    if dtype in _FORMAT:
        return rng.standard_normal(count).astype(target)
    if dtype in _PART:
        part = dtypes.numpy_dtype(_PART[dtype])
        return _complex(
            dtype, rng.standard_normal(count).astype(part), rng.standard_normal(count).astype(part)
        )
    if dtype == "string":
        lengths = rng.integers(0, 13, size=count)
        picks = rng.integers(0, len(_ALPHABET), size=int(lengths.sum()))
        chars = [_ALPHABET[int(p)] for p in picks]
        ends = np.cumsum(lengths)
        return _strings("".join(chars[int(end - n) : int(end)]) for n, end in zip(lengths, ends, strict=True))
    raise ValueError(f"unknown dtype {dtype!r}")


def special_float_bits(dtype: str) -> tuple[int, ...]:
    """Bit patterns of a float type's special values, in the order the fill cycles them: quiet NaN,
    negative quiet NaN, quiet NaN with payload 1, quiet NaN with every payload bit set, signalling
    NaN (payload 1), +inf, -inf, +0.0, -0.0, smallest subnormal, largest subnormal, negative
    smallest subnormal, largest finite, negative largest finite, smallest normal."""
    exponent_bits, mantissa_bits = _FORMAT[dtype]
    sign = 1 << (exponent_bits + mantissa_bits)
    infinity = ((1 << exponent_bits) - 1) << mantissa_bits
    quiet = 1 << (mantissa_bits - 1)
    mantissa = (1 << mantissa_bits) - 1
    return (
        infinity | quiet,
        sign | infinity | quiet,
        infinity | quiet | 1,
        infinity | mantissa,
        infinity | 1,
        infinity,
        sign | infinity,
        0,
        sign,
        1,
        mantissa,
        sign | 1,
        infinity - 1,
        sign | (infinity - 1),
        1 << mantissa_bits,
    )


def _special(dtype: str, count: int) -> Array:
    """Special values at every third position (i % 3 == 0), the arange values elsewhere."""
    out = arange(dtype, count)
    where = slice(0, count, 3)
    picks = len(range(count)[where])
    if dtype in _FORMAT:
        out[where] = _cycle_bits(dtype, special_float_bits(dtype), picks)
    elif dtype in _PART:
        part = _PART[dtype]
        specials = special_float_bits(part)
        shifted = specials[len(specials) // 2 :] + specials[: len(specials) // 2]
        out[where] = _complex(dtype, _cycle_bits(part, specials, picks), _cycle_bits(part, shifted, picks))
    elif dtype in dtypes.INTEGER:
        low, high = dtypes.integer_range(dtype)
        values = (low, high, 0, -1, 1) if dtype in dtypes.SIGNED else (0, high, 1, high - 1, (high + 1) // 2)
        out[where] = np.array(list(islice(cycle(values), picks)), dtype=out.dtype)
    elif dtype == "bool":
        out[:] = np.arange(count) % 2 == 0
    elif dtype == "string":
        out[where] = _strings(islice(cycle(HOSTILE_STRINGS), picks))
    return out


def _cycle_bits(dtype: str, patterns: Sequence[int], count: int) -> Array:
    bits_type = dtypes.bits_dtype(dtype)
    assert bits_type is not None
    bits = np.array(list(islice(cycle(patterns), count)), dtype=bits_type)
    return bits.view(dtypes.numpy_dtype(dtype))


def values_array(dtype: str, values: Any, count: int) -> Array:
    """The listed values as a flat array of ``dtype``; ValueError when they do not fit it."""
    leaves, problems = flatten_values(dtype, values, count)
    if problems:
        raise ValueError(problems[0][1])
    items = [leaf for _, leaf in leaves]
    if dtype == "string":
        return _strings(items)
    if dtype in _PART:
        pairs = [item if isinstance(item, list) else [item, 0.0] for item in items]
        part = dtypes.numpy_dtype(_PART[dtype])
        real = np.array([float(p[0]) for p in pairs], dtype=np.float64).astype(part)
        imag = np.array([float(p[1]) for p in pairs], dtype=np.float64).astype(part)
        return _complex(dtype, real, imag)
    if dtype in _FORMAT:
        # Through float64, which holds every YAML float exactly, NaN and -0.0 included.
        return np.array([float(item) for item in items], dtype=np.float64).astype(dtypes.numpy_dtype(dtype))
    return np.array(items, dtype=dtypes.numpy_dtype(dtype))


Problems = list[tuple[tuple[int, ...], str]]


def flatten_values(dtype: str, values: Any, count: int) -> tuple[list[tuple[tuple[int, ...], Any]], Problems]:
    """The elements of a nested ``values`` list with their index paths, and what is wrong with them
    (by element, ``()`` for the whole list). Only their number must fit the shape: they are reshaped.
    A complex element is a number or an ``[re, im]`` pair, read as pairs when only pairs make ``count``.
    """
    leaves = _leaves(values, ())
    if dtype in _PART and len(leaves) != count:
        innermost = _innermost(values, ())
        if (
            len(innermost) == count
            and all(len(pair) == 2 for _, pair in innermost)
            and sum(len(pair) for _, pair in innermost) == len(leaves)
        ):
            leaves = list(innermost)
    problems: Problems = [(path, message) for path, leaf in leaves if (message := _leaf_problem(dtype, leaf))]
    if len(leaves) != count:
        problems.append(((), f"{len(leaves)} value(s) given, the shape holds {count}"))
    return leaves, problems


def _leaves(node: Any, path: tuple[int, ...]) -> list[tuple[tuple[int, ...], Any]]:
    if not isinstance(node, list):
        return [(path, node)]
    return [leaf for index, item in enumerate(node) for leaf in _leaves(item, (*path, index))]


def _innermost(node: Any, path: tuple[int, ...]) -> list[tuple[tuple[int, ...], list[Any]]]:
    """The lists that hold no list, with their paths."""
    if not isinstance(node, list):
        return []
    if not any(isinstance(item, list) for item in node):
        return [(path, node)]
    return [found for index, item in enumerate(node) for found in _innermost(item, (*path, index))]


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _leaf_problem(dtype: str, leaf: Any) -> str | None:
    """Why a value cannot be an element of ``dtype``, or None."""
    if dtype == "string":
        return None if isinstance(leaf, str) else f"{leaf!r} is not a string (quote it)"
    if dtype == "bool":
        return None if isinstance(leaf, bool) else f"{leaf!r} is not a boolean (true or false)"
    if dtype in dtypes.INTEGER:
        if not isinstance(leaf, int) or isinstance(leaf, bool):
            return f"{leaf!r} is not an integer"
        low, high = dtypes.integer_range(dtype)
        return None if low <= leaf <= high else f"{leaf} does not fit {dtype} ({low}..{high})"
    numbers = leaf if isinstance(leaf, list) else [leaf]
    for number in numbers:
        if not _is_number(number):
            return f"{number!r} is not a number"
        if isinstance(number, int) and not -(2**63) <= number < 2**63:
            return f"{number} does not fit int64; write it as a float"
    return None


def _complex(dtype: str, real: Array, imag: Array) -> Array:
    """Interleave parts without arithmetic, which could alter a NaN payload."""
    both = np.stack([real, imag], axis=-1)
    return np.ascontiguousarray(both).view(dtypes.numpy_dtype(dtype)).reshape(real.shape)


def _strings(items: Any) -> Array:
    """An object array of ``str``: fixed-width NumPy strings would drop a trailing NUL."""
    listed = list(items)
    out = np.empty(len(listed), dtype=object)
    out[:] = listed
    return out


__all__ = [
    "HOSTILE_STRINGS",
    "arange",
    "describe_fill",
    "flatten_values",
    "make_data",
    "special_float_bits",
    "values_array",
]
