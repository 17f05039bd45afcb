"""Deterministic data fills: the same spec gives the same bytes, and a misplaced element shows.

Expected special values are written out as literal bit patterns here, not taken from the module
under test, so a wrong pattern in the fill cannot agree with itself.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance import dtypes
from conformance.corpus.case import DataSpec, FillKind
from conformance.corpus.fill import HOSTILE_STRINGS, describe_fill, make_data

FILLS: tuple[FillKind, ...] = ("arange", "random", "special")


def as_bytes(array: np.ndarray[Any, Any]) -> bytes:
    """The data's exact content: bytes for numeric types, UTF-8 with separators for strings."""
    if array.dtype == object:
        return "\x1f".join(f"{len(item)}:{item}" for item in array.ravel()).encode("utf-8")
    return array.tobytes()


def patterns(array: np.ndarray[Any, Any], name: str) -> list[int]:
    """Bit patterns of every float part of a float or complex array."""
    bits = dtypes.bits_dtype(name)
    assert bits is not None
    return [int(x) for x in np.ascontiguousarray(array).ravel().view(bits)]


@pytest.mark.parametrize("name", dtypes.ALL)
@pytest.mark.parametrize("fill", FILLS)
def test_same_spec_gives_the_same_bytes(name: str, fill: FillKind) -> None:
    spec = DataSpec((3, 4, 5), name, fill, seed=7)
    first, second = make_data(spec), make_data(spec)
    assert first.dtype == dtypes.numpy_dtype(name)
    assert first.shape == (3, 4, 5)
    assert as_bytes(first) == as_bytes(second)


@pytest.mark.parametrize("name", dtypes.ALL)
@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3), (1,)])
def test_rank_zero_and_empty_shapes(name: str, shape: tuple[int, ...]) -> None:
    for fill in FILLS:
        data = make_data(DataSpec(shape, name, fill))
        assert data.shape == shape and data.dtype == dtypes.numpy_dtype(name)


# --- arange ---------------------------------------------------------------------------------------

DISTINCT_SIZES = {
    "int8": 256,
    "uint8": 256,
    "int16": 5000,
    "uint16": 5000,
    "int32": 5000,
    "uint32": 5000,
    "int64": 5000,
    "uint64": 5000,
    "float16": 30000,  # far past 2048, the last exact integer
    "bfloat16": 20000,  # far past 256
    "float32": 5000,
    "float64": 5000,
    "complex64": 5000,
    "complex128": 5000,
    "string": 5000,
}


@pytest.mark.parametrize("name", list(DISTINCT_SIZES))
def test_arange_elements_are_all_distinct(name: str) -> None:
    count = DISTINCT_SIZES[name]
    data = make_data(DataSpec((count,), name))
    if name == "string":
        keys: list[object] = list(data)
    elif name in dtypes.COMPLEX:
        parts = patterns(data, name)
        keys = list(zip(parts[0::2], parts[1::2], strict=True))
    elif name in dtypes.FLOATING:
        keys = list(patterns(data, name))
        finite = np.isfinite(data.astype(np.float64))
        assert finite.all(), "arange must stay finite"
    else:
        keys = [int(x) for x in data]
    assert len(set(keys)) == count


@pytest.mark.parametrize(("name", "limit"), [("float16", 2048), ("bfloat16", 256), ("float32", 1 << 24)])
def test_arange_floats_are_the_index_while_exact(name: str, limit: int) -> None:
    count = min(limit + 1, 100_000)
    data = make_data(DataSpec((count,), name)).astype(np.float64)
    assert np.array_equal(data, np.arange(count, dtype=np.float64))
    if count == limit + 1:
        beyond = make_data(DataSpec((limit + 3,), name)).astype(np.float64)[limit:]
        assert beyond[0] == limit and beyond[1] > limit and beyond[2] > beyond[1]


def test_arange_ints_wrap_by_bit_pattern() -> None:
    data = make_data(DataSpec((258,), "int8"))
    assert data[127] == 127 and data[128] == -128 and data[255] == -1 and data[256] == 0
    assert make_data(DataSpec((70000,), "uint16"))[65536] == 0


def test_arange_complex_imaginary_part_differs_from_the_real_one() -> None:
    data = make_data(DataSpec((4,), "complex128"))
    assert data.tolist() == [complex(0, -0.5), complex(1, -1.5), complex(2, -2.5), complex(3, -3.5)]


def test_arange_bool_is_thue_morse_without_a_short_period() -> None:
    data = make_data(DataSpec((256,), "bool"))
    assert data[:8].tolist() == [False, True, True, False, True, False, False, True]
    for shift in range(1, 64):
        assert not np.array_equal(data[shift:], data[:-shift]), f"period {shift}"


