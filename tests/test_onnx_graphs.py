"""The ONNX model builder: each Split version built as the case says, without any backend.

These pin the mapping every ONNX-reading adapter relies on (ONNX Runtime, OpenVINO's ONNX
frontend): opset and IR version, split as attribute / initializer / graph input per version,
num_outputs for Split-18, output counts for invalid requests, dynamic dims and element types; and
SplitToSequence's one node and sequence output, its split given as lengths, a scalar or not at all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import AttributeProto, TensorProto, helper, numpy_helper  # noqa: E402

from conformance import dtypes  # noqa: E402
from conformance.corpus.case import Case, DataSpec, Form, GraphSpec, Location, SplitArguments  # noqa: E402
from conformance.corpus.loader import load_paths  # noqa: E402
from conformance.corpus.selection import select  # noqa: E402
from conformance.engine.item import make_task  # noqa: E402
from conformance.models import onnx_graphs  # noqa: E402
from conformance.plugin import Task  # noqa: E402

VERSIONS = (1, 2, 11, 13, 18)


def task(
    op: str,
    *,
    lengths: tuple[int, ...] | None = None,
    parts: int | None = None,
    shape: tuple[int, ...] = (6, 4),
    dtype: str = "float32",
    axis: int | None = 0,
    **graph: Any,
) -> Task:
    form = Form("lengths", lengths) if lengths is not None else Form("parts", 2 if parts is None else parts)
    return task_of(op, form, shape, dtype, axis, graph)


def task_of(
    op: str, form: Form, shape: tuple[int, ...], dtype: str, axis: int | None, graph: dict[str, Any]
) -> Task:
    """A task built from a Case directly (the builder never consults the catalogue)."""
    case = Case(
        id="t",
        title="t",
        source="tests",
        data=DataSpec(shape, dtype),
        request=SplitArguments(axis, form),
        location=Location("tests", 1),
        graph=GraphSpec(**graph),
    )
    return make_task(case, op)


def node_of(model: Any) -> Any:
    (node,) = model.graph.node
    return node


def attributes(model: Any) -> dict[str, Any]:
    return {a.name: helper.get_attribute_value(a) for a in node_of(model).attribute}


@pytest.mark.parametrize("version", VERSIONS)
def test_opset_ir_and_single_split_node(version: int) -> None:
    model = onnx_graphs.build_model(task(f"onnx.Split-{version}", parts=2))
    assert [(o.domain, o.version) for o in model.opset_import] == [("", version)]
    assert model.ir_version == onnx_graphs.IR_VERSION == 8
    assert node_of(model).op_type == "Split"
    assert len(model.graph.output) == 2


@pytest.mark.parametrize("version", (1, 2, 11))
def test_constant_lengths_are_the_split_attribute_up_to_11(version: int) -> None:
    model = onnx_graphs.build_model(task(f"onnx.Split-{version}", lengths=(1, 2, 3)))
    assert attributes(model) == {"axis": 0, "split": [1, 2, 3]}
    assert list(node_of(model).input) == ["data"] and not model.graph.initializer
    assert len(node_of(model).output) == 3


def test_split1_runtime_lengths_are_a_second_input_of_the_data_type() -> None:
    t = task("onnx.Split-1", lengths=(2, 4), dtype="float16", inputs="runtime")
    model = onnx_graphs.build_model(t)
    assert list(node_of(model).input) == ["data", "split"]
    split = model.graph.input[1]
    assert split.type.tensor_type.elem_type == TensorProto.FLOAT16
    assert [d.dim_value for d in split.type.tensor_type.shape.dim] == [2]
    assert "split" not in attributes(model)
    fed = onnx_graphs.feeds(t)
    assert fed["split"].dtype == np.float16 and fed["split"].tolist() == [2, 4]


@pytest.mark.parametrize("version", (13, 18))
def test_constant_lengths_are_an_int64_initializer_from_13(version: int) -> None:
    model = onnx_graphs.build_model(task(f"onnx.Split-{version}", lengths=(2, 4)))
    assert list(node_of(model).input) == ["data", "split"]
    (init,) = model.graph.initializer
    assert init.name == "split" and init.data_type == TensorProto.INT64
    assert numpy_helper.to_array(init).tolist() == [2, 4]
    assert [i.name for i in model.graph.input] == ["data"]
    assert "split" not in attributes(model) and "num_outputs" not in attributes(model)


@pytest.mark.parametrize("version", (13, 18))
def test_runtime_lengths_are_a_graph_input_from_13(version: int) -> None:
    t = task(f"onnx.Split-{version}", lengths=(2, 4), inputs="runtime")
    model = onnx_graphs.build_model(t)
    assert not model.graph.initializer
    assert model.graph.input[1].name == "split"
    assert model.graph.input[1].type.tensor_type.elem_type == TensorProto.INT64
    fed = onnx_graphs.feeds(t)
    assert set(fed) == {"data", "split"} and fed["split"].dtype == np.int64


@pytest.mark.parametrize(
    ("name", "element"),
    [("int32", TensorProto.INT32), ("uint64", TensorProto.UINT64), ("float32", TensorProto.FLOAT)],
)
def test_lengths_dtype_sets_the_split_element_type(name: str, element: int) -> None:
    constant = onnx_graphs.build_model(task("onnx.Split-13", lengths=(2, 4), lengths_dtype=name))
    assert constant.graph.initializer[0].data_type == element
    runtime = task("onnx.Split-18", lengths=(2, 4), lengths_dtype=name, inputs="runtime")
    assert onnx_graphs.build_model(runtime).graph.input[1].type.tensor_type.elem_type == element
    assert onnx_graphs.feeds(runtime)["split"].dtype == dtypes.numpy_dtype(name)


def test_negative_length_in_an_unsigned_type_keeps_its_bit_pattern() -> None:
    model = onnx_graphs.build_model(task("onnx.Split-13", lengths=(7, -1), lengths_dtype="uint64"))
    assert numpy_helper.to_array(model.graph.initializer[0]).tolist() == [7, 2**64 - 1]


@pytest.mark.parametrize("version", (1, 2, 11, 13))
def test_parts_declare_that_many_outputs_and_no_split(version: int) -> None:
    model = onnx_graphs.build_model(task(f"onnx.Split-{version}", parts=3))
    assert list(node_of(model).input) == ["data"]
    assert attributes(model) == {"axis": 0}
    assert list(node_of(model).output) == ["output_0", "output_1", "output_2"]


def test_split18_parts_set_num_outputs() -> None:
    model = onnx_graphs.build_model(task("onnx.Split-18", parts=3))
    assert attributes(model) == {"axis": 0, "num_outputs": 3}
    assert len(model.graph.output) == 3


def test_split18_neither_leaves_out_num_outputs() -> None:
    model = onnx_graphs.build_model(task("onnx.Split-18", parts=3, num_outputs="neither"))
    assert attributes(model) == {"axis": 0}
    assert list(node_of(model).input) == ["data"] and len(model.graph.output) == 3


def test_split18_both_has_split_input_and_num_outputs() -> None:
    model = onnx_graphs.build_model(task("onnx.Split-18", lengths=(2, 4), num_outputs="both"))
    assert attributes(model) == {"axis": 0, "num_outputs": 2}
    assert list(node_of(model).input) == ["data", "split"]


@pytest.mark.parametrize("count", [0, -2])
def test_invalid_count_is_written_as_given(count: int) -> None:
    # Split-18: the attribute carries the bad value, one output keeps the node well-formed otherwise.
    model18 = onnx_graphs.build_model(task("onnx.Split-18", parts=count))
    assert attributes(model18)["num_outputs"] == count and len(model18.graph.output) == 1
    # Split-13: the count is the output count, so a count below 1 declares none.
    model13 = onnx_graphs.build_model(task("onnx.Split-13", parts=count))
    assert len(node_of(model13).output) == 0 and len(model13.graph.output) == 0


def test_empty_lengths_declare_no_outputs() -> None:
    model2 = onnx_graphs.build_model(task("onnx.Split-2", lengths=()))
    (split,) = [a for a in node_of(model2).attribute if a.name == "split"]
    assert split.type == AttributeProto.INTS and list(split.ints) == []
    assert len(model2.graph.output) == 0
    model13 = onnx_graphs.build_model(task("onnx.Split-13", lengths=()))
    assert numpy_helper.to_array(model13.graph.initializer[0]).shape == (0,)


def test_omitted_axis_omits_the_attribute() -> None:
    assert "axis" not in attributes(onnx_graphs.build_model(task("onnx.Split-1", parts=2, axis=None)))
    assert attributes(onnx_graphs.build_model(task("onnx.Split-11", parts=2, axis=-1)))["axis"] == -1


def test_dynamic_data_shape_makes_every_dim_symbolic() -> None:
    model = onnx_graphs.build_model(
        task("onnx.Split-13", lengths=(2, 4), shape=(6, 4, 5), data_shape="dynamic")
    )
    dims = model.graph.input[0].type.tensor_type.shape.dim
    assert [d.dim_param for d in dims] == ["d0", "d1", "d2"] and not any(d.dim_value for d in dims)
    static = onnx_graphs.build_model(task("onnx.Split-13", lengths=(2, 4), shape=(6, 4, 5)))
    assert [d.dim_value for d in static.graph.input[0].type.tensor_type.shape.dim] == [6, 4, 5]


def test_outputs_declare_type_and_rank_only() -> None:
    model = onnx_graphs.build_model(task("onnx.Split-13", lengths=(2, 4), dtype="int8"))
    for output in model.graph.output:
        assert output.type.tensor_type.elem_type == TensorProto.INT8
        dims = output.type.tensor_type.shape.dim
        assert len(dims) == 2 and not any(d.HasField("dim_value") or d.HasField("dim_param") for d in dims)


@pytest.mark.parametrize("name", dtypes.ALL)
def test_every_dtype_has_its_element_type(name: str) -> None:
    t = task("onnx.Split-13", parts=2, dtype=name)
    model = onnx_graphs.build_model(t)
    assert model.graph.input[0].type.tensor_type.elem_type == onnx_graphs.ELEMENT_TYPES[name]
    assert onnx_graphs.feeds(t)["data"].dtype == dtypes.numpy_dtype(name)


def test_bfloat16_and_string_feeds_keep_the_suite_dtypes() -> None:
    assert (
        onnx_graphs.feeds(task("onnx.Split-13", parts=2, dtype="bfloat16"))["data"].dtype
        == ml_dtypes.bfloat16
    )
    strings = onnx_graphs.feeds(task("onnx.Split-13", parts=2, dtype="string"))["data"]
    assert strings.dtype == object and isinstance(strings.flat[0], str)


def test_bytes_and_save_round_trip(tmp_path: Path) -> None:
    t = task("onnx.Split-18", parts=3)
    path = onnx_graphs.save(t, tmp_path / "m.onnx")
    assert path.read_bytes() == onnx_graphs.model_bytes(t)
    assert onnx.load(str(path)) == onnx_graphs.build_model(t)


def test_check_is_separate_from_building() -> None:
    onnx_graphs.check(onnx_graphs.build_model(task("onnx.Split-13", lengths=(2, 4))))
    invalid = onnx_graphs.build_model(task("onnx.Split-18", lengths=(2, 4), num_outputs="both"))
    with pytest.raises(Exception, match="num_outputs"):
        onnx_graphs.check(invalid)


def test_rejects_non_onnx_ops() -> None:
    with pytest.raises(ValueError, match="not an ONNX op of the suite"):
        onnx_graphs.version_of("torch.split")


@pytest.mark.slow
def test_every_corpus_item_builds_with_its_output_count() -> None:
    suite = load_paths([Path(__file__).resolve().parent.parent / "cases"])
    for item in select(suite.cases, ["onnx.*"], keyword="not large"):  # the builder never sees data
        t = make_task(item.case, item.op)
        model = onnx_graphs.build_model(t)
        assert len(model.graph.output) == onnx_graphs.output_count(t), item.id
        assert model.opset_import[0].version == onnx_graphs.version_of(item.op), item.id


# --- SplitToSequence ----------------------------------------------------------------------------------
SEQUENCE = "onnx.SplitToSequence-11"


def sequence_task(
    *,
    lengths: tuple[int, ...] | None = None,
    size: int = 1,
    shape: tuple[int, ...] = (6, 4),
    dtype: str = "float32",
    axis: int | None = 0,
    **graph: Any,
) -> Task:
    """A SplitToSequence task: a 1-D split (``lengths``) or a scalar one (``size``)."""
    form = Form("lengths", lengths) if lengths is not None else Form("size", size)
    return task_of(SEQUENCE, form, shape, dtype, axis, graph)


def split_input(model: Any) -> Any:
    """The ``split`` initializer or graph input, whichever the model has."""
    found = [i for i in model.graph.initializer if i.name == "split"]
    found += [i for i in model.graph.input if i.name == "split"]
    (value,) = found
    return value


def test_sequence_model_is_one_split_to_sequence_node_at_opset_11() -> None:
    model = onnx_graphs.build_model(sequence_task(size=2))
    assert [(o.domain, o.version) for o in model.opset_import] == [("", 11)]
    assert model.ir_version == onnx_graphs.IR_VERSION
    assert node_of(model).op_type == "SplitToSequence"
    assert list(node_of(model).output) == [onnx_graphs.SEQUENCE]
    assert onnx_graphs.output_count(sequence_task(size=2)) == 1


def test_sequence_output_is_a_sequence_of_the_data_type_with_no_shape() -> None:
    model = onnx_graphs.build_model(sequence_task(size=2, dtype="int16"))
    (output,) = model.graph.output
    assert output.name == onnx_graphs.SEQUENCE and output.type.WhichOneof("value") == "sequence_type"
    element = output.type.sequence_type.elem_type.tensor_type
    assert element.elem_type == TensorProto.INT16 and not element.HasField("shape")


def test_sequence_lengths_are_a_1d_initializer_and_size_a_scalar() -> None:
    lengths = onnx_graphs.build_model(sequence_task(lengths=(2, 4)))
    assert list(node_of(lengths).input) == ["data", "split"]
    value = numpy_helper.to_array(split_input(lengths))
    assert value.shape == (2,) and value.dtype == np.int64 and value.tolist() == [2, 4]
    size = onnx_graphs.build_model(sequence_task(size=4))
    value = numpy_helper.to_array(split_input(size))
    assert value.shape == () and value.dtype == np.int64 and int(value) == 4
    assert [i.name for i in size.graph.input] == ["data"]


@pytest.mark.parametrize(("name", "element"), [("int32", TensorProto.INT32), ("int16", TensorProto.INT16)])
def test_sequence_split_type_is_lengths_dtype_for_both_forms(name: str, element: int) -> None:
    for t in (sequence_task(lengths=(2, 4), lengths_dtype=name), sequence_task(size=4, lengths_dtype=name)):
        assert split_input(onnx_graphs.build_model(t)).data_type == element


def test_sequence_runtime_split_is_a_graph_input_fed_in_its_shape() -> None:
    lengths = sequence_task(lengths=(1, 5), lengths_dtype="int32", inputs="runtime")
    model = onnx_graphs.build_model(lengths)
    assert not model.graph.initializer and model.graph.input[1].name == "split"
    assert model.graph.input[1].type.tensor_type.elem_type == TensorProto.INT32
    assert [d.dim_value for d in model.graph.input[1].type.tensor_type.shape.dim] == [2]
    fed = onnx_graphs.feeds(lengths)["split"]
    assert fed.dtype == np.int32 and fed.tolist() == [1, 5]
    size = sequence_task(size=4, inputs="runtime")
    scalar = onnx_graphs.build_model(size).graph.input[1].type.tensor_type
    assert scalar.HasField("shape") and len(scalar.shape.dim) == 0  # rank 0, not unknown rank
    assert onnx_graphs.feeds(size)["split"].shape == ()


def test_omitted_split_leaves_the_node_with_the_data_alone() -> None:
    t = sequence_task(size=1, split_input="omitted", keepdims=0)
    model = onnx_graphs.build_model(t)
    assert list(node_of(model).input) == ["data"] and not model.graph.initializer
    assert set(onnx_graphs.feeds(t)) == {"data"}


def test_keepdims_is_written_only_when_the_case_sets_it() -> None:
    assert attributes(onnx_graphs.build_model(sequence_task(size=1, split_input="omitted"))) == {"axis": 0}
    given = onnx_graphs.build_model(sequence_task(size=2, keepdims=0))
    assert attributes(given) == {
        "axis": 0,
        "keepdims": 0,
    }  # with a split: as written, for the backend to ignore
    assert attributes(onnx_graphs.build_model(sequence_task(size=2, axis=None))) == {}
    assert attributes(onnx_graphs.build_model(sequence_task(size=2, axis=-1)))["axis"] == -1


def test_invalid_sequence_splits_are_written_as_given() -> None:
    assert int(numpy_helper.to_array(split_input(onnx_graphs.build_model(sequence_task(size=0))))) == 0
    assert int(numpy_helper.to_array(split_input(onnx_graphs.build_model(sequence_task(size=-2))))) == -2
    empty = numpy_helper.to_array(split_input(onnx_graphs.build_model(sequence_task(lengths=()))))
    assert empty.shape == (0,)


def test_sequence_models_pass_the_checker_and_round_trip(tmp_path: Path) -> None:
    for t in (
        sequence_task(lengths=(1, 2, 3)),
        sequence_task(size=4, inputs="runtime", lengths_dtype="int32"),
        sequence_task(size=1, split_input="omitted", keepdims=0, data_shape="dynamic"),
    ):
        onnx_graphs.check(onnx_graphs.build_model(t))
        path = onnx_graphs.save(t, tmp_path / "s.onnx")
        assert onnx.load(str(path)) == onnx_graphs.build_model(t)


@pytest.mark.parametrize(
    ("t", "reader", "shapes"),
    [
        (sequence_task(lengths=(1, 2, 3)), 3, [(1, 4), (2, 4), (3, 4)]),
        (sequence_task(size=1, split_input="omitted", keepdims=0, axis=-1), 4, [(6,)] * 4),
        (sequence_task(size=1, split_input="omitted", keepdims=0, axis=-1), "ConcatFromSequence", [(6, 4)]),
        (sequence_task(size=4), "ConcatFromSequence", [(6, 4)]),
    ],
)
def test_consumed_sequence_gives_the_pieces_or_the_data_back(
    t: Task, reader: int | str, shapes: list[tuple[int, ...]]
) -> None:
    """Checked by ONNX's own reference evaluator: SequenceAt i is piece i, and ConcatFromSequence
    joins the pieces into the data again, dropped axis (keepdims=0) included."""
    from onnx.reference import ReferenceEvaluator

    model = onnx_graphs.consumed_sequence_model(t, reader)
    onnx_graphs.check(model)
    outputs = ReferenceEvaluator(model).run(None, onnx_graphs.feeds(t))
    assert [output.shape for output in outputs] == shapes
    joined = np.concatenate(outputs, axis=0) if reader != 4 else np.stack(outputs, axis=-1)
    np.testing.assert_array_equal(joined, t.data)


@pytest.mark.parametrize(("t", "count"), [(sequence_task(lengths=(1, 2, 3)), 3), (sequence_task(size=4), 2)])
def test_a_sequence_read_by_its_length_gives_the_count(t: Task, count: int) -> None:
    """SequenceLength, the consumer of a rejected request on IREE: one int64 scalar, the number of
    pieces (ONNX's reference evaluator); a consumer nobody names is refused."""
    from onnx.reference import ReferenceEvaluator

    model = onnx_graphs.consumed_sequence_model(t, "SequenceLength")
    onnx_graphs.check(model)
    assert [node.op_type for node in model.graph.node] == ["SplitToSequence", "SequenceLength"]
    (length,) = ReferenceEvaluator(model).run(None, onnx_graphs.feeds(t))
    assert (length.dtype, length.shape, int(length)) == (np.int64, (), count)
    with pytest.raises(ValueError, match="no such Sequence consumer"):
        onnx_graphs.consumed_sequence_model(t, "SequenceErase")


def test_op_ids_name_their_operator_and_version() -> None:
    assert onnx_graphs.operator_of(SEQUENCE) == ("SplitToSequence", 11)
    assert onnx_graphs.operator_of("onnx.Split-18") == ("Split", 18)
    assert onnx_graphs.operator_of("onnx.Slice-13") == ("Slice", 13)
    assert onnx_graphs.is_sequence(SEQUENCE) and not onnx_graphs.is_sequence("onnx.Split-13")
    with pytest.raises(ValueError, match="not an ONNX op of the suite"):
        onnx_graphs.operator_of("onnx.SplitToSequence")
