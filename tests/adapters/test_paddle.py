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
from built_in import off_default_run
from claims import assert_every_failure_claimed, raw_run

if importlib.util.find_spec("paddle") is None:  # found, not imported: backends stay out of this process
    pytest.skip("paddle is not installed", allow_module_level=True)
pytest.importorskip("conformance_paddle")

from conformance.plugin import Target
from conformance.results.result import Result
from conformance.verdict import known_issues

ISSUES = known_issues.shipped("paddle", "conformance_paddle:PaddleAdapter")


def _route(tmp_path_factory: pytest.TempPathFactory, route: str) -> list[Result]:
    """One route on the paddle cases (cases/paddle.yaml), raw statuses."""
    # one worker: the items take milliseconds, a second Paddle process only its import's seconds
    out = tmp_path_factory.mktemp(route)
    return raw_run(out, "paddle", targets=(f"paddle/{route}/*",), keyword="paddle-", jobs=1)


@pytest.fixture(scope="module")
def eager(tmp_path_factory: pytest.TempPathFactory) -> list[Result]:
    return _route(tmp_path_factory, "eager")


@pytest.fixture(scope="module")
def static(tmp_path_factory: pytest.TempPathFactory) -> list[Result]:
    """The traced route, off the default run (about 0.25 s an item): only extra_targets tests use it."""
    return _route(tmp_path_factory, "static")


def _one(results: list[Result], case: str, op: str) -> Result:
    return next(r for r in results if r.case == case and r.op == op)


@pytest.mark.slow
@pytest.mark.parametrize("route", ["eager", off_default_run("static")])
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
def test_known_passes(request: pytest.FixtureRequest, case: str, op: str, route: str) -> None:
    result = _one(request.getfixturevalue(route), case, op)
    assert result.status == "pass", result.message


@pytest.mark.slow
def test_an_abort_costs_one_result(eager: list[Result]) -> None:
    crashed = [r for r in eager if r.status == "crash"]
    assert [(r.case, r.op) for r in crashed] == [("paddle-count-negative", "paddle.split")]
    assert _one(eager, "paddle-count-zero", "paddle.split").status == "pass"


@pytest.mark.slow
@pytest.mark.parametrize("route", ["eager", off_default_run("static")])
def test_every_failure_is_claimed_by_a_known_issue(request: pytest.FixtureRequest, route: str) -> None:
    """(the traced program refuses what aborts the eager route: a crash here would be unclaimed)"""
    assert_every_failure_claimed(request.getfixturevalue(route), ISSUES)


@pytest.mark.slow
@pytest.mark.extra_targets  # the static route is off the default run
def test_the_static_route_computes_other_pieces_than_eager(eager: list[Result], static: list[Result]) -> None:
    item = ("paddle-dynamic-count-uneven-runs", "paddle.tensor_split")
    assert _one(eager, *item).status == "pass"
    traced = _one(static, *item)
    assert traced.status == "fail"
    claimed = known_issues.apply(traced, ISSUES).known_issue
    assert claimed is not None and claimed["id"] == "static-tensor-split-on-dynamic-dim"


@pytest.mark.slow
def test_the_reproducer_shows_the_lost_data_with_paddle_alone(eager: list[Result], tmp_path: Path) -> None:
    result = _one(eager, "paddle-indices-below-minus-dim", "paddle.tensor_split")
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
