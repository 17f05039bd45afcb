"""The torch module builder and the NumPy <-> torch conversions both torch targets rely on.

The conversions must move bytes, never values: a quieted signalling NaN, a lost payload or a
flipped zero sign would be blamed on the backend under test. The modules must call exactly the
function and arguments the case states, invalid ones included, since the backend's reaction to
them is what is judged.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from conformance import dtypes  # noqa: E402
from conformance.corpus.case import DataSpec, Form, GraphSpec, SplitArguments  # noqa: E402
from conformance.corpus.fill import make_data, special_float_bits  # noqa: E402
from conformance.corpus.loader import load_paths  # noqa: E402
from conformance.engine.item import make_task  # noqa: E402
from conformance.models.torch_modules import (  # noqa: E402
    build_module,
    dynamic_shapes,
    example_inputs,
    to_numpy,
    to_torch,
    torch_dtype,
)
from conformance.plugin import Task  # noqa: E402

TORCH_DTYPES = [name for name in dtypes.ALL if name != "string"]
FLOATS = {"float16": np.uint16, "bfloat16": np.uint16, "float32": np.uint32, "float64": np.uint64}


def _same_bytes(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and np.ascontiguousarray(a).tobytes() == b.tobytes()


@pytest.mark.parametrize("fill", ["arange", "special", "random"])
@pytest.mark.parametrize("dtype", TORCH_DTYPES)
def test_round_trip_is_bit_exact(dtype: str, fill: Any) -> None:
    array = make_data(DataSpec((3, 4, 5), dtype, fill))
    tensor = to_torch(array)
    assert tensor.dtype == torch_dtype(array.dtype)
    assert _same_bytes(to_numpy(tensor), np.ascontiguousarray(array))


@pytest.mark.parametrize("dtype", sorted(FLOATS))
def test_every_special_bit_pattern_survives(dtype: str) -> None:
    """NaN payloads, the signalling NaN, -0.0 and subnormals, each checked by its bits."""
    bits = np.array(special_float_bits(dtype), dtype=FLOATS[dtype])
    array = bits.view(dtypes.numpy_dtype(dtype))
    back = to_numpy(to_torch(array))
    np.testing.assert_array_equal(back.view(FLOATS[dtype]), bits)


def test_bfloat16_crosses_as_bits_not_through_float32() -> None:
    signalling = np.array([0x7F81, 0xFF81, 0x8000], dtype=np.uint16)  # sNaN, -sNaN, -0.0
    tensor = to_torch(signalling.view(ml_dtypes.bfloat16))
    assert tensor.dtype == torch.bfloat16
    assert tensor.view(torch.uint16).tolist() == [0x7F81, 0xFF81, 0x8000]
    np.testing.assert_array_equal(to_numpy(tensor).view(np.uint16), signalling)


def test_complex_parts_keep_their_bits() -> None:
    array = np.array([complex(-0.0, float("nan")), complex(float("inf"), -0.0)], dtype=np.complex128)
    assert _same_bytes(to_numpy(to_torch(array)), array)


def test_conversions_handle_views_and_copy_the_input() -> None:
    array = np.arange(24, dtype=np.int32).reshape(4, 6)[:, ::2]
    tensor = to_torch(array)
    tensor[0, 0] = 99
    assert array[0, 0] == 0  # to_torch copied
    strided = to_numpy(to_torch(np.arange(12, dtype=ml_dtypes.bfloat16).reshape(3, 4))[:, 1:3])
    np.testing.assert_array_equal(strided.astype(np.float32), np.arange(12).reshape(3, 4)[:, 1:3])


def test_zero_d_and_empty_arrays() -> None:
    for array in (np.array(3.5, dtype=np.float16), np.zeros((0, 3), dtype=np.uint64)):
        assert _same_bytes(to_numpy(to_torch(array)), array)


def test_string_data_is_refused() -> None:
    with pytest.raises(TypeError, match="torch has no dtype"):
        to_torch(np.array(["a"], dtype=object))


def _task(
    op: str, form: Form, axis: int | None, shape: tuple[int, ...] = (6, 4), dynamic: bool = False
) -> Task:
    suite = load_paths(["cases/doc-examples.yaml"])
    case = suite.cases[0]
    graph = GraphSpec(data_shape="dynamic" if dynamic else "static")
    data = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    task = make_task(case, op, data)
    return Task(task.item_id, op, data, SplitArguments(axis, form), graph, case)


CALLS: list[tuple[str, Form, int | None, str, tuple[Any, ...], dict[str, Any]]] = [
    ("torch.split", Form("size", 4), None, "split", (4,), {}),
    ("torch.split", Form("lengths", (1, 5)), 0, "split", ([1, 5], 0), {}),
    ("torch.split", Form("lengths", (-1, 7)), 1, "split", ([-1, 7], 1), {}),
    ("torch.tensor_split", Form("parts", 4), -1, "tensor_split", (4, -1), {}),
    ("torch.tensor_split", Form("indices", (5, 2)), None, "tensor_split", ([5, 2],), {}),
    ("torch.chunk", Form("parts", 0), 1, "chunk", (0, 1), {}),
    ("torch.hsplit", Form("parts", 4), None, "hsplit", (4,), {}),  # 4 does not divide 4 columns: as given
    ("torch.vsplit", Form("indices", (-1, 9)), None, "vsplit", ([-1, 9],), {}),
    ("torch.dsplit", Form("indices", ()), None, "dsplit", ([],), {}),
]


@pytest.mark.parametrize(("op", "form", "axis", "name", "args", "kwargs"), CALLS)
def test_module_calls_the_function_with_the_case_arguments(
    monkeypatch: pytest.MonkeyPatch,
    op: str,
    form: Form,
    axis: int | None,
    name: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> None:
    """Invalid values (a -1 length, zero chunks) reach the function unchanged; dim is left out when None."""
    calls: list[tuple[Any, ...]] = []

    def spy(data: Any, *rest: Any, **named: Any) -> tuple[Any, ...]:
        calls.append((name, rest, named))
        return (data,)

    task = _task(op, form, axis)
    module = build_module(task)
    assert module.function is getattr(torch, name)
    monkeypatch.setattr(module, "function", spy)
    (data,) = example_inputs(task)
    assert module(data)[0] is data
    assert calls == [(name, args, kwargs)]


def test_module_returns_a_tuple_of_pieces() -> None:
    module = build_module(_task("torch.chunk", Form("parts", 4), 0))
    pieces = module(*example_inputs(_task("torch.chunk", Form("parts", 4), 0)))
    assert isinstance(pieces, tuple)
    assert [tuple(piece.shape) for piece in pieces] == [(2, 4), (2, 4), (2, 4)]


def test_module_rejects_a_form_the_op_cannot_take() -> None:
    with pytest.raises(ValueError, match="takes no 'parts'"):
        build_module(_task("torch.split", Form("parts", 2), 0))
    with pytest.raises(ValueError, match="takes no 'size'"):
        build_module(_task("torch.hsplit", Form("size", 2), None))


@pytest.mark.parametrize("op", ["torch.hsplit", "torch.vsplit", "torch.dsplit"])
def test_directional_modules_take_no_dim(op: str) -> None:
    """hsplit, vsplit and dsplit have no dim parameter: a task stating one is the suite's error."""
    with pytest.raises(ValueError, match="takes no dim"):
        build_module(_task(op, Form("parts", 2), 0))


