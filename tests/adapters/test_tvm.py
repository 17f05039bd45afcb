"""The tvm adapter: Apache TVM's Relax ONNX frontend importing the suite's one-node ONNX models,
compiled for the CPU (llvm) and run on the Relax VM.

Passing items prove the route builds and feeds what the cases say (the axis left out when omitted,
symbolic dims across runs of new shapes, empty pieces, float16, bfloat16, bool and 64-bit data bit
for bit, SplitToSequence's tuple handed on as its pieces); what TVM cannot be handed at all is
unsupported with the reason, never judged, and what it is handed and refuses (a ``split`` fed at run
time) is judged; a corrupted adapter fails, so the comparison is live.
The raw run at the end holds every failure of a representative subset to a known issue.
"""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

import corpus_items
import numpy as np
import pytest
import route_calls
from claims import assert_claimed_by, raw_run

tvm = pytest.importorskip("tvm")
pytest.importorskip("onnx")
pytest.importorskip("conformance_tvm")

from conformance_tvm import TvmAdapter  # noqa: E402

from conformance.corpus import catalogue  # noqa: E402
from conformance.errors import UsageError  # noqa: E402
from conformance.loading.hooks import Hooks  # noqa: E402
from conformance.models import onnx_graphs  # noqa: E402
from conformance.plugin import Target  # noqa: E402
from conformance.results.result import Result  # noqa: E402
from conformance.verdict import known_issues  # noqa: E402

#: off the default run: `nox -s tests` leaves this module out, `-m extra_targets` selects it
pytestmark = pytest.mark.extra_targets

TARGET = Target("tvm", "onnx", "llvm")
ISSUES = known_issues.shipped("tvm", "conformance_tvm:TvmAdapter")

PASSING = [
    # the ONNX documents' examples, and the default axis (0) when the node has none
    "doc-onnx18-10-into-3::onnx.Split-18",
    "onnx-node-split-variable-parts-default-axis::onnx.Split-13",
    "onnx-node-split-equal-parts-2d::onnx.Split-11",
    # symbolic dims (data_shape: dynamic) through runs of other shapes on one compiled module
    "runs-dynamic-parts-2-last-axis::onnx.Split-18",
    # empty pieces and an empty dim
    "count-empty-dim-into-3::onnx.Split-13",
    # NaN payloads, signed zeros, 64-bit extremes, float16, bfloat16 and bool bit for bit
    "special-float32-lengths::onnx.Split-13",
    "special-float16-parts::onnx.Split-18",
    "special-uint64-values-extremes::onnx.Split-11",
    "ov-custom-precision-bfloat16::onnx.Split-13",
    "dtype-bool-lengths::onnx.Split-13",
    # a sequence output: the Relax tuple's tensors are the pieces
    "onnx-node-split-variable-parts-1d::onnx.SplitToSequence-11",
    # Slice: the ONNX document's examples, index inputs fed at run time (int32 and int64) with runs
    # of new bounds on a dynamic shape, clamped bounds on symbolic dims, and a scalar fed as a scalar
    "slice-doc-onnx-example-1::onnx.Slice-10",
    "slice-doc-onnx-example-2::onnx.Slice-13",
    "slice-doc-onnx-neg-steps::onnx.Slice-11",
    "slice-graph-runtime-int32::onnx.Slice-13",
    "slice-graph-runs-dynamic-and-bounds::onnx.Slice-13",
    "slice-graph-dynamic-clamped::onnx.Slice-11",
    "slice-edge-rank-0-nothing-sliced::onnx.Slice-13",
]


def judge(adapter: TvmAdapter | Hooks, item: str) -> Result:
    return corpus_items.judge(adapter, TARGET, item)


@pytest.mark.parametrize("item", PASSING)
def test_corpus_item_passes(item: str) -> None:
    result = judge(TvmAdapter({}), item)
    assert result.status == "pass", result.message


def test_a_finding_is_claimed_by_its_known_issue() -> None:
    """A zero length (valid) is refused: relax.split wants strictly increasing indices."""
    result = judge(TvmAdapter({}), "onnx-node-split-zero-size-splits::onnx.Split-13")
    assert result.status == "error" and result.defect is None, result.message
    claimed = known_issues.apply(result, ISSUES)
    assert claimed.status == "xfail"
    assert (claimed.known_issue or {}).get("id") == "split-zero-length-piece-refused"


@pytest.mark.parametrize(
    ("item", "issue"),
    [
        # [3:1] selects nothing, and TOPI refuses the window when the module is compiled
        ("slice-edge-start-after-end::onnx.Slice-13", "slice-empty-window-refused"),
        # Slice-1's attributes go through the Slice-13 converter, which reads absent inputs
        ("slice-doc-onnx1-example-1::onnx.Slice-1", "slice1-read-as-slice13"),
        # a step of INT64_MAX overflows the length: nothing instead of the first element
        ("slice-edge-step-int64-max::onnx.Slice-10", "slice-huge-steps-overflow"),
    ],
)
def test_a_slice_departure_is_judged_and_claimed_by_its_known_issue(item: str, issue: str) -> None:
    result = judge(TvmAdapter({}), item)
    assert result.status in ("fail", "error") and result.defect is None, result.message
    assert_claimed_by(result, ISSUES, issue)


