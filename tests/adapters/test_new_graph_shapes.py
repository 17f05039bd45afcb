"""Every route of every built-in adapter meets each graph shape the format's additions can state:
inputs placed one by one, runs on one built model (new runtime values, new shapes, new data),
nodes declaring another output count, 64-bit values fed at run time. Each result is built and
judged (a pass, or a known issue claiming it by meaning) or declared unsupported with a reason;
nothing is an adapter defect. Run through workers, since one of these aborts ONNX Runtime.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

pytest.importorskip("openvino")
pytest.importorskip("onnxruntime")
pytest.importorskip("torch")

from conformance.results.result import Result
from conformance.run.planning import RunConfig, plan
from conformance.run.runner import execute
from conformance.statuses import GREEN

CASES = Path(__file__).resolve().parents[2] / "cases"

#: The new graph shapes, each by corpus cases that state it.
SHAPES: dict[str, tuple[str, ...]] = {
    "lengths at run time, axis constant": ("inputs-lengths-runtime", "inputs-lengths-runtime-dynamic"),
    "axis at run time, lengths constant": (
        "inputs-axis-runtime-vsplit",
        "inputs-axis-runtime-split1-not-divisible",
    ),
    "runs changing runtime lengths": ("runs-lengths-change", "runs-lengths-refused-then-valid"),
    "runs changing a runtime axis": ("runs-axis-change-split1", "runs-axis-change-vsplit"),
    "runs at other shapes": ("runs-dynamic-parts-3", "runs-dynamic-size-2", "runs-dynamic-indices"),
    "runs with new data": ("runs-new-data-static",),
    "declared outputs": (
        "malformed-lengths-more-outputs",
        "malformed-num-outputs-more",
        "malformed-declared-matches",
    ),
    "64-bit values at run time": ("edges-lengths-wrap32-runtime", "edges-axis-2-32-runtime"),
}

#: Routes and the shapes their ops can state (numpy ops take no runtime input and no dynamic dims).
ROUTES: dict[str, set[str]] = {
    "openvino/native/CPU": set(SHAPES) - {"declared outputs"},
    "openvino/onnx/CPU": set(SHAPES) - {"axis at run time, lengths constant", "runs changing a runtime axis"},
    "openvino/pytorch/CPU": {"runs at other shapes", "runs with new data"},
    "onnxruntime/default/cpu": set(SHAPES)
    - {"axis at run time, lengths constant", "runs changing a runtime axis"},
    "torch/eager/cpu": {"runs at other shapes", "runs with new data"},
    "torch/export/cpu": {"runs at other shapes", "runs with new data"},
    "numpy/numpy/cpu": {"runs with new data"},
    "numpy/emulated/cpu": set(SHAPES),
}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> list[Result]:
    out = tmp_path_factory.mktemp("shapes")
    wanted = sorted({case for cases in SHAPES.values() for case in cases})
    config = RunConfig(
        case_paths=(str(CASES),),
        adapters=("numpy", "onnxruntime", "openvino", "torch"),
        targets=tuple(ROUTES),
        keyword=" or ".join(wanted),
        repeat=0,
        jobs=2,
        out=out,
        junit=False,
    )
    return [r for r in execute(plan(config), config).results if r.case in wanted]


@pytest.mark.slow
def test_each_route_builds_each_new_shape_or_says_why_not(results: list[Result]) -> None:
    by_route: dict[str, dict[str, list[Result]]] = defaultdict(lambda: defaultdict(list))
    for result in results:
        for shape, cases in SHAPES.items():
            if result.case in cases:
                by_route[result.target_id][shape].append(result)
    for route, shapes in ROUTES.items():
        for shape in shapes:
            found = by_route[route][shape]
            assert found, f"{route}: no result for {shape}"
            judged = [r for r in found if r.status != "unsupported"]
            assert judged, f"{route}: every {shape} item is unsupported: {[r.message for r in found]}"


@pytest.mark.slow
def test_every_result_is_green_and_no_adapter_defect(results: list[Result]) -> None:
    for result in results:
        assert result.status in GREEN, (result.key, result.status, result.message)
        assert "adapter defect" not in result.message, (result.key, result.message)
        if result.status == "unsupported":
            assert result.message.strip(), result.key


@pytest.mark.slow
def test_results_of_cases_with_runs_carry_every_run(results: list[Result]) -> None:
    with_runs = [
        r for r in results if r.case.startswith("runs-") and r.status not in ("unsupported", "crash")
    ]
    assert with_runs
    for result in with_runs:
        assert len(result.runs) >= 2, result.key
        assert result.run is not None and 1 <= result.run <= len(result.runs)
        assert (
            result.runs[result.run - 1]["status"] in (result.status, "fail", "error")
            or result.status == "xfail"
        )