@pytest.mark.parametrize(
    ("op", "shape", "form", "pieces"),
    [
        ("torch.hsplit", (6,), Form("parts", 3), [(2,), (2,), (2,)]),  # 1-D: dim 0
        ("torch.hsplit", (2, 4, 6), Form("indices", (1, 9)), [(2, 1, 6), (2, 3, 6), (2, 0, 6)]),
        ("torch.vsplit", (4, 6), Form("indices", (-1,)), [(3, 6), (1, 6)]),
        ("torch.dsplit", (2, 2, 4), Form("parts", 2), [(2, 2, 2), (2, 2, 2)]),
    ],
)
def test_directional_modules_split_along_the_dim_their_rank_names(
    op: str, shape: tuple[int, ...], form: Form, pieces: list[tuple[int, ...]]
) -> None:
    task = _task(op, form, None, shape=shape)
    assert (
        str(build_module(task))
        == f"SplitModule({op}({list(form.values) if form.kind == 'indices' else form.value}))"
    )
    assert [tuple(piece.shape) for piece in build_module(task)(*example_inputs(task))] == pieces


def test_directional_module_passes_a_count_that_does_not_divide_to_torch() -> None:
    """torch.vsplit's own refusal of 3 rows into 2 is what the routes judge, so it must reach torch."""
    task = _task("torch.vsplit", Form("parts", 2), None, shape=(3, 4))
    with pytest.raises(RuntimeError, match=r"torch\.vsplit"):
        build_module(task)(*example_inputs(task))


def test_dynamic_shapes_mark_every_dim_of_dynamic_cases_only() -> None:
    assert dynamic_shapes(_task("torch.chunk", Form("parts", 3), 0)) is None
    marks = dynamic_shapes(_task("torch.chunk", Form("parts", 3), 0, dynamic=True))
    assert marks == {"data": {0: torch.export.Dim.DYNAMIC, 1: torch.export.Dim.DYNAMIC}}
    task = _task("torch.tensor_split", Form("parts", 3), 0, shape=(7, 2), dynamic=True)
    program = torch.export.export(
        build_module(task), example_inputs(task), dynamic_shapes=dynamic_shapes(task)
    )
    pieces = program.module()(torch.zeros(10, 2))
    assert [tuple(piece.shape) for piece in pieces] == [(4, 2), (3, 2), (3, 2)]