def test_arange_strings_vary_in_length_and_leave_ascii() -> None:
    data = list(make_data(DataSpec((64,), "string")))
    assert all(isinstance(item, str) for item in data)
    assert len({len(item) for item in data}) >= 4
    assert any(not item.isascii() for item in data)
    assert any(len(item.encode("utf-8")) == 4 + len(f"e{i}") for i, item in enumerate(data))  # an emoji


@settings(max_examples=60, deadline=None)
@given(
    shape=st.lists(st.integers(0, 6), min_size=0, max_size=4),
    name=st.sampled_from(dtypes.ALL),
    fill=st.sampled_from(FILLS),
)
def test_an_element_depends_only_on_its_c_order_index(shape: list[int], name: str, fill: FillKind) -> None:
    shaped = make_data(DataSpec(tuple(shape), name, fill))
    flat = make_data(DataSpec((math.prod(shape),), name, fill))
    assert as_bytes(shaped) == as_bytes(flat)


# --- special --------------------------------------------------------------------------------------

#: qNaN, -qNaN, NaN payload 1, NaN all payload bits, signalling NaN, +inf, -inf, +0, -0,
#: smallest subnormal, largest subnormal, -smallest subnormal, largest finite, smallest normal.
SPECIAL_BITS = {
    "float16": [
        0x7E00,
        0xFE00,
        0x7E01,
        0x7FFF,
        0x7C01,
        0x7C00,
        0xFC00,
        0,
        0x8000,
        1,
        0x03FF,
        0x8001,
        0x7BFF,
        0x0400,
    ],
    "bfloat16": [
        0x7FC0,
        0xFFC0,
        0x7FC1,
        0x7FFF,
        0x7F81,
        0x7F80,
        0xFF80,
        0,
        0x8000,
        1,
        0x007F,
        0x8001,
        0x7F7F,
        0x0080,
    ],
    "float32": [
        0x7FC00000,
        0xFFC00000,
        0x7FC00001,
        0x7FFFFFFF,
        0x7F800001,
        0x7F800000,
        0xFF800000,
        0,
        0x80000000,
        1,
        0x007FFFFF,
        0x80000001,
        0x7F7FFFFF,
        0x00800000,
    ],
    "float64": [
        0x7FF8000000000000,
        0xFFF8000000000000,
        0x7FF8000000000001,
        0x7FFFFFFFFFFFFFFF,
        0x7FF0000000000001,
        0x7FF0000000000000,
        0xFFF0000000000000,
        0,
        0x8000000000000000,
        1,
        0x000FFFFFFFFFFFFF,
        0x8000000000000001,
        0x7FEFFFFFFFFFFFFF,
        0x0010000000000000,
    ],
}
SPECIAL_BITS["complex64"] = SPECIAL_BITS["float32"]
SPECIAL_BITS["complex128"] = SPECIAL_BITS["float64"]


@pytest.mark.parametrize("name", list(SPECIAL_BITS))
def test_special_holds_every_special_value_by_bit_pattern(name: str) -> None:
    data = make_data(DataSpec((200,), name, "special"))
    found = patterns(data, name)
    if name in dtypes.COMPLEX:
        real, imag = set(found[0::2]), set(found[1::2])
        assert set(SPECIAL_BITS[name]) <= real, "every special in the real part"
        assert set(SPECIAL_BITS[name]) <= imag, "every special in the imaginary part"
    else:
        missing = [hex(bits) for bits in SPECIAL_BITS[name] if bits not in found]
        assert missing == []


#: smallest subnormal, largest finite and smallest normal of each float type, as numbers
LIMITS = {
    "float16": (2.0**-24, 65504.0, 2.0**-14),
    "bfloat16": (2.0**-133, (2 - 2.0**-7) * 2.0**127, 2.0**-126),
    "float32": (2.0**-149, (2 - 2.0**-23) * 2.0**127, 2.0**-126),
    "float64": (2.0**-1074, (2 - 2.0**-52) * 2.0**1023, 2.0**-1022),
}


@pytest.mark.parametrize("name", list(LIMITS))
def test_special_values_mean_what_they_say(name: str) -> None:
    with np.errstate(invalid="ignore"):  # widening a signalling NaN raises the invalid flag
        data = make_data(DataSpec((60,), name, "special")).astype(np.float64)
    specials = data[0::3]
    assert np.isnan(specials).sum() >= 5
    assert np.isposinf(specials).any() and np.isneginf(specials).any()
    assert any(x == 0 and np.signbit(x) for x in specials)  # -0.0 survives
    subnormal, largest, normal = LIMITS[name]
    for value in (subnormal, -subnormal, largest, -largest, normal):
        assert value in specials.tolist(), value
    # and between the specials, the arange values
    others = np.arange(60)[np.arange(60) % 3 != 0]
    assert np.array_equal(data[others], others.astype(np.float64))


def test_special_keeps_a_signalling_nan_signalling() -> None:
    data = make_data(DataSpec((15,), "float32", "special"))
    assert 0x7F800001 in patterns(data, "float32")  # the quiet bit was not set on the way


