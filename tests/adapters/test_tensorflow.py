"""The TensorFlow adapter on a representative slice of the corpus, on its three routes.

Passing items prove the adapter builds what the cases say (the axis left out when omitted, sizes in
their stated type, runtime inputs and unknown dims on the traced function); a deliberately corrupted
adapter must fail, proving the comparison is live; TensorFlow's refusals must be judged as
TensorFlow's, never as a defect of the adapter. Items that abort the process (known issues) are never
run here: the suite's workers isolate them, this test process would not survive them.
"""

from __future__ import annotations

import contextlib
import io
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import route_calls
from claims import assert_claimed_by

tf = pytest.importorskip("tensorflow")
conformance_tensorflow = pytest.importorskip("conformance_tensorflow")

from conformance_tensorflow import TensorflowAdapter  # noqa: E402

from conformance import dtypes  # noqa: E402
from conformance.corpus import catalogue  # noqa: E402
from conformance.corpus.loader import Suite, load_paths  # noqa: E402
from conformance.engine.item import make_task, run_item  # noqa: E402
from conformance.errors import UsageError  # noqa: E402
from conformance.models import tf_functions, tf_slices  # noqa: E402
from conformance.plugin import AdapterInfo, Target  # noqa: E402
from conformance.results.result import Result  # noqa: E402
from conformance.verdict import known_issues  # noqa: E402

ROUTES = ["eager", "function", "xla"]

ITEMS = [
    # the documents' examples
    "tf-doc-split-3-axis1::tensorflow.split",
    "tf-doc-split-sizes-4-15-11::tensorflow.split",
    "tf-doc-split-default-axis::tensorflow.split",
    "doc-split1-num-splits-3::tensorflow.experimental.numpy.split",
    "doc-readme-indices-past-end::tensorflow.experimental.numpy.split",
    "doc-onnx11-negative-axis::tensorflow.experimental.numpy.split",
    # -1 sizes, sizes in each SplitV type
    "tf-sizes-minus1-inferred::tensorflow.split",
    "tf-sizes-minus1-zero::tensorflow.split",
    "tf-sizes-int32::tensorflow.split",
    # dtypes, special bit patterns (bfloat16 and NaN payloads cross bit for bit)
    "dtype-bfloat16-lengths::tensorflow.split",
    "special-bfloat16-parts::tensorflow.split",
    "special-float32-indices-axis0::tensorflow.experimental.numpy.split",
    "dtype-complex64-random-parts::tensorflow.split",
    "dtype-uint64-size::tensorflow.experimental.numpy.split",
    # requests the spec rejects, refused by TensorFlow: passes
    "tf-count-uneven::tensorflow.split",
    "tf-count-zero::tensorflow.split",
    "tf-sizes-two-minus1::tensorflow.split",
    "tf-sizes-int16-refused::tensorflow.split",
    "tf-rank0::tensorflow.split",
]
#: XLA has no strings: these pass on the other two routes
STRING_ITEMS = [
    "dtype-string-lengths::tensorflow.split",
    "special-string-values-rows::tensorflow.split",
    "special-string-parts::tensorflow.experimental.numpy.split",
]
#: a traced function with inputs fed at run time, unknown dims, and further runs at other shapes
GRAPH_ITEMS = [
    "tf-runtime-sizes-dynamic::tensorflow.split",
    "graph-runtime-lengths-axis1::tensorflow.split",
    "ov-custom-lengths-change-first::tensorflow.split",
    "ov-custom-rank3-minus1-dynamic::tensorflow.split",
    "webnn-split-24-into-3-non-constant-f16::tensorflow.split",
]


@cache
def suite() -> Suite:
    return load_paths(["cases"])


def _run(item: str, route: str, adapter: TensorflowAdapter | None = None, repeat: int = 1) -> Result:
    case_id, _, op = item.partition("::")
    target = Target("tensorflow", route, "cpu")
    return run_item(adapter or TensorflowAdapter({}), target, suite().by_id(case_id), op, repeat=repeat)


@pytest.mark.slow
@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("item", ITEMS)
def test_corpus_item_passes(route: str, item: str) -> None:
    result = _run(item, route)
    assert result.status == "pass", result.message


