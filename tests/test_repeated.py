"""A periodic tensor mapped from one block: the same bytes as writing it out, read-only, freed."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from conformance.corpus import fill
from conformance.corpus.case import DataSpec
from conformance.corpus.repeated import BLOCK_BYTES, repeated

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the mapping needs memfd_create (Linux)")


def _written(pattern: np.ndarray, count: int) -> np.ndarray:
    """The same elements, written out the plain way."""
    return np.resize(pattern, count)


def _mappings() -> int:
    with open("/proc/self/maps") as maps:
        return sum("conformance-repeated" in line for line in maps)


@pytest.mark.parametrize(
    ("dtype", "period"),
    [(np.uint8, 256), (np.uint16, 1 << 16), (np.int8, 256)],
)
def test_holds_the_bytes_of_the_written_out_tensor(dtype: type, period: int) -> None:
    pattern = np.arange(period, dtype=np.uint64).astype(dtype)
    count = 3 * BLOCK_BYTES // np.dtype(dtype).itemsize + 17  # a last block only partly used
    mapped = repeated(pattern, count)
    assert mapped is not None
    assert mapped.shape == (count,) and mapped.dtype == np.dtype(dtype)
    assert np.array_equal(mapped, _written(pattern, count))


def test_is_read_only() -> None:
    mapped = repeated(np.arange(256, dtype=np.uint8), BLOCK_BYTES * 2)
    assert mapped is not None
    assert not mapped.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        mapped[0] = 1


def test_the_mappings_go_with_the_last_array() -> None:
    before = _mappings()
    mapped = repeated(np.arange(256, dtype=np.uint8), BLOCK_BYTES * 4)
    assert mapped is not None
    view = mapped[BLOCK_BYTES:]
    del mapped
    assert _mappings() == before + 4  # the view still holds the range
    assert int(view[0]) == 0
    del view
    assert _mappings() == before


@pytest.mark.parametrize(
    ("pattern", "count"),
    [
        (np.arange(3, dtype=np.uint8), BLOCK_BYTES),  # 3 bytes do not divide the block
        (np.arange(256, dtype=np.uint8), 0),  # nothing to map
        (np.arange(0, dtype=np.uint8), BLOCK_BYTES),  # no period
    ],
)
def test_declines_what_one_block_cannot_hold(pattern: np.ndarray, count: int) -> None:
    assert repeated(pattern, count) is None


def test_make_data_maps_a_large_counter_and_writes_a_small_one(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = DataSpec(shape=(2, BLOCK_BYTES + 5), dtype="uint8")
    written = fill.make_data(spec)
    assert written.flags.writeable  # below the threshold: written out as before
    monkeypatch.setattr(fill, "REPEATED_FROM_BYTES", BLOCK_BYTES)
    mapped = fill.make_data(spec)
    assert not mapped.flags.writeable
    assert mapped.shape == written.shape
    assert np.array_equal(mapped, written)


def test_a_fill_that_writes_into_the_counter_gets_one_written_out(monkeypatch: pytest.MonkeyPatch) -> None:
    # the special fill puts its values into an arange: a mapped one would refuse the write
    monkeypatch.setattr(fill, "REPEATED_FROM_BYTES", BLOCK_BYTES)
    special = fill.make_data(DataSpec(shape=(3 * BLOCK_BYTES,), dtype="uint8", fill="special"))
    assert special.flags.writeable
    assert int(special[3]) == np.iinfo(np.uint8).max  # (0, high, ...) at every third position
