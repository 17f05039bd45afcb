"""The ONNX Runtime adapter judged on real corpus items, plus the proofs that judging is live.

Runs in-process through ``run_item`` (the unit the workers repeat), so a failure here names the
item exactly as a results file would. The last test runs the whole onnx.* corpus through the
executor's workers (a malformed Split-18 node aborts ORT's process) and checks that every non-pass
result is explained by known_issues.yaml and that no entry is stale.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from built_in import off_default_run
from claims import assert_claimed_by, assert_every_failure_claimed, raw_run

onnxruntime = pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")
pytest.importorskip("conformance_onnxruntime")

from conformance_onnxruntime import OnnxRuntimeAdapter  # noqa: E402
from route_calls import snippet, with_outputs  # noqa: E402

from conformance.corpus.loader import Suite, load_paths  # noqa: E402
from conformance.engine.item import make_task, run_item  # noqa: E402
from conformance.errors import UsageError  # noqa: E402
from conformance.plugin import Target  # noqa: E402
from conformance.verdict import known_issues  # noqa: E402

CASES = Path(__file__).resolve().parents[2] / "cases"
TARGET = Target("onnxruntime", "default", "cpu")
_ENTRY_POINT = "conformance_onnxruntime:OnnxRuntimeAdapter"

PASSING = [
    "onnx-node-split-equal-parts-1d::onnx.Split-13",  # ONNX backend test, equal parts
    "onnx-node-split-variable-parts-2d::onnx.Split-2",  # split attribute
    "doc-onnx18-10-into-3::onnx.Split-18",  # num_outputs, uneven with a smaller last chunk
    "doc-onnx13-split-sum::onnx.Split-11",
    "ov-custom-rank3-minus1::onnx.Split-13",  # -1 length: ONNX rejects it, and so does ORT
    "graph-runtime-lengths::onnx.Split-13",  # split fed at run time
    "graph-runtime-lengths-axis1::onnx.Split-18",
    "graph-dynamic-lengths::onnx.Split-18",  # symbolic data dims
    "graph-dynamic-parts::onnx.Split-13",
    "graph-lengths-int32-onnx-runtime::onnx.Split-13",  # int32 split input: spec and ORT reject
    "graph-onnx18-both-split-and-num-outputs::onnx.Split-18",
    "graph-onnx18-neither::onnx.Split-18",
    "dtype-bfloat16-lengths::onnx.Split-13",  # bfloat16 through OrtValues, bit for bit
    "special-bfloat16-lengths::onnx.Split-18",
    "dtype-bfloat16-lengths::onnx.Split-11",  # bfloat16 is not in Split-11's type list
    "dtype-string-lengths::onnx.Split-18",
    "special-string-values::onnx.Split-13",  # NULs, combining marks, emoji
    "special-float32-lengths::onnx.Split-13",  # NaN payloads and signed zeros
    "dtype-uint64-lengths::onnx.Split-13",
    "invalid-onnx18-num-outputs-zero::onnx.Split-18",
    "invalid-onnx-negative-length::onnx.Split-11",
]


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_paths([CASES])


@pytest.fixture(scope="module")
def adapter() -> OnnxRuntimeAdapter:
    return OnnxRuntimeAdapter({})


def run(adapter: object, suite: Suite, item: str) -> tuple[str, str]:
    case_id, op = item.split("::")
    result = run_item(adapter, TARGET, suite.by_id(case_id), op, repeat=1)  # type: ignore[arg-type]
    return result.status, result.message


@pytest.mark.slow
@pytest.mark.parametrize("item", PASSING)
def test_representative_items_pass(adapter: OnnxRuntimeAdapter, suite: Suite, item: str) -> None:
    status, message = run(adapter, suite, item)
    assert status == "pass", message


def _swapped(outputs: list[np.ndarray]) -> list[np.ndarray]:
    """The first two outputs swapped: the comparison must notice."""
    outputs[0], outputs[1] = outputs[1], outputs[0]
    return outputs


def _bit_flipped(outputs: list[np.ndarray]) -> list[np.ndarray]:
    """The lowest bit of one element flipped: bit-exact comparison must notice."""
    bits = outputs[-1].view(np.uint16 if outputs[-1].itemsize == 2 else np.uint32).reshape(-1)
    bits[0] ^= 1
    return outputs


@pytest.mark.slow
@pytest.mark.parametrize("change", [_swapped, _bit_flipped])
@pytest.mark.parametrize(
    "item", ["doc-onnx18-10-into-3::onnx.Split-18", "dtype-bfloat16-lengths::onnx.Split-13"]
)
def test_wrong_outputs_fail(
    suite: Suite, change: Callable[[list[np.ndarray]], list[np.ndarray]], item: str
) -> None:
    status, message = run(with_outputs(OnnxRuntimeAdapter({}), change), suite, item)
    assert status == "fail", message


#: The packages each route needs beyond onnxruntime.
_ROUTE_NEEDS = {
    "onnxslim": ("onnxslim",),
    "onnxoptimizer": ("onnxoptimizer",),
    "torch-onnx": ("torch", "onnxscript"),
}


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::UserWarning", "ignore::FutureWarning")  # torch.onnx.export's
@pytest.mark.parametrize(
    ("route", "item", "issue"),
    [
        ("default", "dtype-complex64-lengths::onnx.Split-13", "complex-tensor-type-not-registered"),
        (
            "onnxslim",
            "dtype-complex128-lengths::onnx.SplitToSequence-11",
            "complex-tensor-type-not-registered",
        ),
        ("onnxoptimizer", "dtype-complex64-parts::onnx.Split-18", "complex-tensor-type-not-registered"),
        ("default", "special-complex64-minus1-rank3::onnx.Split-18", None),  # the spec rejects it too
        off_default_run(
            "torch-onnx", "dtype-complex64-lengths::torch.split", "torch-onnx-complex-split-not-exported"
        ),
        off_default_run(
            "torch-onnx", "dtype-complex64-parts::torch.tensor_split", None
        ),  # real representation, bit for bit
    ],
)
def test_complex_data_is_handed_over_and_judged(
    adapter: OnnxRuntimeAdapter, suite: Suite, route: str, item: str, issue: str | None
) -> None:
    """ORT has no complex tensors, but a model can hold them: the session's refusal is judged (an
    error its known issue claims where the spec accepts the request), never declared unsupported."""
    for package in _ROUTE_NEEDS.get(route, ()):
        pytest.importorskip(package)
    case_id, op = item.split("::")
    result = run_item(adapter, Target("onnxruntime", route, "cpu"), suite.by_id(case_id), op, repeat=0)
    if issue is None:
        assert result.status == "pass", result.message
        return
    assert (result.status, result.actual["raised"]["origin"]) == ("error", "backend"), result.message
    assert_claimed_by(
        result, known_issues.shipped("onnxruntime", "conformance_onnxruntime:OnnxRuntimeAdapter"), issue
    )


@pytest.mark.slow
@pytest.mark.extra_targets  # the torch-onnx route is off the default run
@pytest.mark.filterwarnings("ignore::UserWarning", "ignore::FutureWarning")  # torch.onnx.export's
@pytest.mark.parametrize(
    ("case_id", "issue"),
    [
        ("graph-dynamic-lengths", "torch-onnx-lengths-pin-dynamic-dim"),
        ("graph-dynamic-lengths-impossible", None),  # lengths that miss the dim: the spec rejects them too
    ],
)
def test_torch_onnx_hands_lengths_on_a_dynamic_dim_to_the_exporter(
    adapter: OnnxRuntimeAdapter, suite: Suite, case_id: str, issue: str | None
) -> None:
    """The dim is exported Dim.DYNAMIC as the case declares it: the exporter's refusal (torch.export
    pins the dim to the lengths' sum) is judged, never declared unsupported by the adapter."""
    for package in _ROUTE_NEEDS["torch-onnx"]:
        pytest.importorskip(package)
    target = Target("onnxruntime", "torch-onnx", "cpu")
    result = run_item(adapter, target, suite.by_id(case_id), "torch.split", repeat=0)
    raised = result.actual["raised"]
    assert (raised["type"], raised["origin"], raised["phase"]) == ("TorchExportError", "backend", "build")
    if issue is None:
        assert result.status == "pass", result.message
        return
    assert result.status == "error", result.message
    assert "Dim.DYNAMIC" in raised["message"]
    assert_claimed_by(
        result, known_issues.shipped("onnxruntime", "conformance_onnxruntime:OnnxRuntimeAdapter"), issue
    )


