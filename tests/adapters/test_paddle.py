"""The paddle adapter: PaddlePaddle's split functions, eager and traced by paddle.jit.to_static.

Every item runs in the suite's workers (Paddle aborts the process on some requests): a pass proves
the route hands the request over as the case states it, a finding is claimed by its known issue,
an abort costs one result, and a reproducer redoes a finding with Paddle alone.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from claims import assert_every_failure_claimed, raw_run

if importlib.util.find_spec("paddle") is None:  # found, not imported: backends stay out of this process
    pytest.skip("paddle is not installed", allow_module_level=True)
pytest.importorskip("conformance_paddle")

from conformance.plugin import Target
from conformance.results.result import Result
from conformance.verdict import known_issues

ISSUES = known_issues.shipped("paddle", "conformance_paddle:PaddleAdapter")


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Result]:
    """Both routes on the paddle cases (cases/paddle.yaml), raw statuses."""
    out = tmp_path_factory.mktemp("paddle")
    found = raw_run(out, "paddle", targets=("paddle/*",), keyword="paddle-", jobs=2)
    return {f"{r.key}": r for r in found}


def _one(results: dict[str, Result], case: str, op: str, route: str) -> Result:
    return next(r for r in results.values() if r.case == case and r.op == op and r.route == route)


@pytest.mark.slow
@pytest.mark.parametrize("route", ["eager", "static"])
@pytest.mark.parametrize(
    ("case", "op"),
    [
        ("paddle-doc-split-2-3-minus1", "paddle.split"),
        ("paddle-doc-tensor-split-8-into-3", "paddle.tensor_split"),
        ("paddle-doc-hsplit-7x8-at-1-4", "paddle.hsplit"),
        ("paddle-sizes-runtime-axis", "paddle.split"),
        ("paddle-dtype-bfloat16", "paddle.split"),
        ("paddle-dynamic-minus1-first-runs", "paddle.split"),
    ],
)
def test_known_passes(results: dict[str, Result], case: str, op: str, route: str) -> None:
    result = _one(results, case, op, route)
    assert result.status == "pass", result.message


@pytest.mark.slow
def test_an_abort_costs_one_result(results: dict[str, Result]) -> None:
    crashed = [r for r in results.values() if r.status == "crash"]
    assert {(r.case, r.op) for r in crashed} == {("paddle-count-negative", "paddle.split")}
    assert [r.route for r in crashed] == [
        "eager"
    ]  # the traced program refuses it; every other item has its result
    assert _one(results, "paddle-count-zero", "paddle.split", "eager").status == "pass"


@pytest.mark.slow
def test_every_failure_is_claimed_by_a_known_issue(results: dict[str, Result]) -> None:
    assert_every_failure_claimed(list(results.values()), ISSUES)


@pytest.mark.slow
def test_the_static_route_computes_other_pieces_than_eager(results: dict[str, Result]) -> None:
    eager = _one(results, "paddle-dynamic-count-uneven-runs", "paddle.tensor_split", "eager")
    static = _one(results, "paddle-dynamic-count-uneven-runs", "paddle.tensor_split", "static")
    assert eager.status == "pass"
    assert static.status == "fail"
    claimed = known_issues.apply(static, ISSUES).known_issue
    assert claimed is not None and claimed["id"] == "static-tensor-split-on-dynamic-dim"


@pytest.mark.slow
def test_the_reproducer_shows_the_lost_data_with_paddle_alone(
    results: dict[str, Result], tmp_path: Path
) -> None:
    result = _one(results, "paddle-indices-below-minus-dim", "paddle.tensor_split", "eager")
    assert result.status == "fail"
    from conformance_paddle.adapter import eager_reproducer
    from corpus_items import task_of

    code = "import base64\nimport numpy as np\n" + eager_reproducer(
        task_of("paddle-indices-below-minus-dim::paddle.tensor_split"), Target("paddle", "eager", "cpu")
    )
    script = tmp_path / "repro.py"
    script.write_text(code)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=True
    )
    assert "[[0, 2, 2], [0, 2, 2], [3, 2, 2]]" in done.stdout
