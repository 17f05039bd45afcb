"""The OpenVINO adapter on a representative slice of the corpus, one route at a time.

Each route must pass doc examples, -1 lengths (where the op has them), run-time inputs, dynamic
shapes, a few dtypes including bfloat16 and an invalid case; a deliberately corrupted output must
come out "fail" (the comparison is live), an inexpressible task "unsupported" with its reason, and
info() must report the installed OpenVINO. Items known to crash the backend (string Split and
Slice, the Slice crashes of known_issues.yaml) are never run here: run_item executes in this process.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import route_calls
from claims import assert_claimed_by

from conformance.corpus.case import Case
from conformance.corpus.loader import load_paths
from conformance.engine.item import answered, bare_result, make_task, run_item
from conformance.errors import UsageError
from conformance.loading.registry import load
from conformance.plugin import AdapterInfo, Target
from conformance.run import rerun
from conformance.verdict import known_issues

ov = pytest.importorskip("openvino")

from conformance_openvino import OpenVINOAdapter  # noqa: E402

# OpenVINO's PyTorch frontend traces modules with torch.jit.trace, which torch 2.13 deprecates.
pytestmark = pytest.mark.filterwarnings("ignore:.*torch.jit.trace.*:DeprecationWarning")

NATIVE = Target("openvino", "native", "CPU")
ONNX = Target("openvino", "onnx", "CPU")
PYTORCH = Target("openvino", "pytorch", "CPU")
TORCH_EXPORT = Target("openvino", "torch-export", "CPU")
TENSORFLOW = Target("openvino", "tensorflow", "CPU")
TFLITE = Target("openvino", "tflite", "CPU")
#: What each route converts from, to skip its tests where that framework is missing.
_FRAMEWORK = {"onnx": "onnx", "pytorch": "torch", "torch-export": "torch", "tensorflow": "tensorflow"}


def _needs(target: Target) -> None:
    """Skip unless the framework ``target``'s route converts from is installed."""
    if target.route == "tflite":
        pytest.importorskip("ai_edge_litert")
    pytest.importorskip(_FRAMEWORK.get(target.route, "openvino"))


NATIVE_ITEMS = [
    "doc-vsplit-lengths-1-2-3::openvino.VariadicSplit-1",
    "doc-split1-num-splits-3::openvino.Split-1",
    "doc-vsplit-axis-shape1-current-vs-2020::openvino.VariadicSplit-1",
    "lengths-minus1-pos1::openvino.VariadicSplit-1",
    "lengths-empty-list-empty-dim::openvino.VariadicSplit-1",
    "graph-runtime-lengths::openvino.VariadicSplit-1",
    "graph-runtime-int32-vsplit::openvino.VariadicSplit-1",
    "graph-runtime-axis-split1-negative::openvino.Split-1",
    "graph-dynamic-lengths-minus1::openvino.VariadicSplit-1",
    "graph-dynamic-runtime-axis-split1::openvino.Split-1",
    "dtype-bfloat16-lengths::openvino.VariadicSplit-1",
    "special-bfloat16-parts::openvino.Split-1",
    "special-float32-values-inf-nan-zero::openvino.VariadicSplit-1",
    "dtype-string-parts-uneven::openvino.Split-1",
    "axis-shape1-split1::openvino.Split-1",
    "lengths-sum-one-short::openvino.VariadicSplit-1",
    # Slice-8 and StridedSlice-1: doc examples, runtime inputs with runs on one model, dynamic data
    "slice-doc-ov-slice8-example-1::openvino.Slice-8",
    "slice-doc-ov-strided-begin-end-mask::openvino.StridedSlice-1",
    "slice-graph-runs-axes-change::openvino.Slice-8",
    "slice-strided-runtime-int32::openvino.StridedSlice-1",
    "slice-strided-dynamic-new-axis::openvino.StridedSlice-1",
    "slice-graph-index-float32::openvino.Slice-8",
]
ONNX_ITEMS = [
    "doc-vsplit-lengths-1-2-3::onnx.Split-1",
    "doc-onnx18-7-into-4::onnx.Split-18",
    "doc-onnx11-negative-axis::onnx.Split-11",
    "graph-runtime-lengths::onnx.Split-13",
    "graph-runtime-onnx18-int64-lengths::onnx.Split-18",
    "graph-dynamic-runtime-lengths::onnx.Split-18",
    "graph-dynamic-parts::onnx.Split-2",
    "onnx-node-split-zero-size-splits::onnx.Split-13",
    "dtype-bfloat16-lengths::onnx.Split-13",
    "special-float32-parts::onnx.Split-1",
    "lengths-sum-one-short::onnx.Split-18",
    "doc-readme-6-into-4::onnx.Split-13",
    "slice-doc-onnx-example-1::onnx.Slice-13",
    "slice-doc-onnx1-example-1::onnx.Slice-1",
    "slice-graph-runs-int32-sentinels::onnx.Slice-10",
    "slice-graph-dynamic-backward::onnx.Slice-13",
]
PYTORCH_ITEMS = [
    "doc-readme-torch-split-list::torch.split",
    "doc-readme-chunk-6-into-4-values::torch.chunk",
    "doc-readme-indices-unsorted::torch.tensor_split",
    "graph-dynamic-size::torch.split",
    "graph-dynamic-parts-uneven::torch.chunk",
    "dtype-bfloat16-parts-uneven::torch.tensor_split",
    "special-bfloat16-indices-axis0::torch.tensor_split",
    "lengths-minus1-pos1::torch.split",
    "lengths-sum-one-short::torch.split",
]


