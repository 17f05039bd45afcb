"""ONNX's own tools as a backend: the reference evaluator judged on values, the checker with shape
inference judged on acceptance and shapes only, and proofs that each judgement is live."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from claims import assert_every_failure_claimed, raw_run

onnx = pytest.importorskip("onnx")
pytest.importorskip("conformance_onnx")

from conformance_onnx import OnnxToolsAdapter  # noqa: E402
from route_calls import with_outputs  # noqa: E402

from conformance.corpus.loader import Suite, load_paths  # noqa: E402
from conformance.engine.item import make_task, run_item  # noqa: E402
from conformance.errors import UsageError  # noqa: E402
from conformance.loading import registry  # noqa: E402
from conformance.loading.hooks import Hooks  # noqa: E402
from conformance.plugin import Target  # noqa: E402
from conformance.verdict import known_issues  # noqa: E402

CASES = Path(__file__).resolve().parents[2] / "cases"
REFERENCE = Target("onnx", "reference", "cpu")
SHAPES = Target("onnx", "shape-inference", "cpu")

PASSING = [
    "doc-vsplit-lengths-1-2-3::onnx.Split-13",
    "doc-onnx18-10-into-3::onnx.Split-18",
    "onnx-node-split-variable-parts-2d::onnx.Split-2",
    "lengths-sum-one-short::onnx.Split-13",  # refused by the checker; refused by nobody on reference
    "dtype-bfloat16-lengths::onnx.Split-13",
]


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_paths([CASES])


def _run(adapter: OnnxToolsAdapter | Hooks, suite: Suite, target: Target, item: str) -> tuple[str, str, str]:
    case_id, op = item.split("::")
    judged = "shapes" if target.route == "shape-inference" else "values"
    result = run_item(adapter, target, suite.by_id(case_id), op, repeat=0, judged=judged)
    return result.status, result.message, result.judged


def test_info_lists_both_routes_and_the_installed_onnx() -> None:
    info = OnnxToolsAdapter({}).info()
    assert info.version == onnx.__version__ and info.backend == "onnx"
    assert [(route.name, route.judged) for route in info.routes] == [
        ("reference", "values"),
        ("shape-inference", "shapes"),
    ]
    with pytest.raises(UsageError, match="unknown option"):
        OnnxToolsAdapter({"providers": "x"})


@pytest.mark.slow
@pytest.mark.parametrize("item", PASSING[:3] + PASSING[4:])
def test_valid_items_pass_on_the_reference_evaluator_bit_for_bit(suite: Suite, item: str) -> None:
    status, message, judged = _run(OnnxToolsAdapter({}), suite, REFERENCE, item)
    assert (status, judged) == ("pass", "values"), message
    assert "bit for bit" in message


@pytest.mark.parametrize("item", PASSING)
def test_the_checker_is_judged_on_shapes_and_says_so(suite: Suite, item: str) -> None:
    status, message, judged = _run(OnnxToolsAdapter({}), suite, SHAPES, item)
    assert (status, judged) == ("pass", "shapes"), message
    if "rejected" not in message:
        assert "values not judged" in message


def _negated(outputs: list[np.ndarray]) -> list[np.ndarray]:
    """The right shapes with every value negated: a wrong answer only values can show."""
    return [np.negative(np.asarray(output, dtype=np.float32)) for output in outputs]


def _one_element(outputs: list[np.ndarray]) -> list[np.ndarray]:
    return [np.zeros((1,), dtype=np.float32) for _ in outputs]


def test_values_are_judged_on_the_reference_route_only(suite: Suite) -> None:
    item = "doc-vsplit-lengths-1-2-3::onnx.Split-13"
    wrong_values = with_outputs(OnnxToolsAdapter({}), _negated)
    assert _run(wrong_values, suite, REFERENCE, item)[0] == "fail"
    assert _run(wrong_values, suite, SHAPES, item)[0] == "pass"
    assert _run(with_outputs(OnnxToolsAdapter({}), _one_element), suite, SHAPES, item)[0] == "fail"


@pytest.mark.parametrize(
    ("case_id", "op", "reason"),
    [
        ("graph-runtime-lengths", "onnx.Split-13", "graph input"),
        ("graph-dynamic-parts", "onnx.Split-13", "declared unknown"),
        ("runs-new-data-static", "onnx.Split-13", "several times"),
        ("doc-vsplit-lengths-1-2-3", "onnx.Split-1", "no shape inference for Split-1"),
    ],
)
def test_what_a_checker_cannot_state_is_unsupported_with_the_reason(
    suite: Suite, case_id: str, op: str, reason: str
) -> None:
    refusal = registry.load("onnx").hooks.unsupported(make_task(suite.by_id(case_id), op), SHAPES)
    assert refusal is not None and reason in refusal.reason


@pytest.mark.slow
@pytest.mark.covered_by_main_job  # the main job's test checks it whole: see noxfile.py tests
def test_every_non_pass_is_a_known_issue_and_no_entry_is_stale(tmp_path: Path) -> None:
    issues = known_issues.shipped("onnx", "conformance_onnx:OnnxToolsAdapter")
    assert issues, "known_issues.yaml is not shipped with the package"
    results = raw_run(tmp_path, "onnx")  # through workers: one node aborts the checker
    assert {r.judged for r in results if r.route == "shape-inference"} == {"shapes"}
    assert_every_failure_claimed(results, issues)