@pytest.mark.parametrize(
    ("item", "reason"),
    [
        ("dtype-complex64-lengths::onnx.Split-18", "no complex element type"),
        ("dtype-string-lengths::onnx.Split-13", "no string tensors"),
    ],
)
def test_what_tvm_cannot_be_handed_is_unsupported_with_the_reason(item: str, reason: str) -> None:
    result = judge(TvmAdapter({}), item)
    assert result.status == "unsupported", result.message
    assert reason in result.message


@pytest.mark.parametrize(
    ("item", "issue"),
    [
        ("graph-runtime-lengths::onnx.Split-13", "split13-runtime-split-refused"),
        ("graph-runtime-onnx18-int64-lengths::onnx.Split-18", "split13-runtime-split-refused"),
        (
            "onnx-node-split-variable-parts-1d-runtime::onnx.SplitToSequence-11",
            "split-to-sequence-runtime-split-refused",
        ),
    ],
)
def test_a_split_fed_at_run_time_reaches_tvm_and_its_refusal_is_claimed(item: str, issue: str) -> None:
    """The frontend refuses a non-constant 'split' while importing: TVM's answer, judged."""
    result = judge(TvmAdapter({}), item)
    assert (result.status, result.defect) == ("error", None), result.message
    raised = result.actual["raised"]
    assert (raised["type"], raised["origin"], raised["phase"]) == ("ValueError", "backend", "build")
    assert_claimed_by(result, ISSUES, issue)


def test_a_split_fed_at_run_time_that_the_spec_rejects_is_refused_as_required() -> None:
    result = judge(TvmAdapter({}), "graph-runtime-lengths-bad-sum::onnx.Split-13")
    assert result.status == "pass", result.message


def _swapped(outputs: list[np.ndarray]) -> list[np.ndarray]:
    """The first two outputs swapped: the comparison must notice."""
    outputs[0], outputs[1] = outputs[1], outputs[0]
    return outputs


def test_wrong_outputs_fail() -> None:
    wrong = route_calls.with_outputs(TvmAdapter({}), _swapped)
    assert judge(wrong, "onnx-node-split-variable-parts-2d::onnx.Split-13").status == "fail"


def test_info_records_tvm_s_version_calls_and_target() -> None:
    info = TvmAdapter({}).info()
    assert (info.name, info.backend) == ("tvm", "apache-tvm")
    assert info.version == metadata.version("apache-tvm") == tvm.__version__
    assert [(route.name, route.default) for route in info.routes] == [("onnx", False)]
    # every ONNX op of the suite: the Split family's and the Slice family's, no other framework's
    assert catalogue.match(info.routes[0].ops) == [op for op in catalogue.OPS if op.startswith("onnx.")]
    assert {"onnx.Slice-1", "onnx.Slice-10", "onnx.Slice-11", "onnx.Slice-13"} <= set(
        catalogue.match(info.routes[0].ops)
    )
    assert info.devices == ("llvm",)
    assert info.options["tvm_version"] == info.version
    assert info.options["target"] == "llvm"
    assert "from_onnx" in info.options["call"] and "tvm.compile" in info.options["call"]


def test_bad_options_are_refused_at_construction() -> None:
    with pytest.raises(UsageError, match="unknown device"):
        TvmAdapter({"device": "cuda"})


@pytest.mark.slow
def test_the_reproducer_runs_with_tvm_onnx_and_numpy_alone(tmp_path: Path) -> None:
    """Every run of a dynamic case on one compiled module: one printed line of shapes per run."""
    item = "runs-dynamic-parts-2-last-axis::onnx.Split-18"
    body = route_calls.snippet(TARGET, corpus_items.task_of(item))
    assert body is not None and "conformance" not in body
    script = tmp_path / "reproducer.py"
    script.write_text("import base64\n\nimport numpy as np\n" + body)
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == [
        "[(2, 3, 2), (2, 3, 2)]",
        "[(3, 5, 3), (3, 5, 3)]",
        "[(1, 2, 1), (1, 2, 1)]",
        "[(2, 2, 3), (2, 2, 2)]",
    ]
    assert (tmp_path / "model.onnx").read_bytes() == onnx_graphs.model_bytes(corpus_items.task_of(item))


@pytest.mark.slow
def test_every_failure_of_a_subset_is_a_known_issue(tmp_path: Path) -> None:
    """A representative subset through real workers, raw: each failure claimed by an entry."""
    results = raw_run(
        tmp_path,
        "tvm",
        targets=("tvm/*",),
        ops=("onnx.Split-13", "onnx.SplitToSequence-11"),
        keyword="lengths or size",
    )
    assert results and {result.target_id for result in results} == {"tvm/onnx/llvm"}
    assert not [result.key for result in results if result.defect is not None]
    judged = [known_issues.apply(result, ISSUES) for result in results]
    from conformance.statuses import GREEN

    assert not [f"{r.key}: {r.message}" for r in judged if r.status not in GREEN]
