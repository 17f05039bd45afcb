"""The NumPy adapter: NumPy's own split functions, and the emulation that cross-checks the reference.

The emulation's value is its independence, so besides corpus items it is tested rule by rule:
every rejection it makes must name the spec rule it applies.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np
import pytest

conformance_numpy = pytest.importorskip("conformance_numpy")

from conformance_numpy import NumpyAdapter  # noqa: E402
from conformance_numpy.emulation import SpecViolation, emulate  # noqa: E402
from route_calls import with_outputs  # noqa: E402

from conformance.corpus.case import Form, GraphSpec  # noqa: E402
from conformance.corpus.loader import Suite, load_paths  # noqa: E402
from conformance.engine.item import run_item  # noqa: E402
from conformance.errors import UsageError  # noqa: E402
from conformance.loading.hooks import Hooks  # noqa: E402
from conformance.plugin import Target  # noqa: E402

NUMPY_ITEMS = [
    "doc-readme-6-into-4::numpy.array_split",
    "doc-readme-indices-past-end::numpy.split",
    "doc-readme-indices-unsorted::numpy.array_split",
    "doc-onnx11-negative-axis::numpy.split",
    "dtype-bfloat16-parts-uneven::numpy.array_split",
    "dtype-string-indices::numpy.split",
    "special-bfloat16-indices-axis0::numpy.split",
    "doc-readme-numpy-split-not-divisible::numpy.split",
    "invalid-array-split-sections-zero::numpy.array_split",
    "invalid-all-rank0-float16::numpy.split",
]
EMULATED_ITEMS = [
    "doc-vsplit-lengths-minus1-2::openvino.VariadicSplit-1",
    "doc-split1-num-splits-3::openvino.Split-1",
    "doc-vsplit-axis-shape1-current-vs-2020::openvino.VariadicSplit-1",
    "doc-vsplit-lengths-1-2-3::onnx.Split-18",
    "onnx-node-split-variable-parts-2d-runtime::onnx.Split-1",
    "ov-custom-rank1-dynamic::onnx.Split-13",
    "ov-custom-precision-bfloat16-minus1::openvino.VariadicSplit-1",
    "dtype-string-lengths::onnx.Split-2",
    "dtype-string-lengths::onnx.Split-1",
    "graph-onnx18-both-split-and-num-outputs::onnx.Split-18",
    "graph-onnx18-neither::onnx.Split-18",
    "axis-dtype-float32-split1::openvino.Split-1",
    "doc-readme-chunk-6-into-4-values::torch.chunk",
    "invalid-torch-split-size-negative::torch.split",
    "ambig-onnx18-5-axis0-into-4::onnx.Split-18",
    "ambig-onnx1-no-axis-parts::onnx.Split-1",
    "ambig-vsplit-axis-int32-lengths-int64::openvino.VariadicSplit-1",
    "ambig-torch-split-size1-empty-dim::torch.split",
]


@cache
def suite() -> Suite:
    return load_paths(["cases"])


def _status(adapter: NumpyAdapter | Hooks, route: str, item: str, device: str = "cpu") -> tuple[str, str]:
    case_id, _, op = item.partition("::")
    result = run_item(adapter, Target("numpy", route, device), suite().by_id(case_id), op, repeat=1)
    return result.status, result.message


@pytest.mark.slow
@pytest.mark.parametrize("item", NUMPY_ITEMS)
def test_numpy_route_passes(item: str) -> None:
    status, message = _status(NumpyAdapter({}), "numpy", item)
    assert status == "pass", message


@pytest.mark.parametrize("item", EMULATED_ITEMS)
def test_emulated_route_passes(item: str) -> None:
    status, message = _status(NumpyAdapter({}), "emulated", item)
    assert status == "pass", message


def _reversed(pieces: list[np.ndarray]) -> list[np.ndarray]:
    """The pieces in reverse order."""
    return pieces[::-1]


def _flipped(pieces: list[np.ndarray]) -> list[np.ndarray]:
    """The lowest bit of the first element of the first piece flipped."""
    pieces[0].reshape(-1).view(np.uint32)[0] ^= np.uint32(1)
    return pieces


@pytest.mark.parametrize("change", [_reversed, _flipped])
@pytest.mark.parametrize(
    ("route", "item"),
    [
        ("numpy", "special-float32-parts::numpy.array_split"),
        ("emulated", "special-float32-parts::onnx.Split-13"),
    ],
)
def test_wrong_outputs_fail(
    change: Callable[[list[np.ndarray]], list[np.ndarray]], route: str, item: str
) -> None:
    status, message = _status(with_outputs(NumpyAdapter({}), change), route, item)
    assert status == "fail", message


def test_a_device_numpy_lacks_is_refused_at_load() -> None:
    """Not a green run of unsupported items: the misspelt or foreign device is the user's to fix."""
    with pytest.raises(UsageError, match=r"unknown device\(s\) GPU; this adapter has: cpu"):
        NumpyAdapter({"device": "GPU"})