@pytest.mark.parametrize("name", dtypes.SIGNED)
def test_special_ints_hold_the_extremes(name: str) -> None:
    data = make_data(DataSpec((30,), name, "special"))
    low, high = dtypes.integer_range(name)
    assert {low, high, 0, -1, 1} <= {int(x) for x in data[0::3]}


@pytest.mark.parametrize("name", dtypes.UNSIGNED)
def test_special_unsigned_hold_the_extremes(name: str) -> None:
    data = make_data(DataSpec((30,), name, "special"))
    assert {0, dtypes.integer_range(name)[1], 1} <= {int(x) for x in data[0::3]}


def test_special_bool_alternates() -> None:
    assert make_data(DataSpec((5,), "bool", "special")).tolist() == [True, False, True, False, True]


def test_special_strings_are_the_hostile_ones_intact() -> None:
    data = list(make_data(DataSpec((60,), "string", "special")))
    for hostile in (
        "",
        "a\x00b",
        "ab\x00",
        "<script>alert(1)</script>",
        "\u202eabc",
        "שלום עולם",
        "e\u0301\u0327",
    ):
        assert hostile in data, repr(hostile)
    assert any(len(item) == 300 for item in data)
    assert set(HOSTILE_STRINGS) <= set(data)
    # specials repeat by cycle; every other element stays distinct from them and from each other
    assert len(set(data)) == 40 + len(HOSTILE_STRINGS)


# --- values ---------------------------------------------------------------------------------------


def test_values_are_reshaped_in_c_order() -> None:
    data = make_data(DataSpec((2, 3), "int16", "values", values=[[1, 2], [3, 4, 5, 6]]))
    assert data.tolist() == [[1, 2, 3], [4, 5, 6]]


def test_values_count_must_match_the_shape() -> None:
    with pytest.raises(ValueError, match="5 value"):
        make_data(DataSpec((2, 3), "int16", "values", values=[1, 2, 3, 4, 5]))


def test_values_must_fit_the_dtype() -> None:
    with pytest.raises(ValueError, match="does not fit int8"):
        make_data(DataSpec((1,), "int8", "values", values=[128]))


def test_float_values_keep_nan_inf_and_the_sign_of_zero() -> None:
    data = make_data(
        DataSpec((2, 2), "float16", "values", values=[-0.0, float("inf"), float("-inf"), float("nan")])
    )
    assert patterns(data, "float16") == [0x8000, 0x7C00, 0xFC00, 0x7E00]


def test_complex_values_as_numbers_or_pairs() -> None:
    as_numbers = make_data(DataSpec((2,), "complex64", "values", values=[1, 2.5]))
    as_pairs = make_data(DataSpec((2,), "complex64", "values", values=[[1, -0.0], [2.5, float("inf")]]))
    one_pair = make_data(DataSpec((1,), "complex128", "values", values=[1, 2]))
    assert as_numbers.tolist() == [1 + 0j, 2.5 + 0j]
    assert patterns(as_pairs, "complex64") == [0x3F800000, 0x80000000, 0x40200000, 0x7F800000]
    assert one_pair.tolist() == [1 + 2j]


def test_string_and_bool_values() -> None:
    strings = make_data(DataSpec((2,), "string", "values", values=["ab\x00", ""]))
    assert strings.dtype == object and list(strings) == ["ab\x00", ""]
    assert make_data(DataSpec((), "bool", "values", values=True)).tolist() is True


# --- random ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", dtypes.ALL)
def test_random_depends_on_the_seed(name: str) -> None:
    first = make_data(DataSpec((64,), name, "random", seed=1))
    again = make_data(DataSpec((64,), name, "random", seed=1))
    other = make_data(DataSpec((64,), name, "random", seed=2))
    assert as_bytes(first) == as_bytes(again)
    assert as_bytes(first) != as_bytes(other)


def test_random_ints_span_the_full_range() -> None:
    data = make_data(DataSpec((4000,), "int8", "random"))
    assert int(data.min()) == -128 and int(data.max()) == 127
    wide = make_data(DataSpec((1000,), "uint64", "random"))
    assert int(wide.max()) > 2**63


def test_random_strings_mix_lengths_and_scripts() -> None:
    data = list(make_data(DataSpec((300,), "string", "random")))
    assert {len(item) for item in data} == set(range(13))
    assert any(not item.isascii() for item in data)


def test_describe_fill() -> None:
    assert describe_fill(DataSpec((1,), "int8")) == "arange"
    assert describe_fill(DataSpec((1,), "int8", "random", seed=3)) == "random(seed=3)"
    assert describe_fill(DataSpec((1,), "int8", "special")) == "special"
    assert describe_fill(DataSpec((1,), "int8", "values", values=[1])) == "values"
