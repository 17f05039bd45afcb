"""The targets off the default run: the conversion routes (torch-onnx on ONNX Runtime, torch-export
on OpenVINO, torch.compile) and OpenVINO's virtual devices. Each judges real items in-process,
including one of its known bugs, which its known-issues entry must claim by meaning; and the
planner leaves them out unless a --target selects them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("openvino")
pytest.importorskip("onnxruntime")
pytest.importorskip("torch")
pytest.importorskip("onnxscript")

from conformance.corpus.loader import Suite, load_paths
from conformance.engine.item import run_item
from conformance.loading import registry
from conformance.plugin import Target
from conformance.run.planning import RunConfig, plan
from conformance.verdict import known_issues

CASES = Path(__file__).resolve().parents[2] / "cases"

#: off the default run: `nox -s tests` leaves this module out, `-m extra_targets` selects it
pytestmark = [
    pytest.mark.extra_targets,
    pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning", "ignore::FutureWarning"),
]


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_paths([CASES])


def _judge(
    suite: Suite, adapter: str, target: str, item: str, options: dict[str, str] | None = None
) -> tuple[str, str]:
    loaded = registry.load(adapter, options or {})
    name, route, device = target.split("/")
    case_id, op = item.split("::")
    result = run_item(loaded.adapter, Target(name, route, device), suite.by_id(case_id), op, repeat=0)
    issues = known_issues.shipped(adapter, loaded.import_path)
    judged = known_issues.apply(result, issues)
    return judged.status, (judged.known_issue or {}).get("id") or judged.message


@pytest.mark.parametrize(
    ("adapter", "target", "item", "expected"),
    [
        ("torch", "torch/compile/cpu", "doc-readme-chunk-6-into-4-values::torch.chunk", "pass"),
        (
            "torch",
            "torch/compile/cpu",
            "runs-dynamic-parts-3::torch.tensor_split",
            "pass",
        ),  # recompiles per shape
        (
            "torch",
            "torch/compile/cpu",
            "lengths-sum-one-short::torch.split",
            "pass",
        ),  # refused, as it must be
        (
            "onnxruntime",
            "onnxruntime/torch-onnx/cpu",
            "doc-readme-chunk-6-into-4-values::torch.chunk",
            "pass",
        ),
        ("onnxruntime", "onnxruntime/torch-onnx/cpu", "lengths-sum-one-short::torch.split", "pass"),
        ("onnxruntime", "onnxruntime/torch-onnx/cpu", "runs-dynamic-parts-3::torch.tensor_split", "xfail"),
        ("openvino", "openvino/torch-export/CPU", "doc-readme-indices-unsorted::torch.tensor_split", "pass"),
        ("openvino", "openvino/torch-export/CPU", "runs-dynamic-parts-3::torch.tensor_split", "xfail"),
        ("openvino", "openvino/torch-export/CPU", "dtype-uint16-parts::torch.chunk", "xfail"),
    ],
)
@pytest.mark.slow
def test_conversion_routes_judge_real_items(
    suite: Suite, adapter: str, target: str, item: str, expected: str
) -> None:
    status, detail = _judge(suite, adapter, target, item)
    assert status == expected, detail


@pytest.mark.slow
@pytest.mark.parametrize("device", ["AUTO", "HETERO:CPU", "MULTI:CPU"])
def test_virtual_devices_run_with_f32_pinned(suite: Suite, device: str) -> None:
    options = {"device": f"CPU,{device}"}
    loaded = registry.load("openvino", options)
    assert f"openvino/native/{device}" in [target.id for target in loaded.targets()]
    assert loaded.adapter.config(device)["INFERENCE_PRECISION_HINT"] == "f32"  # type: ignore[attr-defined]
    status, detail = _judge(
        suite,
        "openvino",
        f"openvino/native/{device}",
        "special-float32-values-inf-nan-zero::openvino.VariadicSplit-1",
        options,
    )
    assert status == "pass", detail


def test_hetero_returns_an_extra_output_and_its_known_issue_claims_it(suite: Suite) -> None:
    options = {"device": "HETERO:CPU"}
    status, detail = _judge(
        suite,
        "openvino",
        "openvino/native/HETERO:CPU",
        "lengths-empty-list-empty-dim::openvino.VariadicSplit-1",
        options,
    )
    assert (status, detail) == ("xfail", "hetero-extra-output")


@pytest.mark.slow
def test_routes_off_the_default_run_are_planned_only_when_a_target_selects_them(tmp_path: Path) -> None:
    base = {
        "case_paths": (str(CASES),),
        "adapters": ("torch", "onnxruntime"),
        "items": ("doc-readme-chunk-6-into-4-values::torch.chunk",),
        "out": tmp_path,
    }
    default = {job.target.id for job in plan(RunConfig(**base)).jobs}  # type: ignore[arg-type]
    assert default == {"torch/eager/cpu"}
    chosen = {job.target.id for job in plan(RunConfig(**base, targets=("*/torch-onnx/*", "torch/*"))).jobs}  # type: ignore[arg-type]
    assert chosen == {
        "torch/eager/cpu",
        "torch/export/cpu",
        "torch/compile/cpu",
        "onnxruntime/torch-onnx/cpu",
    }


@pytest.mark.slow
def test_conformance_adapters_marks_the_routes_off_the_default_run() -> None:
    listing = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "adapters"],
        capture_output=True,
        text=True,
        timeout=900,  # a hang guard: it imports every backend, which took over 120 s on a loaded machine
        check=True,
    ).stdout
    assert (
        "route torch-onnx: torch.split, torch.tensor_split, torch.chunk, torch.hsplit, torch.vsplit, "
        "torch.dsplit, torch.narrow, torch.Tensor.__getitem__  [not in the default run" in listing
    )
    assert "route torch-export:" in listing and "route compile:" in listing
    assert "route shape-inference:" in listing