#: Per conversion route: what it needs beyond onnxruntime, Slice items of the documents' examples
#: that pass, and one known departure of the converter that stays claimed by its entry.
_SLICE_ROUTES = {
    "torch-onnx": (
        ("torch", "onnxscript"),
        ("slice-doc-narrow-dim1::torch.narrow", "slice-doc-torch-view-slicing::torch.Tensor.__getitem__"),
        ("slice-doc-narrow-tensor-start::torch.narrow", "torch-onnx-narrow-tensor-start"),
    ),
    "tf2onnx": (
        ("tensorflow", "tf2onnx"),
        ("slice-doc-tf-slice-1::tensorflow.slice", "slice-doc-tf-strided-1::tensorflow.strided_slice"),
        ("slice-doc-tf-slice-range-required::tensorflow.slice", "tf2onnx-slice-range-unchecked"),
    ),
}


@pytest.mark.slow
@pytest.mark.extra_targets  # both conversion routes are off the default run
@pytest.mark.filterwarnings("ignore::UserWarning", "ignore::FutureWarning", "ignore::DeprecationWarning")
@pytest.mark.parametrize("route", list(_SLICE_ROUTES))
def test_conversion_routes_judge_the_slice_ops(adapter: OnnxRuntimeAdapter, suite: Suite, route: str) -> None:
    """The converter's model of the suite's own torch module or tf.function runs the documents'
    examples bit for bit; its known departure (one of the documents' examples too) is claimed."""
    needs, passing, departure = _SLICE_ROUTES[route]
    for package in needs:
        pytest.importorskip(package)
    target = Target("onnxruntime", route, "cpu")
    for item in passing:
        case_id, op = item.split("::")
        result = run_item(adapter, target, suite.by_id(case_id), op, repeat=0)
        assert result.status == "pass", f"{item}: {result.message}"
    (case_id, op), issue = departure[0].split("::"), departure[1]
    result = run_item(adapter, target, suite.by_id(case_id), op, repeat=0)
    assert_claimed_by(result, known_issues.shipped("onnxruntime", _ENTRY_POINT), issue)


