"""Bit-exact comparison: the short cut for outputs that are the reference's own elements, and
that it never stands in for a comparison of other elements of the same buffer."""

from __future__ import annotations

import numpy as np
import pytest

from conformance.oracle.compare import diff_outputs, diff_values, same_elements


def test_a_view_of_the_very_same_elements_is_equal_without_a_comparison() -> None:
    data = np.arange(24, dtype=np.float32).reshape(4, 6)
    data[1, 2] = np.nan  # NaN != NaN by value: only a bit comparison (or the same bits) says equal
    piece = data[1:3]
    assert same_elements(piece, data[1:3])
    assert diff_values(piece, data[1:3], "float32") is None


def test_one_buffer_read_at_other_strides_or_offsets_is_compared() -> None:
    data = np.arange(16, dtype=np.uint8)
    # the same first address, but every other element: values differ from the first eight
    assert not same_elements(data[:8], data[::2])
    found = diff_values(data[:8], data[::2], "uint8")
    assert found is not None and found.differing == 7
    # the same strides from another offset
    assert not same_elements(data[:8], data[1:9])
    shifted = diff_values(data[:8], data[1:9], "uint8")
    assert shifted is not None and shifted.differing == 8
    # one buffer seen as another type is no equality of type: the dtype check tells them apart
    assert not same_elements(data, data.view(np.int8))
    mismatch = diff_outputs([data], [data.view(np.int8)])
    assert mismatch is not None and mismatch.what == "dtype"


@pytest.mark.parametrize("where", [0, 1 << 23, (1 << 24) + 4])  # first word, mid-chunk, the tail bytes
def test_a_copy_with_one_flipped_bit_in_a_large_tensor_is_found(where: int) -> None:
    data = np.zeros((1 << 24) + 5, dtype=np.uint8)  # past one chunk: the large-tensor path
    copy = data.copy()
    copy[where] = 1
    assert not same_elements(data, copy)
    found = diff_values(data, copy, "uint8")
    assert found is not None and found.differing == 1 and found.first[0].index == (where,)


def test_large_tensors_read_with_strides_are_compared_element_by_element() -> None:
    data = np.zeros((1 << 25) + 1, dtype=np.uint8)  # every other element: still past one chunk
    copy = data.copy()
    copy[-1] = 7  # at an even index
    found = diff_values(data[::2], copy[::2], "uint8")
    assert found is not None and found.differing == 1
    assert diff_values(data[1::2], copy[1::2], "uint8") is None


@pytest.mark.parametrize(
    ("expected", "actual", "dtype"),
    [
        (np.array(1.5, dtype=np.float32), np.array(2.5, dtype=np.float32), "float32"),
        (np.array("a", dtype=object), np.array("b", dtype=object), "string"),
        (np.array(1 + 2j, dtype=np.complex64), np.array(1 - 2j, dtype=np.complex64), "complex64"),
    ],
)
def test_a_value_mismatch_of_0_d_data_is_a_mismatch_not_an_error(
    expected: np.ndarray, actual: np.ndarray, dtype: str
) -> None:
    mismatch = diff_values(expected, actual, dtype)
    assert mismatch is not None and "1 of 1 elements differ" in str(mismatch)
    assert diff_values(expected, expected.copy(), dtype) is None