@pytest.fixture(scope="module")
def cases() -> dict[str, Case]:
    return {case.id: case for case in load_paths(["cases"]).cases}


@pytest.fixture(scope="module")
def adapter() -> OpenVINOAdapter:
    return OpenVINOAdapter({})


def _run(adapter: Any, target: Target, cases: dict[str, Case], item: str) -> tuple[str, str]:
    case_id, op = item.split("::")
    result = run_item(adapter, target, cases[case_id], op, repeat=1)
    return result.status, result.message


@pytest.mark.slow
@pytest.mark.parametrize("item", NATIVE_ITEMS)
def test_native_route_passes(adapter: OpenVINOAdapter, cases: dict[str, Case], item: str) -> None:
    assert _run(adapter, NATIVE, cases, item)[0] == "pass"


@pytest.mark.slow
@pytest.mark.parametrize("item", ONNX_ITEMS)
def test_onnx_route_passes(adapter: OpenVINOAdapter, cases: dict[str, Case], item: str) -> None:
    pytest.importorskip("onnx")
    assert _run(adapter, ONNX, cases, item)[0] == "pass"


@pytest.mark.slow
@pytest.mark.parametrize("item", PYTORCH_ITEMS)
def test_pytorch_route_passes(adapter: OpenVINOAdapter, cases: dict[str, Case], item: str) -> None:
    pytest.importorskip("torch")
    assert _run(adapter, PYTORCH, cases, item)[0] == "pass"


def _returning(change: route_calls.Change) -> type[OpenVINOAdapter]:
    """The adapter with every route's outputs passed through ``change`` (a backend gone wrong)."""

    class Wrong(OpenVINOAdapter):
        def info(self) -> AdapterInfo:
            return route_calls.tampered(super().info(), change)

    return Wrong


_SwapsOutputs = _returning(route_calls.swap_first_two)
_FlipsABit = _returning(route_calls.flip_low_bit)


@pytest.mark.parametrize(
    ("wrong", "target", "item"),
    [
        (_SwapsOutputs, NATIVE, "doc-vsplit-lengths-1-2-3::openvino.VariadicSplit-1"),
        (_FlipsABit, NATIVE, "special-bfloat16-parts::openvino.Split-1"),
        (_FlipsABit, ONNX, "doc-split1-num-splits-3::onnx.Split-13"),
        (_SwapsOutputs, PYTORCH, "doc-readme-torch-split-list::torch.split"),
    ],
)
def test_wrong_outputs_fail(
    wrong: type[OpenVINOAdapter], target: Target, cases: dict[str, Case], item: str
) -> None:
    pytest.importorskip({"onnx": "onnx", "pytorch": "torch"}.get(target.route, "openvino"))
    assert _run(wrong({}), target, cases, item)[0] == "fail"


@pytest.mark.parametrize(
    ("target", "item", "reason"),
    [
        (NATIVE, "special-string-parts::openvino.Split-1", "trailing NUL"),
    ],
)
def test_unsupported_with_reason(
    adapter: OpenVINOAdapter, cases: dict[str, Case], target: Target, item: str, reason: str
) -> None:
    status, message = _run(adapter, target, cases, item)
    assert status == "unsupported"
    assert reason in message