@pytest.mark.parametrize("route", ["eager", "function"])
@pytest.mark.parametrize("item", STRING_ITEMS)
def test_strings_cross_unchanged(route: str, item: str) -> None:
    result = _run(item, route)
    assert result.status == "pass", result.message


def test_xla_refuses_no_strings_it_is_never_handed() -> None:
    result = _run(STRING_ITEMS[0], "xla")
    assert result.status == "unsupported"
    assert "XLA has no string" in result.message


@pytest.mark.parametrize("route", ["function", "xla"])
@pytest.mark.parametrize("item", GRAPH_ITEMS)
def test_runtime_inputs_and_dynamic_dims_pass(route: str, item: str) -> None:
    result = _run(item, route)
    assert result.status == "pass", result.message


def test_the_traced_function_takes_what_the_case_places_at_run_time() -> None:
    case = suite().by_id("tf-runtime-sizes-dynamic")
    task = make_task(case, "tensorflow.split")
    function = tf_functions.split_function(task)
    specs = function.structured_input_signature[0]
    assert [(spec.name, spec.shape.as_list(), spec.dtype.name) for spec in specs] == [
        ("data", [None, None], "float32"),
        ("axis", [], "int32"),
        ("lengths", [2], "int32"),
    ]
    later = task.runs[0]  # the further run: another shape, other sizes, the same function
    pieces = function(*tf_functions.tensors(later))
    assert [tuple(piece.shape) for piece in pieces] == [(4, 3), (5, 3)]


def test_the_signature_reproducers_write_is_the_one_traced() -> None:
    # reproducers write the signature from the suite's dtype names, without TensorFlow: those
    # names must be TensorFlow's, and the text must build the TensorSpecs the adapter traces with
    assert {name: tf_functions.tf_dtype(name).name for name in dtypes.ALL} == {
        name: name for name in dtypes.ALL
    }
    for case_id in ("tf-runtime-sizes-dynamic", "tf-doc-split-3-axis1"):
        task = make_task(suite().by_id(case_id), "tensorflow.split")
        written = eval(f"[{tf_functions.signature_code(task)}]", {"tf": tf})  # the suite's own text
        assert tuple(written) == tf_functions.input_signature(task)


class SwappingAdapter(TensorflowAdapter):
    """Returns the first two pieces in the wrong order."""

    def info(self) -> AdapterInfo:
        return route_calls.tampered(super().info(), route_calls.swap_first_two)


class SignFlippingAdapter(TensorflowAdapter):
    """Flips the sign bit of one element: -0.0 for 0.0 is a wrong result for a data move."""

    def info(self) -> AdapterInfo:
        return route_calls.tampered(super().info(), route_calls.flip_sign_bit)


@pytest.mark.parametrize("broken", [SwappingAdapter, SignFlippingAdapter])
@pytest.mark.parametrize("route", ROUTES)
def test_wrong_outputs_fail(broken: type[TensorflowAdapter], route: str) -> None:
    result = _run("special-float32-lengths::tensorflow.split", route, broken({}), repeat=0)
    assert result.status == "fail", result.message


@pytest.mark.parametrize(("route", "phase"), [("eager", "run"), ("function", "build"), ("xla", "build")])
def test_a_refusal_is_tensorflows(route: str, phase: str) -> None:
    """7 rows into 3: eager refuses in the kernel, a trace in the shape function; either is TF's."""
    result = _run("tf-count-uneven::tensorflow.split", route)
    raised = result.actual.get("raised")
    assert result.status == "pass", result.message
    assert raised is not None and raised["origin"] == "backend" and raised["phase"] == phase, raised
    assert "InvalidArgument" in raised["type"] or raised["type"] == "ValueError", raised
    assert result.defect is None


@pytest.mark.parametrize("route", ROUTES)
def test_a_refusal_of_a_valid_request_is_an_error_of_tensorflow_not_a_defect(route: str) -> None:
    """TF's NumPy split refuses unsorted split points (a known issue): an error, TF's own."""
    result = _run("doc-readme-indices-unsorted::tensorflow.experimental.numpy.split", route)
    assert result.status == "error", result.message
    assert result.defect is None
    assert result.actual["raised"]["origin"] == "backend"
    assert result.actual["raised"]["type"] == "ValueError"


