"""Slice's behaviours: what a slice request exercises, read from the request as its case writes it
(``params.slice``). The compatibility page shows them beside Split's, in groups of their own; the
rows of the data, the element types, the graphs and the documents are both families'."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

#: A slice request as a result records it (``starts``, ``ends``, ``axes``, ``steps``, ``sizes``, ``masks``).
Written = Mapping[str, Any]
Test = Callable[[Written, tuple[int, ...]], bool]

INT32_MAX = 2**31 - 1
BOUNDS, STEPS, AXES, SIZES_AND_MASKS = "Slice bounds", "Slice steps", "Slice axes", "Slice sizes and masks"


def _entries(written: Written, shape: tuple[int, ...]) -> Iterator[tuple[int | None, Any, Any, int]]:
    """Each sliced entry of a bounds or sizes request: its dimension (None past the rank), start,
    end (or size) and step; the axes default to the leading ones."""
    starts = written.get("starts") or []
    ends = written.get("ends") or written.get("sizes") or [None] * len(starts)
    axes = written.get("axes") or list(range(len(starts)))
    steps = written.get("steps") or [1] * len(starts)
    rank = len(shape)
    for axis, start, end, step in zip(axes, starts, ends, steps):
        yield (shape[axis % rank] if rank and -rank <= axis < rank else None), start, end, step


def _bounds(test: Callable[[int, int], bool]) -> Test:
    """Any start or end ``v`` of a bounds request on its dimension ``n`` passing ``test(v, n)``."""

    def row(written: Written, shape: tuple[int, ...]) -> bool:
        if "masks" in written or "sizes" in written:
            return False
        return any(
            test(value, dim)
            for dim, start, end, _ in _entries(written, shape)
            for value in (start, end)
            if dim is not None and value is not None
        )

    return row


def _empty_window(written: Written, shape: tuple[int, ...]) -> bool:
    """A bounds request whose window holds nothing on some dimension (start at or after end)."""
    if "masks" in written or "sizes" in written:
        return False
    for dim, start, end, step in _entries(written, shape):
        if dim is not None and step != 0 and abs(step) <= INT32_MAX and dim <= INT32_MAX:
            clipped = [None if v is None else max(min(v, INT32_MAX), -INT32_MAX) for v in (start, end)]
            if not range(*slice(clipped[0], clipped[1], step).indices(dim)):
                return True
    return False


def _steps(test: Callable[[int, int | None], bool]) -> Test:
    return lambda written, shape: any(test(step, dim) for dim, _, _, step in _entries(written, shape))


def _mask(*names: str) -> Test:
    return lambda written, shape: any(written.get("masks", {}).get(name) for name in names)


def _plain(written: Written, shape: tuple[int, ...]) -> bool:
    """A bounds request inside every dimension it slices, forward, with no bound omitted."""
    if "masks" in written or "sizes" in written:
        return False
    entries = list(_entries(written, shape))
    return bool(entries) and all(
        dim is not None and start is not None and end is not None and 0 <= start <= end <= dim and step >= 1
        for dim, start, end, step in entries
    )


#: (slug, title, group, test) of each Slice row, in the page's order.
ROWS: tuple[tuple[str, str, str, Test], ...] = (
    ("slice-plain", "A forward window inside the dimension", BOUNDS, _plain),
    (
        "slice-omitted",
        "An omitted bound (x[:e], x[s:])",
        BOUNDS,
        lambda w, s: None in (w.get("starts") or []) + (w.get("ends") or []),
    ),
    (
        "slice-negative-bound",
        "A negative bound, counted from the end",
        BOUNDS,
        _bounds(lambda v, n: -n <= v < 0),
    ),
    ("slice-past-end", "A bound past the end, clamped", BOUNDS, _bounds(lambda v, n: n < v <= INT32_MAX)),
    (
        "slice-before-start",
        "A bound before the start, clamped",
        BOUNDS,
        _bounds(lambda v, n: -INT32_MAX <= v < -n),
    ),
    (
        "slice-sentinels",
        "Bounds at the int32 and int64 limits",
        BOUNDS,
        _bounds(lambda v, n: abs(v) >= INT32_MAX),
    ),
    ("slice-empty-window", "An empty window (start at or after end)", BOUNDS, _empty_window),
    ("slice-negative-step", "A negative step", STEPS, _steps(lambda step, n: step < 0)),
    ("slice-step-zero", "A step of 0", STEPS, _steps(lambda step, n: step == 0)),
    (
        "slice-huge-step",
        "A step longer than the dimension",
        STEPS,
        _steps(lambda step, n: n is not None and abs(step) > max(n, 1)),
    ),
    (
        "slice-axes-omitted",
        "No axes: the leading dimensions",
        AXES,
        lambda w, s: "axes" not in w and "masks" not in w,
    ),
    ("slice-axes-negative", "A negative axis", AXES, lambda w, s: any(a < 0 for a in w.get("axes") or [])),
    (
        "slice-axes-repeated",
        "An axis given twice",
        AXES,
        lambda w, s: len(set(w.get("axes") or [])) < len(w.get("axes") or []),
    ),
    (
        "slice-axis-out-of-range",
        "An axis out of range",
        AXES,
        lambda w, s: any(not -len(s) <= a < len(s) for a in w.get("axes") or []),
    ),
    ("slice-nothing", "Nothing sliced: no start given", AXES, lambda w, s: not w.get("starts")),
    (
        "slice-sizes",
        "Sizes from a start (tf.slice, torch.narrow)",
        SIZES_AND_MASKS,
        lambda w, s: "sizes" in w,
    ),
    (
        "slice-strided",
        "A strided slice: full index vectors, masks",
        SIZES_AND_MASKS,
        lambda w, s: "masks" in w,
    ),
    (
        "slice-size-minus-one",
        "A size of -1: all that remains",
        SIZES_AND_MASKS,
        lambda w, s: -1 in (w.get("sizes") or []),
    ),
    ("slice-mask-bounds", "A begin or end mask", SIZES_AND_MASKS, _mask("begin", "end")),
    ("slice-mask-ellipsis", "An ellipsis mask", SIZES_AND_MASKS, _mask("ellipsis")),
    ("slice-mask-new-axis", "A new-axis mask", SIZES_AND_MASKS, _mask("new_axis")),
    ("slice-mask-shrink", "A shrink-axis mask", SIZES_AND_MASKS, _mask("shrink_axis")),
)