@pytest.mark.parametrize(
    ("target", "item", "issue"),
    [
        (ONNX, "dtype-complex64-lengths::onnx.Split-13", "onnx-fe-complex-refused"),
        (PYTORCH, "dtype-complex128-size::torch.split", "pytorch-fe-complex-example-input"),
    ],
)
def test_complex_data_reaches_the_frontend(
    adapter: OpenVINOAdapter, cases: dict[str, Case], target: Target, item: str, issue: str
) -> None:
    """OpenVINO has no complex element type, but a model file or an example input can still hold
    complex data: the frontend's refusal is judged, and claimed by its known issue."""
    pytest.importorskip({"onnx": "onnx", "pytorch": "torch"}[target.route])
    case_id, op = item.split("::")
    result = run_item(adapter, target, cases[case_id], op, repeat=0)
    assert (result.status, result.actual["raised"]["origin"]) == ("error", "backend"), result.message
    issues = known_issues.shipped("openvino", "conformance_openvino:OpenVINOAdapter")
    claimed = known_issues.apply(result, issues)
    assert (claimed.status, claimed.known_issue and claimed.known_issue["id"]) == ("xfail", issue)


@pytest.mark.parametrize(
    ("case_id", "issue"),
    [
        ("graph-dynamic-lengths", "torch-export-lengths-pin-dynamic-dim"),
        ("graph-dynamic-lengths-impossible", None),  # lengths that miss the dim: the spec rejects them too
    ],
)
def test_torch_export_hands_lengths_on_a_dynamic_dim_to_export(
    adapter: OpenVINOAdapter, cases: dict[str, Case], case_id: str, issue: str | None
) -> None:
    """The dim is exported Dim.DYNAMIC as the case declares it: torch.export's refusal (the lengths
    pin the dim to their sum) is judged, never declared unsupported by the adapter."""
    pytest.importorskip("torch")
    result = run_item(adapter, TORCH_EXPORT, cases[case_id], "torch.split", repeat=0)
    assert (result.actual["raised"]["origin"], result.actual["raised"]["phase"]) == ("backend", "build")
    if issue is None:
        assert result.status == "pass", result.message
        return
    assert (result.status, result.actual["raised"]["type"]) == ("error", "UserError"), result.message
    assert "Constraints violated" in result.actual["raised"]["message"]
    issues = known_issues.shipped("openvino", "conformance_openvino:OpenVINOAdapter")
    assert_claimed_by(result, issues, issue)


@pytest.mark.parametrize(
    ("target", "item", "issue"),
    [
        (
            NATIVE,
            "slice-edge-clamp-backward-start-before-front::openvino.Slice-8",
            "slice8-backward-start-clamped-to-zero",
        ),
        (
            NATIVE,
            "slice-graph-runs-bounds-change::openvino.Slice-8",
            "cpu-64bit-runtime-slice-indices-narrowed",
        ),
        (
            NATIVE,
            "slice-strided-dynamic-shrink::openvino.StridedSlice-1",
            "strided-dynamic-shrink-index-clamped",
        ),
        (ONNX, "slice-graph-index-uint8::onnx.Slice-13", "onnx-fe-slice-index-type-unchecked"),
        (ONNX, "slice-edge-nothing-sliced::onnx.Slice-13", "onnx-fe-slice-empty-starts-refused"),
        (PYTORCH, "slice-doc-narrow-tensor-start::torch.narrow", "pytorch-fe-narrow-negative-start-to-end"),
        (
            PYTORCH,
            "slice-sizes-runtime-start-int32::torch.narrow",
            "pytorch-fe-narrow-start-tensor-not-int64",
        ),
        (
            TORCH_EXPORT,
            "slice-sizes-dynamic-runs::torch.narrow",
            "torch-fe-narrow-window-unchecked-on-dynamic-dim",
        ),
        (TENSORFLOW, "slice-doc-tf-slice-range-required::tensorflow.slice", "tf-fe-slice-range-unchecked"),
        (
            TENSORFLOW,
            "slice-strided-backward-begin-below-front::tensorflow.strided_slice",
            "tf-fe-strided-backward-begin-clamped-to-zero",
        ),
        (TFLITE, "slice-sizes-zero-size::tensorflow.slice", "tflite-fe-constant-outputs-dropped"),
        (TFLITE, "slice-sizes-dynamic-runs::tensorflow.slice", "tf-fe-slice-range-unchecked"),
    ],
)
def test_a_slice_departure_stays_xfail(
    adapter: OpenVINOAdapter, cases: dict[str, Case], target: Target, item: str, issue: str
) -> None:
    """Departures that end without a crash (those run in this process), each claimed by its entry."""
    _needs(target)
    case_id, op = item.split("::")
    result = run_item(adapter, target, cases[case_id], op, repeat=0)
    assert result.status in ("fail", "error"), result.message
    assert_claimed_by(result, known_issues.shipped("openvino", "conformance_openvino:OpenVINOAdapter"), issue)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("target", "item"),
    [
        (PYTORCH, "slice-doc-narrow-dim1::torch.narrow"),
        (PYTORCH, "slice-doc-torch-view-slicing::torch.Tensor.__getitem__"),
        (TORCH_EXPORT, "slice-doc-narrow-dim0::torch.narrow"),
        (TORCH_EXPORT, "slice-doc-onnx-neg-steps::torch.Tensor.__getitem__"),
        (TENSORFLOW, "slice-doc-tf-slice-size-minus1::tensorflow.slice"),
        (TENSORFLOW, "slice-doc-tf-strided-new-axis::tensorflow.strided_slice"),
        (TFLITE, "slice-doc-tf-slice-1::tensorflow.slice"),
        (TFLITE, "slice-doc-tf-strided-shrink::tensorflow.strided_slice"),
        # folded by the converter to the data itself: the input is still fed (by its tensor's name)
        (TFLITE, "slice-strided-past-int32::tensorflow.strided_slice"),
    ],
)
def test_a_converting_route_passes_slice_items(
    adapter: OpenVINOAdapter, cases: dict[str, Case], target: Target, item: str
) -> None:
    """Each route that converts a framework's model takes that framework's Slice ops (doc examples)."""
    _needs(target)
    status, message = _run(adapter, target, cases, item)
    assert status == "pass", message


