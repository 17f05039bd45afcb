"""The MLX adapter on MLX's CPU backend: passes, its refusal of complex128, the abort on split points
past int32 costing one result each and claimed by its known issue, and a reproducer that aborts the
same way with MLX alone. Items that abort run in real workers only (raw_run), never in this process.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import corpus_items
import pytest
from claims import assert_every_failure_claimed, raw_run

if importlib.util.find_spec("mlx") is None:  # found, not imported: backends stay out of this process
    pytest.skip("mlx is not installed", allow_module_level=True)
pytest.importorskip("conformance_mlx")

from conformance_mlx import MlxAdapter

from conformance.engine.item import make_task
from conformance.plugin import Target
from conformance.verdict import known_issues

TARGET = Target("mlx", "eager", "cpu")
ISSUES = known_issues.shipped("mlx", "conformance_mlx:MlxAdapter")
OP = "mlx.core.split"


@pytest.mark.parametrize(
    "case",
    [
        "mlx-doc-split-4-at-1-3",
        "mlx-points-unsorted",
        "mlx-point-below-minus-dim",
        "mlx-dtype-float64",
        "mlx-dtype-bfloat16",
        "mlx-dtype-complex64",
        "mlx-count-zero",
    ],
)
def test_item_passes(case: str) -> None:
    """Split points as slice bounds, float64 kept float64 (mx.array left alone makes it float32),
    bfloat16 and complex64 bit for bit, a count of 0 refused by MLX."""
    result = corpus_items.judge(MlxAdapter({}), TARGET, f"{case}::{OP}")
    assert result.status == "pass", result.message


def test_complex128_is_unsupported_with_the_page() -> None:
    result = corpus_items.judge(MlxAdapter({}), TARGET, f"mlx-dtype-complex128::{OP}")
    assert result.status == "unsupported"
    assert "data_types.html" in result.message


@pytest.mark.slow
def test_points_past_int32_abort_one_worker_each_and_are_claimed(tmp_path: Path) -> None:
    results = raw_run(tmp_path, "mlx", ops=[OP], keyword="mlx-point")
    statuses = {result.case: result.status for result in results}
    assert statuses["mlx-point-2-31"] == statuses["mlx-point-minus-2-31-minus-1"] == "crash"
    assert statuses["mlx-points-past-end"] == statuses["mlx-point-below-minus-dim"] == "pass"
    assert_every_failure_claimed(results, ISSUES)


@pytest.mark.slow
def test_the_reproducer_aborts_with_mlx_alone(tmp_path: Path) -> None:
    task = make_task(corpus_items.suite().by_id("mlx-point-2-31"), OP)
    snippet = MlxAdapter({}).info().routes[0].reproducer(task, TARGET)  # type: ignore[misc]
    script = tmp_path / "repro.py"
    script.write_text("import base64\nimport numpy as np\n" + str(snippet), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode != 0 and "terminate called" in done.stderr, done.stderr
