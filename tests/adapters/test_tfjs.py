"""The TF.js adapter on TF.js's CPU and WASM backends in Node.js, through real workers: the page's
examples pass on both, the six findings are claimed by their known issues, what TF.js cannot be
handed is unsupported with its source, and a reproducer (a Node.js script using only TF.js) shows
the -1-first refusal by itself. Skipped where Node.js or the npm packages are missing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import corpus_items
import pytest
from claims import assert_claimed_by, assert_every_failure_claimed, raw_run

pytest.importorskip("conformance_tfjs")

from conformance_tfjs import TfjsAdapter, node_process

from conformance.engine.item import make_task
from conformance.plugin import Target
from conformance.results.result import Result
from conformance.verdict import known_issues

pytestmark = pytest.mark.skipif(
    node_process.setup_problem() is not None, reason=str(node_process.setup_problem())
)

ISSUES = known_issues.shipped("tfjs", "conformance_tfjs:TfjsAdapter")
OP = "tfjs.split"


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Result]:
    """cases/tfjs.yaml on both targets, raw statuses, by (case, device)."""
    done = raw_run(tmp_path_factory.mktemp("tfjs"), "tfjs", ops=[OP], keyword="tfjs-")
    assert_every_failure_claimed(done, ISSUES)
    return {(result.case, result.device): result for result in done}


@pytest.mark.slow
@pytest.mark.parametrize("device", ["cpu", "wasm"])
def test_the_page_s_examples_and_a_middle_minus_one_pass(
    results: dict[tuple[str, str], Result], device: str
) -> None:
    for case in (
        "tfjs-doc-split-2x4-into-2-axis-1",
        "tfjs-doc-split-2x4-sizes-1-2-1-axis-1",
        "tfjs-minus-one-middle",
    ):
        assert results[(case, device)].status == "pass", results[(case, device)].message


@pytest.mark.slow
@pytest.mark.parametrize(
    ("case", "device", "status", "issue"),
    [
        ("tfjs-minus-one-first", "cpu", "error", "tfjs-minus-one-first-refused"),
        ("tfjs-minus-one-would-be-negative", "wasm", "fail", "tfjs-minus-one-negative-overlapping-pieces"),
        ("tfjs-dtype-string", "wasm", "error", "tfjs-split-refuses-strings"),
        ("tfjs-dtype-complex64", "cpu", "error", "tfjs-cpu-complex64-slice-refused"),
        ("tfjs-dtype-float32", "cpu", "fail", "tfjs-cpu-strided-slice-quiets-signalling-nan"),
        ("tfjs-sizes-empty-on-empty-axis", "cpu", "error", "tfjs-empty-sizes-typeerror"),
    ],
)
def test_each_finding_is_claimed_by_its_known_issue(
    results: dict[tuple[str, str], Result], case: str, device: str, status: str, issue: str
) -> None:
    result = results[(case, device)]
    assert result.status == status and result.defect is None, result.message
    assert_claimed_by(result, ISSUES, issue)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("case", "device", "reason"),
    [("tfjs-dtype-float64", "cpu", "#tensor"), ("tfjs-dtype-complex64", "wasm", "register_all_kernels")],
)
def test_what_tfjs_cannot_be_handed_is_unsupported(
    results: dict[tuple[str, str], Result], case: str, device: str, reason: str
) -> None:
    assert results[(case, device)].status == "unsupported"
    assert reason in results[(case, device)].message


@pytest.mark.slow
def test_the_reproducer_shows_the_refusal_with_tfjs_alone(tmp_path: Path) -> None:
    task = make_task(corpus_items.suite().by_id("tfjs-minus-one-first"), OP)
    route = TfjsAdapter({}).info().routes[0]
    snippet = route.reproducer(task, Target("tfjs", "node", "cpu"))  # type: ignore[misc]
    (tmp_path / "node_modules").symlink_to(node_process.NODE_FOLDER / "node_modules")
    script = tmp_path / "repro.py"
    script.write_text(str(snippet), encoding="utf-8")
    env = {**os.environ, "TFJS_FOLDER": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env, check=False
    )
    assert "The sum of sizes must match" in done.stdout, done.stdout + done.stderr
