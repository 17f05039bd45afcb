"""The MNN adapter: the suite's ONNX models through MNN's converter and runtime, in real workers.

One raw run of a handful of items (module-scoped: each item costs a converter process) shows a pass
bit for bit, a silent wrong answer claimed by its known issue, a narrowed element type claimed by
its own, an unsupported with its reason, and a converter crash that costs its item alone: the item
after it in the same worker still passes. The reproducer runs with MNN and NumPy alone.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import corpus_items
import pytest
from claims import assert_claimed_by, raw_run

if importlib.util.find_spec("MNN") is None:  # found, not imported: backends stay out of this process
    pytest.skip("MNN is not installed", allow_module_level=True)
pytest.importorskip("conformance_mnn")

from conformance_mnn import MnnAdapter

from conformance.plugin import Target
from conformance.results.result import Result
from conformance.verdict import known_issues

#: off the default run: `nox -s tests` leaves this module out, `-m extra_targets` selects it
pytestmark = pytest.mark.extra_targets

TARGET = Target("mnn", "onnx", "cpu")
ISSUES = known_issues.shipped("mnn", "conformance_mnn:MnnAdapter")

PASSING = "onnx-node-split-variable-parts-2d::onnx.Split-13"
#: (item, the known issue that claims it)
FINDINGS = {
    # 8 into 3 with num_outputs: MNN returns widths 2, 2, 2, silently
    "onnx-node-split-2d-uneven-split::onnx.Split-18": "mnn-split18-uneven-count-floors",
    # an int64 split comes back int32
    "dtype-int64-lengths::onnx.Split-13": "mnn-narrows-element-types",
    # the converter dies by SIGSEGV on an axis below -rank
    "axis-rank3-axisminus4-out-of-range-parts::onnx.Split-18": "mnn-split-crashes",
}
#: Slice: the spec's example 1 passes; x[1:7:2] with the axes input left out comes back as x[1:7],
#: silently (OnnxSlice.cpp hands the steps on only with axes)
SLICE_PASSING = "slice-doc-onnx-example-1::onnx.Slice-13"
SLICE_FINDING = ("slice-doc-numpy-1-7-2::onnx.Slice-13", "mnn-slice-positive-steps-dropped-without-axes")
UNSUPPORTED = {
    "dtype-int8-lengths::onnx.Split-13": "cannot write int8",
    "onnx-node-split-variable-parts-1d::onnx.SplitToSequence-11": "no TensorArray read",
}
ITEMS = [PASSING, *FINDINGS, *UNSUPPORTED, SLICE_PASSING, SLICE_FINDING[0]]
KEYWORD = " or ".join(item.split("::")[0] for item in ITEMS)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Result]:
    out = tmp_path_factory.mktemp("mnn")
    ops = sorted({item.split("::")[1] for item in ITEMS})
    done = raw_run(out, "mnn", ops=ops, targets=("mnn/*",), keyword=KEYWORD, jobs=1)
    return {result.key.split("@")[0]: result for result in done}


@pytest.mark.slow
def test_a_valid_split_passes_bit_for_bit(results: dict[str, Result]) -> None:
    assert results[PASSING].status == "pass", results[PASSING].message


@pytest.mark.slow
@pytest.mark.parametrize(("item", "issue"), FINDINGS.items())
def test_findings_are_claimed_by_their_known_issue(results: dict[str, Result], item: str, issue: str) -> None:
    result = results[item]
    assert result.status in ("fail", "crash") and result.defect is None, result.message
    assert_claimed_by(result, ISSUES, issue)


@pytest.mark.slow
def test_a_slice_doc_example_passes_and_dropped_steps_are_claimed(results: dict[str, Result]) -> None:
    assert results[SLICE_PASSING].status == "pass", results[SLICE_PASSING].message
    item, issue = SLICE_FINDING
    result = results[item]
    assert (result.status, result.defect) == ("fail", None), result.message
    assert "expected shape [3], got [6]" in result.message
    assert_claimed_by(result, ISSUES, issue)


@pytest.mark.slow
def test_a_converter_crash_is_its_item_s_alone(results: dict[str, Result]) -> None:
    """The SIGSEGV of the converter's child process ends the worker by the same signal."""
    crashed = results["axis-rank3-axisminus4-out-of-range-parts::onnx.Split-18"]
    assert crashed.status == "crash" and "SIGSEGV" in crashed.message
    # each crash cost its own item: the run went on, and every other item was judged on its own
    crashes = [key for key, result in results.items() if result.status == "crash"]
    assert results[PASSING].status == "pass" and len(crashes) < len(results) // 2, crashes


@pytest.mark.slow
@pytest.mark.parametrize(("item", "reason"), UNSUPPORTED.items())
def test_what_mnn_cannot_be_handed_is_unsupported(results: dict[str, Result], item: str, reason: str) -> None:
    assert results[item].status == "unsupported" and reason in results[item].message


@pytest.mark.slow
def test_the_reproducer_runs_with_mnn_alone(tmp_path: Path) -> None:
    """The Split-18 finding replayed: three pieces of width 2 where the spec says 3, 3, 2."""
    task = corpus_items.task_of("onnx-node-split-2d-uneven-split::onnx.Split-18")
    body = MnnAdapter({}).info().routes[0].reproducer(task, TARGET)  # type: ignore[misc]
    assert body is not None and "conformance" not in body.replace("--bizCode', 'conformance'", "")
    script = tmp_path / "reproducer.py"
    script.write_text("import base64\n\nimport numpy as np\n" + body)
    command = [sys.executable, str(script)]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[-1] == "[(2, 2), (2, 2), (2, 2)]"