@pytest.mark.slow
@pytest.mark.extra_targets  # both conversion routes are off the default run
@pytest.mark.parametrize(
    ("route", "item", "printed"),
    [
        ("torch-onnx", "slice-doc-narrow-dim1::torch.narrow", "[(3, 2)]"),
        ("torch-onnx", "slice-doc-torch-view-slicing::torch.Tensor.__getitem__", None),
        ("tf2onnx", "slice-doc-tf-strided-1::tensorflow.strided_slice", None),
    ],
)
def test_slice_reproducers_use_only_the_converter_and_onnxruntime(
    suite: Suite, tmp_path: Path, route: str, item: str, printed: str | None
) -> None:
    """A Slice item's reproducer builds its module or function, converts it and runs the session
    with the converter and onnxruntime alone: no import of the suite."""
    for package in _SLICE_ROUTES[route][0]:
        pytest.importorskip(package)
    case_id, op = item.split("::")
    body = snippet(Target("onnxruntime", route, "cpu"), make_task(suite.by_id(case_id), op))
    assert body is not None and "conformance" not in body
    script = tmp_path / "reproducer.py"
    script.write_text("import base64\n\nimport numpy as np\n" + body)
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    shapes = done.stdout.strip().splitlines()[-1]
    assert shapes.startswith("[(") and (printed is None or shapes == printed)


def test_a_device_without_its_provider_is_refused_at_load() -> None:
    """Not a run of unsupported items that reads green: the option is the user's mistake."""
    with pytest.raises(UsageError, match="device 'gpu' needs an execution provider other than CPU"):
        OnnxRuntimeAdapter({"device": "gpu"})
    with pytest.raises(UsageError, match="device 'cpu' needs CPUExecutionProvider"):
        OnnxRuntimeAdapter({"device": "cpu", "providers": "AzureExecutionProvider"})


def test_info_reports_the_backend_and_resolved_options() -> None:
    info = OnnxRuntimeAdapter({"graph_optimization_level": "basic"}).info()
    assert info.version == onnxruntime.__version__ and info.backend == "onnxruntime"
    assert [(route.name, route.default) for route in info.routes] == [
        ("default", True),
        ("torch-onnx", False),
        ("tf2onnx", False),
        ("paddle2onnx", False),
        ("onnxsim", False),
        ("onnxslim", True),
        ("onnxoptimizer", True),
    ]
    assert info.devices == ("cpu",)
    # the conversion and optimizer routes' own settings and versions
    converters = ("torch", "onnxscript", "tf2onnx", "paddle2onnx", "onnxsim", "onnxslim", "onnxoptimizer")
    session_options = {key: value for key, value in info.options.items() if not key.startswith(converters)}
    assert session_options == {
        "providers": "CPUExecutionProvider",
        "graph_optimization_level": "basic",
        "device": "cpu",
        "intra_op_num_threads": "1",
        "onnx_version": onnx.__version__,
    }
    # the exporter of route torch-onnx, as every results file records it
    assert info.options["torch_onnx_dynamo"] == "True" and "onnxscript_version" in info.options


@pytest.mark.parametrize(
    ("options", "complaint"),
    [
        ({"provider": "CPUExecutionProvider"}, "unknown option"),
        ({"providers": "NoSuchExecutionProvider"}, "not available"),
        ({"graph_optimization_level": "max"}, "graph_optimization_level"),
        ({"intra_op_num_threads": "-1"}, "intra_op_num_threads"),
    ],
)
def test_bad_options_are_refused_at_construction(options: dict[str, str], complaint: str) -> None:
    with pytest.raises(UsageError, match=complaint):
        OnnxRuntimeAdapter(options)


@pytest.mark.slow
@pytest.mark.covered_by_main_job  # the main job's test checks it whole: see noxfile.py tests
def test_every_non_pass_is_a_known_issue_and_no_entry_is_stale(tmp_path: Path) -> None:
    issues = known_issues.shipped("onnxruntime", "conformance_onnxruntime:OnnxRuntimeAdapter")
    assert issues, "known_issues.yaml is not shipped with the package"
    # the optimizer routes: test_onnx_optimizers.py and the main job
    results = raw_run(tmp_path, "onnxruntime", ops=("onnx.*",), targets=("onnxruntime/default/*",))
    assert len(results) > 1000
    assert_every_failure_claimed(results, issues)
