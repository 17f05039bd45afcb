"""The routes that convert the suite's TensorFlow function for another backend: OpenVINO's TensorFlow
frontend (openvino/tensorflow), its TensorFlow Lite frontend reading the LiteRT flatbuffer
(openvino/tflite) and tf2onnx feeding ONNX Runtime (onnxruntime/tf2onnx).

Each must pass a document's example, feed runtime inputs by name and run a converted model at other
shapes, leave a refusal to the backend (judged, never an adapter defect), and have its known issues
claim the departures found on the whole corpus by meaning. Items known to abort the process (string
splits on the CPU plugin, TensorFlow's int8 sizes) are never run here: this process would not survive.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("tensorflow")
pytest.importorskip("openvino")
pytest.importorskip("onnxruntime")

from route_calls import snippet

from conformance.corpus.loader import Suite, load_paths
from conformance.engine.item import make_task, run_item
from conformance.loading import registry
from conformance.oracle.reference import Pieces, SplitRequest, answer
from conformance.plugin import Target
from conformance.results.result import Result
from conformance.run import rerun
from conformance.run.planning import RunConfig, plan
from conformance.verdict import known_issues

CASES = Path(__file__).resolve().parents[2] / "cases"
OV_TF = "openvino/tensorflow/CPU"
OV_TFLITE = "openvino/tflite/CPU"
TF2ONNX = "onnxruntime/tf2onnx/cpu"

pytestmark = [
    # off the default run: `nox -s tests` leaves this module out, `-m extra_targets` selects it
    pytest.mark.extra_targets,
    # complex data is handed to OpenVINO's infer, which casts it to the float32 its frontend declared
    pytest.mark.filterwarnings(
        "ignore::DeprecationWarning",
        "ignore::UserWarning",
        "ignore::FutureWarning",
        "ignore::numpy.exceptions.ComplexWarning",
    ),
]


def _needs(target: str) -> None:
    """Skip a target whose converter is not installed (tf2onnx, or LiteRT's schema)."""
    if target == TF2ONNX:
        pytest.importorskip("tf2onnx")
    if target == OV_TFLITE:
        pytest.importorskip("ai_edge_litert")


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_paths([CASES])


def _result(suite: Suite, target: str, item: str) -> Result:
    """The item run in this process on ``target``, its adapter's known issues applied."""
    _needs(target)
    adapter, route, device = target.split("/")
    loaded = registry.load(adapter, {})
    case_id, op = item.split("::")
    raw = run_item(loaded.adapter, Target(adapter, route, device), suite.by_id(case_id), op, repeat=0)
    return known_issues.apply(raw, known_issues.shipped(adapter, loaded.import_path))


@pytest.mark.parametrize(
    ("target", "item"),
    [
        # the documents' examples
        (OV_TF, "tf-doc-split-sizes-4-15-11::tensorflow.split"),
        (OV_TF, "doc-split1-num-splits-3::tensorflow.experimental.numpy.split"),
        (OV_TFLITE, "tf-doc-split-sizes-4-15-11::tflite.SPLIT_V"),  # outputs reordered by the signature
        (OV_TFLITE, "tf-doc-split-3-axis1::tflite.SPLIT"),
        (OV_TFLITE, "tf-doc-split-3-axis1::tensorflow.split"),
        (TF2ONNX, "tf-doc-split-sizes-4-15-11::tensorflow.split"),
        (TF2ONNX, "doc-split1-num-splits-3::tensorflow.experimental.numpy.split"),
        # runtime inputs fed by name, dynamic dims, further runs at other shapes and values
        (OV_TF, "runs-lengths-change::tensorflow.split"),
        (OV_TF, "graph-dynamic-lengths-minus1::tensorflow.split"),
        (OV_TFLITE, "graph-runtime-lengths::tflite.SPLIT_V"),  # inputs axis, lengths, data in the file
        (OV_TFLITE, "graph-dynamic-parts::tflite.SPLIT"),
        (TF2ONNX, "runs-new-data-static::tensorflow.split"),
        (TF2ONNX, "inputs-lengths-runtime-dynamic::tensorflow.split"),  # sizes an input, axis constant
        # more than ten outputs: the signature's order, not the file's
        (OV_TFLITE, "lengths-sixteen-ones::tflite.SPLIT_V"),
        (TF2ONNX, "lengths-sixteen-ones::tensorflow.split"),
    ],
)
@pytest.mark.slow
def test_the_routes_pass_examples_and_runtime_inputs(suite: Suite, target: str, item: str) -> None:
    result = _result(suite, target, item)
    assert result.status == "pass", result.message


@pytest.mark.slow
@pytest.mark.parametrize(
    ("target", "item"),
    [
        (
            OV_TF,
            "graph-dynamic-parts-uneven::tensorflow.split",
        ),  # the CPU plugin refuses 7 into 3 at run time
        (OV_TFLITE, "graph-dynamic-parts-impossible::tflite.SPLIT"),
        (TF2ONNX, "lengths-sum-one-short::tensorflow.split"),
    ],
)
def test_a_refusal_is_the_backends_and_passes_when_the_spec_rejects(
    suite: Suite, target: str, item: str
) -> None:
    result = _result(suite, target, item)
    assert result.defect is None, result.message
    assert result.status == "pass", result.message
    assert "rejected as the spec requires" in result.message


@pytest.mark.slow
@pytest.mark.parametrize(
    ("target", "item", "issue"),
    [
        (OV_TF, "dtype-complex64-lengths::tensorflow.split", "tf-fe-complex-as-f32"),
        (OV_TF, "dtype-bfloat16-parts::tensorflow.split", "tf-fe-dtype-without-numpy-type-as-f32"),
        (OV_TF, "lengths-sixteen-ones::tensorflow.split", "tf-fe-outputs-ordered-by-name"),
        (OV_TFLITE, "count-empty-dim-into-3::tensorflow.split", "tflite-fe-constant-outputs-dropped"),
        (OV_TFLITE, "dtype-float16-parts::tensorflow.split", "converter-no-builtin-for-dtype"),
        (TF2ONNX, "graph-runtime-axis-split1::tensorflow.split", "tf2onnx-runtime-axis-not-converted"),
        (TF2ONNX, "dtype-bfloat16-lengths::tensorflow.split", "tf2onnx-bfloat16-as-float16"),
        (TF2ONNX, "graph-dynamic-lengths-minus1::tensorflow.split", "tf2onnx-minus1-size-unresolved"),
        (TF2ONNX, "dtype-complex64-lengths::tensorflow.split", "complex-tensor-type-not-registered"),
    ],
)
def test_departures_are_backend_findings_claimed_by_meaning(
    suite: Suite, target: str, item: str, issue: str
) -> None:
    result = _result(suite, target, item)
    assert result.defect is None, result.message  # the backend's answer, not the adapter's
    assert (result.status, (result.known_issue or {}).get("id")) == ("xfail", issue), result.message


@pytest.mark.slow
@pytest.mark.parametrize(
    ("target", "item"),
    [
        (OV_TF, "runs-new-data-static::tensorflow.split"),
        (OV_TFLITE, "graph-runtime-lengths::tflite.SPLIT_V"),
        (TF2ONNX, "runs-new-data-static::tensorflow.split"),
    ],
)
def test_the_snippet_runs_alone_and_gives_the_reference_shapes(
    tmp_path: Path, suite: Suite, target: str, item: str
) -> None:
    _needs(target)
    adapter, route, device = target.split("/")
    case_id, op = item.split("::")
    case = suite.by_id(case_id)
    body = snippet(Target(adapter, route, device), make_task(case, op, fill=rerun.snippet_data))
    assert body, f"{target} wrote no reproducer"
    script = tmp_path / "reproduce.py"
    script.write_text(rerun.header(item, Target(adapter, route, device), "test") + body, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith(("[(", "[]"))]
    printed = [[tuple(shape) for shape in ast.literal_eval(line)] for line in lines]
    expected = []
    for run in case.all_runs:
        pieces = answer(op, SplitRequest.of_run(case, run)).outcome
        assert isinstance(pieces, Pieces)
        expected.append(list(pieces.shapes(run.data.shape)))
    assert printed == expected


@pytest.mark.slow
def test_the_conversion_routes_are_planned_only_when_a_target_selects_them(tmp_path: Path) -> None:
    base = {
        "case_paths": (str(CASES),),
        "adapters": ("openvino", "onnxruntime"),
        "items": ("tf-doc-split-3-axis1::tensorflow.split", "tf-doc-split-3-axis1::tflite.SPLIT"),
        "out": tmp_path,
    }
    assert not plan(RunConfig(**base)).jobs  # type: ignore[arg-type]
    chosen = plan(RunConfig(**base, targets=("openvino/tensorflow/*", "openvino/tflite/*", "*/tf2onnx/*")))  # type: ignore[arg-type]
    assert {(job.target.id, job.op) for job in chosen.jobs} == {
        (OV_TF, "tensorflow.split"),
        (OV_TFLITE, "tensorflow.split"),
        (OV_TFLITE, "tflite.SPLIT"),
        (TF2ONNX, "tensorflow.split"),
    }


@pytest.mark.slow
def test_info_records_the_converters() -> None:
    pytest.importorskip("tf2onnx")
    ort = registry.load("onnxruntime", {}).adapter.info()
    assert ort.options["tf2onnx_opset"] == "18" and ort.options["tf2onnx_version"]
    openvino = registry.load("openvino", {}).adapter.info()
    assert openvino.options["tensorflow_version"] != "not installed"