def test_info_reports_numpy() -> None:
    info = NumpyAdapter({}).info()
    assert (info.name, info.backend, info.version) == ("numpy", "numpy", np.__version__)
    assert [route.name for route in info.routes] == ["numpy", "emulated"]


DATA = np.arange(24, dtype=np.float32).reshape(6, 4)


@pytest.mark.parametrize(
    ("op", "axis", "form", "graph", "dtype", "rule"),
    [
        ("openvino.Split-1", 0, Form("parts", 4), GraphSpec(), "float32", "even division"),
        ("openvino.Split-1", 0, Form("parts", 7), GraphSpec(), "float32", "num_splits range"),
        ("openvino.Split-1", 0, Form("parts", 2), GraphSpec(axis_shape="[1]"), "float32", "axis shape"),
        ("openvino.Split-1", 2, Form("parts", 2), GraphSpec(), "float32", "axis range"),
        (
            "openvino.VariadicSplit-1",
            0,
            Form("lengths", (2, 2)),
            GraphSpec(axis_dtype="float32"),
            "float32",
            "axis type",
        ),
        ("openvino.VariadicSplit-1", 0, Form("lengths", (-1, -1)), GraphSpec(), "float32", "single -1"),
        ("openvino.VariadicSplit-1", 0, Form("lengths", (-2, 8)), GraphSpec(), "float32", "non-negative"),
        ("openvino.VariadicSplit-1", 0, Form("lengths", (7, -1)), GraphSpec(), "float32", "lengths sum"),
        (
            "openvino.VariadicSplit-1",
            0,
            Form("lengths", (2, 4)),
            GraphSpec(lengths_dtype="int32"),
            "float32",
            "T2",
        ),
        ("onnx.Split-1", 0, Form("lengths", (2, 4)), GraphSpec(), "int32", "type constraint T"),
        ("onnx.Split-2", -1, Form("parts", 2), GraphSpec(), "float32", "axis range"),
        ("onnx.Split-11", 0, Form("lengths", ()), GraphSpec(), "float32", "output count"),
        (
            "onnx.Split-13",
            0,
            Form("lengths", (2, 4)),
            GraphSpec(lengths_dtype="int32"),
            "float32",
            "split type",
        ),
        ("onnx.Split-13", 0, Form("parts", 4), GraphSpec(), "float32", "equal parts"),
        ("onnx.Split-18", 0, Form("parts", 5), GraphSpec(), "float32", "num_outputs overrun"),
        (
            "onnx.Split-18",
            0,
            Form("parts", 2),
            GraphSpec(num_outputs="neither"),
            "float32",
            "split xor num_outputs",
        ),
        ("torch.split", 0, Form("size", 0), GraphSpec(), "float32", "size"),
        ("torch.chunk", 0, Form("parts", 0), GraphSpec(), "float32", "count"),
    ],
)
def test_emulation_names_the_rule(
    op: str, axis: int, form: Form, graph: GraphSpec, dtype: str, rule: str
) -> None:
    data = DATA.astype(np.int32) if dtype == "int32" else DATA
    with pytest.raises(SpecViolation, match=rule):
        emulate(data, op=op, axis=axis, form=form, graph=graph, dtype=dtype)


@pytest.mark.parametrize(
    ("op", "axis", "form", "lengths"),
    [
        ("onnx.Split-18", 0, Form("parts", 4), [2, 2, 2, 0]),
        ("torch.chunk", 0, Form("parts", 4), [2, 2, 2]),
        ("torch.tensor_split", 0, Form("parts", 4), [2, 2, 1, 1]),
        ("torch.tensor_split", 0, Form("indices", (-1, 2, 9)), [5, 0, 4, 0]),
        ("torch.split", 1, Form("size", 3), [3, 1]),
        ("openvino.VariadicSplit-1", -1, Form("lengths", (-1, 1)), [3, 1]),
    ],
)
def test_emulation_piece_lengths(op: str, axis: int, form: Form, lengths: list[int]) -> None:
    pieces = emulate(DATA, op=op, axis=axis, form=form, graph=GraphSpec(), dtype="float32")
    assert [piece.shape[axis] for piece in pieces] == lengths
    assert np.array_equal(np.concatenate(pieces, axis=axis), DATA) == (sum(lengths) == DATA.shape[axis])
