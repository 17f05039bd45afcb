"""The ncnn adapter: torch modules and ONNX models converted by pnnx and run by ncnn, in real workers.

One raw run of a handful of items (module-scoped: each item costs a pnnx process) shows a Split and
a Slice doc example passing bit for bit on each route, a large rank-4 split read back bit for bit
(the inputs' memory must outlive the extraction), silent wrong answers, a refusal and a crash
claimed by their known issues (a Slice departure on each route among them), and an element type
ncnn cannot be handed unsupported with its reason. The reproducers run with pnnx, ncnn, NumPy (and
torch to trace) alone: the Split one crashes as its item did, the Slice one prints the slice's shape.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import corpus_items
import pytest
from claims import assert_claimed_by, raw_run

pytest.importorskip("ncnn")
pytest.importorskip("pnnx")
pytest.importorskip("conformance_ncnn")

from conformance_ncnn import NcnnAdapter

from conformance.plugin import Target
from conformance.results.result import Result
from conformance.verdict import known_issues

#: off the default run: `nox -s tests` leaves this module out, `-m extra_targets` selects it
pytestmark = pytest.mark.extra_targets

ISSUES = known_issues.shipped("ncnn", "conformance_ncnn:NcnnAdapter")

PASSING = [
    "doc-readme-torch-split-list::torch.split",  # route pnnx
    "onnx-node-split-variable-parts-2d::onnx.Split-13",  # route onnx
    # 3,600 elements in, two rank-4 pieces out: ncnn reads its input only at extraction
    "ov-split-f32-n2-axis2::onnx.Split-18",
    # ONNX's and torch's x[0:3, 0:10] of 20x10x5: pnnx writes ncnn's Crop on both routes
    "slice-doc-onnx-slice::onnx.Slice-13",
    "slice-doc-onnx-slice::torch.Tensor.__getitem__",
]
#: (item, the known issue that claims it)
FINDINGS = {
    # 7 into 2 with torch.chunk: widths 3, 3 instead of 4, 3, silently
    "count-7-into-2::torch.chunk": "ncnn-uneven-pieces-wrong-shapes",
    # pnnx writes a Slice without its slices for an equal-parts Split; ncnn dies by SIGSEGV on it
    "onnx-node-split-equal-parts-1d::onnx.Split-11": "ncnn-slice-without-slices-crashes",
    # x[9:-11:-1] of 10: pnnx drops the whole-dim reversal as a no-op slice, the data comes back as is
    "slice-doc-ov-slice8-example-5::onnx.Slice-13": "pnnx-whole-dim-reversal-dropped",
    # a step of 2 is left as pnnx's Tensor.slice, a layer ncnn does not know
    "slice-doc-onnx-example-1::torch.Tensor.__getitem__": "pnnx-stepped-slice-not-converted",
}
UNSUPPORTED = {"dtype-int8-lengths::torch.split": "cannot be handed tensor(int8)"}
ITEMS = [*PASSING, *FINDINGS, *UNSUPPORTED]
KEYWORD = " or ".join(item.split("::")[0] for item in ITEMS)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Result]:
    out = tmp_path_factory.mktemp("ncnn")
    ops = sorted({item.split("::")[1] for item in ITEMS})
    done = raw_run(out, "ncnn", ops=ops, targets=("ncnn/*",), keyword=KEYWORD, jobs=1)
    return {result.key.split("@")[0]: result for result in done}


@pytest.mark.slow
@pytest.mark.parametrize("item", PASSING)
def test_valid_splits_pass_bit_for_bit(results: dict[str, Result], item: str) -> None:
    assert results[item].status == "pass", results[item].message


@pytest.mark.slow
@pytest.mark.parametrize(("item", "issue"), FINDINGS.items())
def test_findings_are_claimed_by_their_known_issue(results: dict[str, Result], item: str, issue: str) -> None:
    result = results[item]
    assert result.status in ("fail", "error", "crash") and result.defect is None, result.message
    assert_claimed_by(result, ISSUES, issue)


@pytest.mark.slow
def test_a_crash_is_its_item_s_alone(results: dict[str, Result]) -> None:
    """ncnn's SIGSEGV ends its worker; every other item of the run is judged on its own."""
    crashed = results["onnx-node-split-equal-parts-1d::onnx.Split-11"]
    assert crashed.status == "crash" and "SIGSEGV" in crashed.message
    assert all(results[item].status == "pass" for item in PASSING)


@pytest.mark.slow
@pytest.mark.parametrize(("item", "reason"), UNSUPPORTED.items())
def test_what_ncnn_cannot_be_handed_is_unsupported(
    results: dict[str, Result], item: str, reason: str
) -> None:
    assert results[item].status == "unsupported" and reason in results[item].message


@pytest.mark.slow
def test_the_reproducer_runs_with_pnnx_and_ncnn_alone(tmp_path: Path) -> None:
    """The crash replayed: pnnx converts the equal-parts Split, ncnn dies by SIGSEGV running it."""
    task = corpus_items.task_of("onnx-node-split-equal-parts-1d::onnx.Split-11")
    route = next(route for route in NcnnAdapter({}).info().routes if route.name == "onnx")
    body = route.reproducer(task, Target("ncnn", "onnx", "cpu"))  # type: ignore[misc]
    assert body is not None and "conformance" not in body
    script = tmp_path / "reproducer.py"
    script.write_text("import base64\n\nimport numpy as np\n" + body)
    command = [sys.executable, str(script)]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert (tmp_path / "model.ncnn.param").is_file(), done.stdout[-2000:]
    assert "Slice" in (tmp_path / "model.ncnn.param").read_text()
    assert done.returncode == -11, (done.returncode, done.stderr[-2000:])


@pytest.mark.slow
def test_a_slice_reproducer_runs_with_torch_pnnx_and_ncnn_alone(tmp_path: Path) -> None:
    """x[0:3, 0:10] traced, converted by pnnx to a Crop, run by ncnn: the printed shape is the slice's."""
    task = corpus_items.task_of("slice-doc-onnx-slice::torch.Tensor.__getitem__")
    route = next(route for route in NcnnAdapter({}).info().routes if route.name == "pnnx")
    body = route.reproducer(task, Target("ncnn", "pnnx", "cpu"))  # type: ignore[misc]
    assert body is not None and "conformance" not in body
    script = tmp_path / "reproducer.py"
    script.write_text("import base64\n\nimport numpy as np\n" + body)
    command = [sys.executable, str(script)]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Crop" in (tmp_path / "model.ncnn.param").read_text()
    assert done.stdout.strip().splitlines()[-1] == "[(3, 10, 5)]", done.stdout[-2000:]