@pytest.mark.parametrize(
    ("case_id", "issue"),
    [
        ("slice-graph-runtime-axes-only", "cpu-slice-runtime-axes-only-segv"),
        ("slice-graph-runtime-starts-only", None),  # axes constant: the crash needs axes alone at run time
        ("slice-graph-runtime-int64", None),  # every input fed: runs right
    ],
)
def test_a_slice_crash_is_claimed_by_where_its_inputs_live(
    cases: dict[str, Case], case_id: str, issue: str | None
) -> None:
    """The axes-only crash is selected by each input's placement (never run here: it kills the process)."""
    made = answered(cases[case_id], "openvino.Slice-8")
    crashed = bare_result(cases[case_id], "openvino.Slice-8", NATIVE, "the worker died", "crash", made=made)
    claimed = known_issues.apply(
        crashed, known_issues.shipped("openvino", "conformance_openvino:OpenVINOAdapter")
    )
    assert (claimed.known_issue or {}).get("id") == issue, claimed.message


@pytest.mark.slow
@pytest.mark.parametrize(
    ("target", "item"),
    [
        (NATIVE, "slice-graph-runs-int32-sentinels::openvino.Slice-8"),
        (NATIVE, "slice-strided-runs-masked-end::openvino.StridedSlice-1"),
        # narrow's start fed at run time; its third run (start -1) is a departure the snippet shows
        (PYTORCH, "slice-sizes-runs-start::torch.narrow"),
        (TORCH_EXPORT, "slice-doc-torch-view-slicing::torch.Tensor.__getitem__"),
        (TENSORFLOW, "slice-strided-runs-masked-end::tensorflow.strided_slice"),
        (TFLITE, "slice-strided-runs-masked-end::tensorflow.strided_slice"),
    ],
)
def test_a_slice_reproducer_prints_what_the_route_returned(
    adapter: OpenVINOAdapter, cases: dict[str, Case], tmp_path: Path, target: Target, item: str
) -> None:
    """The route's snippet, alone in a fresh interpreter with only OpenVINO and the framework it
    converts from, builds the same model: one line of output shapes per run, those the route
    returned (the reference's where the item passes)."""
    _needs(target)
    case_id, op = item.split("::")
    result = run_item(adapter, target, cases[case_id], op, repeat=0)
    assert result.status in ("pass", "fail"), result.message
    body = route_calls.snippet(target, make_task(cases[case_id], op, fill=rerun.snippet_data))
    assert body is not None
    assert "conformance" not in body  # OpenVINO and the framework alone
    script = tmp_path / "reproduce.py"
    script.write_text(rerun.header(item, target, "test") + body, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-2000:]
    printed = [ast.literal_eval(line) for line in done.stdout.splitlines() if line.startswith("[(")]
    runs = [run["actual"] for run in result.runs] if result.runs else [result.actual]
    assert printed == [[tuple(output["shape"]) for output in actual["outputs"]] for actual in runs]