@pytest.mark.parametrize("route", ROUTES)
def test_the_reproducer_runs_with_tensorflow_alone(route: str) -> None:
    case = suite().by_id("tf-runtime-sizes-dynamic")
    task = make_task(case, "tensorflow.split")
    snippet = route_calls.reproducer(TensorflowAdapter({}), task, Target("tensorflow", route, "cpu"))
    assert snippet is not None and "conformance" not in snippet
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile("import base64\nimport numpy as np\n" + snippet, "<reproducer>", "exec"), {})
    assert printed.getvalue().splitlines() == ["[(2, 2), (4, 2)]", "[(4, 3), (5, 3)]"]


def test_conversions_keep_every_byte() -> None:
    import ml_dtypes

    bits = np.array([0x7F81, 0xFFC1, 0x8000, 0x0001], dtype=np.uint16)
    bfloat16 = bits.view(ml_dtypes.bfloat16).reshape(2, 2)
    back = tf_functions.to_numpy(tf_functions.to_tf(bfloat16))
    assert back.dtype == bfloat16.dtype and back.view(np.uint16).tolist() == bits.reshape(2, 2).tolist()
    strings = np.array(["a\x00", "", "é字🙂", "\x00"], dtype=object).reshape(2, 2)
    back = tf_functions.to_numpy(tf_functions.to_tf(strings))
    assert back.dtype == object and back.tolist() == strings.tolist()
    assert all(type(item) is str for item in back.reshape(-1))
    scalar = tf_functions.to_numpy(tf.constant(b"x\x00"))
    assert scalar.shape == () and scalar.item() == "x\x00"


def test_info_reports_the_installed_tensorflow() -> None:
    info = TensorflowAdapter({"device": "cpu"}).info()
    assert (info.name, info.version) == ("tensorflow", tf.__version__)
    assert info.backend.startswith("tensorflow")
    assert [(route.name, route.default) for route in info.routes] == [
        ("eager", True),
        ("function", True),
        ("xla", False),
    ]
    assert info.devices == ("cpu",)


def test_unknown_options_and_devices_are_refused() -> None:
    with pytest.raises(UsageError, match="unknown option"):
        TensorflowAdapter({"devcie": "cpu"})
    with pytest.raises(UsageError, match="unknown device"):
        TensorflowAdapter({"device": "gpu"})


# --- tf.slice and tf.strided_slice ---

#: the pages' examples, and the index inputs fed at run time, unknown dims and further runs (some refused)
SLICE_ITEMS = [
    "slice-doc-tf-slice-2::tensorflow.slice",
    "slice-doc-tf-strided-3::tensorflow.strided_slice",
    "slice-doc-tf-raw-walkthrough::tensorflow.strided_slice",
    "slice-sizes-runs-begin-and-size::tensorflow.slice",
    "slice-sizes-dynamic-runs::tensorflow.slice",
    "slice-strided-runtime-int32::tensorflow.strided_slice",
    "slice-strided-runs-int64::tensorflow.strided_slice",
    "slice-strided-dynamic-new-axis::tensorflow.strided_slice",
]
ISSUES = known_issues.shipped("tensorflow", "conformance_tensorflow:TensorflowAdapter")


@pytest.mark.slow
@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("item", SLICE_ITEMS)
def test_slice_items_pass(route: str, item: str) -> None:
    result = _run(item, route)
    assert result.status == "pass", result.message


def test_the_traced_slice_takes_its_runtime_indices_in_the_case_type() -> None:
    task = make_task(suite().by_id("slice-strided-runs-masked-end"), "tensorflow.strided_slice")
    function = tf_slices.concrete_function(task)
    specs = function.structured_input_signature[0]
    assert [(spec.name, spec.shape.as_list(), spec.dtype.name) for spec in specs] == [
        ("data", [6], "float32"),
        ("begin", [1], "int64"),
    ]
    # end and strides are constants of the case's index type, end_mask the integer attribute
    (node,) = [op for op in function.graph.get_operations() if op.type == "StridedSlice"]
    assert [(tensor.op.type, tensor.dtype.name) for tensor in node.inputs[2:]] == [("Const", "int64")] * 2
    assert node.get_attr("end_mask") == 1
    for later, rows in zip(task.runs, [1, 0, 6], strict=True):  # begin -1, 10, INT64_MIN
        (output,) = function(*tf_slices.tensors(later))
        assert output.shape == (rows,)
    dynamic = make_task(suite().by_id("slice-strided-dynamic-new-axis"), "tensorflow.strided_slice")
    assert [spec.shape.as_list() for spec in tf_slices.input_signature(dynamic)] == [[None, None]]


def test_a_mask_past_an_int32_is_not_applicable_and_bit_31_is_its_sign(tmp_path: Path) -> None:
    past = suite().by_id("slice-strided-mask-bits-past-entries")
    why = catalogue.why_not_applicable(past, catalogue.OPS["tensorflow.strided_slice"])
    assert why is not None and "int32 bit fields" in why, why
    path = tmp_path / "bit31.yaml"
    path.write_text(
        "cases:\n  - id: bit-31\n    title: end_mask bit 31, past the entries\n    source: test\n"
        "    data: {shape: [5], dtype: float32}\n    starts: [1]\n    ends: [3]\n    steps: [1]\n"
        "    masks: {end: [31]}\n    expect: {values: [[1, 2]]}\n"
    )
    task = make_task(load_paths([str(path)]).by_id("bit-31"), "tensorflow.strided_slice")
    assert tf_slices.mask_keywords(task) == {"end_mask": -(2**31)}
    for route in ROUTES:
        result = run_item(TensorflowAdapter({}), Target("tensorflow", route, "cpu"), task.case, task.op)
        assert result.status == "pass", result.message


@pytest.mark.parametrize(
    ("item", "routes", "issue"),
    [
        ("slice-doc-ov-strided-ellipsis", ["eager", "function"], "slice-kernels-rank-over-8"),
        ("slice-strided-stride-int64-max", ["xla"], "xla-slice-size-overflows-on-huge-stride"),
    ],
)
def test_slice_departures_are_tensorflows_and_claimed(item: str, routes: list[str], issue: str) -> None:
    for route in routes:
        result = _run(f"{item}::tensorflow.strided_slice", route)
        assert result.status in ("fail", "error") and result.defect is None, result.message
        assert_claimed_by(result, ISSUES, issue)


@pytest.mark.parametrize("route", ROUTES)
def test_a_zero_stride_on_a_new_axis_passes_under_the_reading_tensorflow_takes(route: str) -> None:
    result = _run("slice-strided-stride-zero-new-axis::tensorflow.strided_slice", route)
    assert result.status == "pass" and result.reading == "an ignored entry's stride unread", result.message


def test_xla_compiles_the_rank_10_slice_the_kernels_refuse() -> None:
    result = _run("slice-doc-ov-strided-ellipsis::tensorflow.strided_slice", "xla")
    assert result.status == "pass", result.message


@pytest.mark.parametrize("route", ROUTES)
def test_a_slice_reproducer_runs_with_tensorflow_alone(route: str) -> None:
    task = make_task(suite().by_id("slice-strided-runs-masked-end"), "tensorflow.strided_slice")
    snippet = route_calls.reproducer(TensorflowAdapter({}), task, Target("tensorflow", route, "cpu"))
    assert snippet is not None and "conformance" not in snippet and "end_mask=1" in snippet
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile("import base64\nimport numpy as np\n" + snippet, "<reproducer>", "exec"), {})
    assert printed.getvalue().splitlines() == ["(4,)", "(1,)", "(0,)", "(6,)"]


@pytest.mark.parametrize("route", ROUTES)
def test_a_wrong_slice_fails(route: str) -> None:
    result = _run(
        "slice-doc-tf-strided-3::tensorflow.strided_slice", route, SignFlippingAdapter({}), repeat=0
    )
    assert result.status == "fail", result.message