def test_info_reports_the_installed_openvino(adapter: OpenVINOAdapter) -> None:
    info = adapter.info()
    assert info.version == metadata.version("openvino")
    assert ov.__version__.startswith(info.version)
    assert info.options["build"] == ov.get_version()
    assert info.options["inference_precision"] == "f32"
    assert adapter.config("CPU")["INFERENCE_PRECISION_HINT"] == "f32"
    assert info.options["cpu_pinning"] == "NO"
    assert adapter.config("CPU")["ENABLE_CPU_PINNING"] == "NO"
    assert "ENABLE_CPU_PINNING" not in adapter.config("AUTO:CPU")  # the CPU plugin's own property
    assert "SequenceAt" in info.options["onnx_sequence_consumer"]
    assert [(route.name, route.default) for route in info.routes] == [
        ("native", True),
        ("onnx", True),
        ("pytorch", False),
        ("torch-export", False),
        ("tensorflow", False),
        ("tflite", False),
    ]
    assert info.devices == ("CPU",)


@pytest.mark.slow
def test_options_are_checked() -> None:
    with pytest.raises(UsageError, match="not available"):
        OpenVINOAdapter({"device": "NO_SUCH_DEVICE"})
    with pytest.raises(UsageError, match="INFERENCE_PRECISION_HINT"):
        OpenVINOAdapter({"properties": "INFERENCE_PRECISION_HINT=bf16"})
    with pytest.raises(UsageError, match="unknown option"):
        OpenVINOAdapter({"precision": "f32"})
    adapter = OpenVINOAdapter({"properties": "NUM_STREAMS=1; PERF_COUNT=NO"})
    assert adapter.config("CPU") == {
        "NUM_STREAMS": "1",
        "PERF_COUNT": "NO",
        "INFERENCE_PRECISION_HINT": "f32",
        "ENABLE_CPU_PINNING": "NO",
    }
    assert adapter.info().options["properties"] == "NUM_STREAMS=1;PERF_COUNT=NO"
    pinned = OpenVINOAdapter({"properties": "ENABLE_CPU_PINNING=YES"})
    assert pinned.config("CPU")["ENABLE_CPU_PINNING"] == "YES"
    assert pinned.info().options["cpu_pinning"] == "YES"


def test_a_compiled_cpu_model_runs_unpinned(adapter: OpenVINOAdapter) -> None:
    """What the plugin itself reports for a model the adapter compiles: the property is taken."""
    compiled = ov.Core().compile_model(_tiny_model(), "CPU", adapter.config("CPU"))
    assert compiled.get_property("ENABLE_CPU_PINNING") is False
    assert compiled.get_property("INFERENCE_PRECISION_HINT") == ov.Type.f32


def _tiny_model() -> ov.Model:
    """A Split of a [4, 6] float tensor along its last axis into two parts."""
    data = ov.opset1.parameter([4, 6], np.float32)
    split = ov.opset1.split(data, ov.opset1.constant(np.int64(1)), 2)
    return ov.Model(split.outputs(), [data])


def test_registered_entry_point_and_known_issues() -> None:
    loaded = load("openvino")
    assert isinstance(loaded.adapter, OpenVINOAdapter)
    issues = known_issues.shipped("openvino", loaded.import_path)
    assert issues, "known_issues.yaml ships with the package"
    assert len({issue.id for issue in issues}) == len(issues)


def test_known_issue_turns_a_finding_into_xfail(adapter: OpenVINOAdapter, cases: dict[str, Case]) -> None:
    result = run_item(
        adapter, NATIVE, cases["axis-dtype-float32-vsplit"], "openvino.VariadicSplit-1", repeat=0
    )
    assert result.status == "fail"  # VariadicSplit accepts a float axis
    issues = known_issues.shipped("openvino", "conformance_openvino:OpenVINOAdapter")
    assert known_issues.apply(result, issues).status == "xfail"


def test_strings_cross_the_bindings_exactly() -> None:
    """Embedded NULs, empty strings and non-ASCII text survive to_tensor / from_tensor."""
    from conformance_openvino.tensors import from_tensor, to_tensor

    strings = np.array(["a\x00b", "", "é字🙂", "<x>"], dtype=object).reshape(2, 2)
    back = from_tensor(to_tensor(strings))
    assert back.dtype == object
    assert back.tolist() == strings.tolist()
