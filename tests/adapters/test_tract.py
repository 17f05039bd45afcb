"""The tract adapter: Sonos' tract loading and running the suite's one-node ONNX models.

Passing items prove the route builds and feeds what the cases say (the axis left out when omitted,
symbolic dims kept symbolic across runs of new shapes, empty pieces, float16 and 64-bit data bit
for bit); what tract cannot be handed at all is unsupported with the reason, never judged, and what
it is handed and refuses (a ``split`` fed at run time) is judged; a corrupted adapter fails, so the
comparison is live. Items that abort the process (tract panics on several invalid requests) never
run in this test process: the workers isolate them, and the raw run at the end holds every failure,
crashes included, to a known issue.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import corpus_items
import numpy as np
import pytest
import route_calls
from claims import assert_claimed_by, assert_every_failure_claimed, raw_run

tract = pytest.importorskip("tract")
pytest.importorskip("onnx")
pytest.importorskip("conformance_tract")

from conformance_tract import TractAdapter, loading  # noqa: E402

from conformance.corpus import catalogue  # noqa: E402
from conformance.errors import UsageError  # noqa: E402
from conformance.loading.hooks import Hooks  # noqa: E402
from conformance.models import onnx_graphs  # noqa: E402
from conformance.plugin import Target  # noqa: E402
from conformance.results.result import Result  # noqa: E402
from conformance.verdict import known_issues  # noqa: E402

#: off the default run: `nox -s tests` leaves this module out, `-m extra_targets` selects it
pytestmark = pytest.mark.extra_targets

TARGET = Target("tract", "onnx", "cpu")
ISSUES = known_issues.shipped("tract", "conformance_tract:TractAdapter")

PASSING = [
    # the ONNX documents' examples, and the default axis (0) when the node has none
    "doc-onnx18-10-into-3::onnx.Split-18",
    "onnx-node-split-variable-parts-default-axis::onnx.Split-13",
    "onnx-node-split-equal-parts-2d::onnx.Split-11",
    # symbolic dims (data_shape: dynamic) through runs of other shapes on one loaded model
    "runs-dynamic-parts-2-last-axis::onnx.Split-18",
    "ov-custom-rank4-dynamic::onnx.Split-13",
    # empty pieces and an empty dim
    "count-empty-dim-into-3::onnx.Split-13",
    # NaN payloads, signed zeros, 64-bit extremes, float16 and bool bit for bit
    "special-float32-lengths::onnx.Split-13",
    "special-float16-parts::onnx.Split-18",
    "special-uint64-values-extremes::onnx.Split-11",
    "dtype-bool-lengths::onnx.Split-13",
    # refused as the spec requires (tract's TractError is the backend's refusal)
    "axis-rank2-axis2-out-of-range-lengths::onnx.Split-13",
    "invalid-onnx-sum-over-axis1::onnx.Split-13",
    # Slice: the ONNX document's examples (Slice-1's attributes, Slice-10's inputs and steps, a
    # reversal), int32 index inputs, and an index input fed at run time that the spec rejects, refused
    "slice-doc-onnx1-example-1::onnx.Slice-1",
    "slice-doc-onnx-example-1::onnx.Slice-10",
    "slice-doc-onnx-example-2::onnx.Slice-13",
    "slice-doc-onnx-neg-steps::onnx.Slice-11",
    "slice-graph-index-int8-runtime::onnx.Slice-13",
]


def judge(adapter: TractAdapter | Hooks, item: str) -> Result:
    return corpus_items.judge(adapter, TARGET, item)


@pytest.mark.slow
@pytest.mark.parametrize("item", PASSING)
def test_corpus_item_passes(item: str) -> None:
    result = judge(TractAdapter({}), item)
    assert result.status == "pass", result.message


def test_a_refusal_is_tract_s_own_and_judged() -> None:
    result = judge(TractAdapter({}), "axis-rank2-axis2-out-of-range-lengths::onnx.Split-13")
    raised = result.actual["raised"]
    assert (raised["type"], raised["origin"], raised["phase"]) == ("TractError", "backend", "compile")
    assert result.defect is None


def test_a_finding_is_claimed_by_its_known_issue() -> None:
    """Lengths short of the dim: tract returns the leading pieces (split-lengths-sum-short-accepted)."""
    result = judge(TractAdapter({}), "lengths-sum-one-short::onnx.Split-13")
    assert result.status == "fail" and result.defect is None, result.message
    claimed = known_issues.apply(result, ISSUES)
    assert claimed.status == "xfail"
    assert (claimed.known_issue or {}).get("id") == "split-lengths-sum-short-accepted"


@pytest.mark.parametrize(
    ("item", "issue"),
    [
        # INT64_MAX as an end with a backward step: read as "to the front", three elements, not none
        ("slice-edge-int64-max-end-backward::onnx.Slice-13", "slice-int64-end-sentinels-read-as-open"),
        # a step of 2^32 + 1 narrowed to 1: every element instead of the first
        ("slice-edge-step-2-pow-32-plus-1::onnx.Slice-11", "slice-steps-narrowed-to-int32"),
        # [3:1] selects nothing, and tract refuses the empty window while typing
        ("slice-edge-start-after-end::onnx.Slice-10", "slice-empty-window-refused"),
        # steps fed at run time: StridedSlice takes them only as constants
        ("slice-graph-runtime-steps-only::onnx.Slice-13", "slice-runtime-steps-or-axes-refused"),
    ],
)
def test_a_slice_departure_is_judged_and_claimed_by_its_known_issue(item: str, issue: str) -> None:
    result = judge(TractAdapter({}), item)
    assert result.status in ("fail", "error") and result.defect is None, result.message
    assert_claimed_by(result, ISSUES, issue)


def test_symbolic_dims_stay_symbolic_and_static_dims_concrete() -> None:
    """No input facts are set: tract types the model as it declares its inputs."""
    dynamic = loading.load(
        onnx_graphs.model_bytes(corpus_items.task_of("ov-custom-rank2-dynamic::onnx.Split-13"))
    )
    static = loading.load(onnx_graphs.model_bytes(corpus_items.task_of("ov-custom-rank2::onnx.Split-13")))
    assert dynamic.inputs == static.inputs == ("data",)
    assert dynamic.runnable.input_fact(0).dump() == "d0,d1,f32"
    assert static.runnable.input_fact(0).dump() == "3,7,f32"


@pytest.mark.parametrize(
    ("item", "reason"),
    [
        ("onnx-node-split-variable-parts-1d::onnx.SplitToSequence-11", "no SplitToSequence operator"),
        ("ov-custom-precision-bfloat16::onnx.Split-13", "tract has no bfloat16 type"),
        ("dtype-complex64-lengths::onnx.Split-18", "tensor(complex64)"),
        ("dtype-string-lengths::onnx.Split-13", "cannot build a string tensor"),
        ("dtype-string-lengths::onnx.Split-13", "github.com/sonos/tract/blob/main/api/py/tract/tensor.py"),
    ],
)
def test_what_tract_cannot_be_handed_is_unsupported_with_the_reason(item: str, reason: str) -> None:
    result = judge(TractAdapter({}), item)
    assert result.status == "unsupported", result.message
    assert reason in result.message


@pytest.mark.parametrize(
    ("item", "issue", "says"),
    [
        (
            "graph-runtime-lengths::onnx.Split-13",
            "split13-runtime-split-refused",
            "Need splits to be a constant",
        ),
        ("graph-runtime-onnx18-int64-lengths::onnx.Split-18", "split13-runtime-split-refused", "constant"),
        ("graph-runtime-lengths::onnx.Split-1", "split1-runtime-split-refused", "Rules expect 1, node has 2"),
    ],
)
def test_a_split_fed_at_run_time_reaches_tract_and_its_refusal_is_claimed(
    item: str, issue: str, says: str
) -> None:
    """tract refuses a runtime 'split' while typing the model: its own answer, judged."""
    result = judge(TractAdapter({}), item)
    assert (result.status, result.defect) == ("error", None), result.message
    raised = result.actual["raised"]
    assert (raised["type"], raised["origin"], raised["phase"]) == ("TractError", "backend", "compile")
    assert says in raised["message"]
    assert_claimed_by(result, ISSUES, issue)


def test_a_split_fed_at_run_time_that_the_spec_rejects_is_refused_as_required() -> None:
    result = judge(TractAdapter({}), "graph-runtime-lengths-bad-sum::onnx.Split-13")
    assert result.status == "pass", result.message


def _swapped(outputs: list[np.ndarray]) -> list[np.ndarray]:
    """The first two outputs swapped: the comparison must notice."""
    outputs[0], outputs[1] = outputs[1], outputs[0]
    return outputs


def _bit_flipped(outputs: list[np.ndarray]) -> list[np.ndarray]:
    """The lowest bit of one element flipped: bit-exact comparison must notice."""
    outputs[-1].view(np.uint8).reshape(-1)[0] ^= 1
    return outputs


@pytest.mark.parametrize("change", [_swapped, _bit_flipped])
def test_wrong_outputs_fail(change: Callable[[list[np.ndarray]], list[np.ndarray]]) -> None:
    wrong = route_calls.with_outputs(TractAdapter({}), change)
    assert judge(wrong, "onnx-node-split-variable-parts-2d::onnx.Split-13").status == "fail"


def test_info_records_tract_s_version_and_calls() -> None:
    info = TractAdapter({}).info()
    assert (info.name, info.backend) == ("tract", "tract")
    assert info.version == metadata.version("tract") == tract.version()
    assert [(route.name, route.default) for route in info.routes] == [("onnx", False)]
    # every ONNX op of the suite: the Split family's and the Slice family's, no other framework's
    assert catalogue.match(info.routes[0].ops) == [op for op in catalogue.OPS if op.startswith("onnx.")]
    assert {"onnx.Slice-1", "onnx.Slice-10", "onnx.Slice-11", "onnx.Slice-13"} <= set(
        catalogue.match(info.routes[0].ops)
    )
    assert info.devices == ("cpu",)
    assert info.options["tract_version"] == info.version
    assert info.options["call"] == "tract.onnx().load(path).into_model().into_runnable()"
    assert "into_optimized" in info.options["passes"]
    assert info.options["input_facts"].startswith("as the model declares them")


@pytest.mark.parametrize(
    ("options", "complaint"), [({"device": "gpu"}, "unknown device"), ({"x": "1"}, "unknown")]
)
def test_bad_options_are_refused_at_construction(options: dict[str, str], complaint: str) -> None:
    with pytest.raises(UsageError, match=complaint):
        TractAdapter(options)


def _run_snippet(body: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    script = cwd / "reproducer.py"
    script.write_text("import base64\n\nimport numpy as np\n" + body)
    env = {**os.environ, "RUST_BACKTRACE": "0"}
    return subprocess.run(
        [sys.executable, str(script)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )


def test_the_reproducer_runs_with_tract_and_numpy_alone(tmp_path: Path) -> None:
    """Every run of a dynamic case on one loaded model: one printed line of shapes per run, and the
    model written beside it is the suite's, byte for byte."""
    body = route_calls.snippet(TARGET, corpus_items.task_of("runs-dynamic-parts-2-last-axis::onnx.Split-18"))
    assert body is not None and "conformance" not in body
    imports = {line for line in body.splitlines() if line.startswith(("import ", "from "))}
    assert imports == {"import tract"}
    done = _run_snippet(body, tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    # [2, 3, 4], [3, 5, 6], [1, 2, 2] and [2, 2, 5] in 2 along the last axis (Split-18: smaller last piece)
    assert done.stdout.splitlines() == [
        "[(2, 3, 2), (2, 3, 2)]",
        "[(3, 5, 3), (3, 5, 3)]",
        "[(1, 2, 1), (1, 2, 1)]",
        "[(2, 2, 3), (2, 2, 2)]",
    ]
    assert (tmp_path / "model.onnx").read_bytes() == onnx_graphs.model_bytes(
        corpus_items.task_of("runs-dynamic-parts-2-last-axis::onnx.Split-18")
    )


def test_the_reproducer_of_a_crash_aborts_as_the_worker_did(tmp_path: Path) -> None:
    """An axis past the rank: tract panics in the FFI, which cannot unwind, so the process aborts."""
    body = route_calls.snippet(
        TARGET, corpus_items.task_of("axis-rank2-axis2-out-of-range-parts::onnx.Split-13")
    )
    assert body is not None
    done = _run_snippet(body, tmp_path)
    assert done.returncode == -6, done.stderr[-2000:]  # SIGABRT
    assert "hir/src/ops/array/split.rs" in done.stderr and "index out of bounds" in done.stderr


def test_prepare_keeps_backtraces_out_of_tract_s_errors(tmp_path: Path) -> None:
    """With RUST_BACKTRACE=1 tract would capture a stack trace into every error (tens of ms each)."""
    code = (
        "from conformance_tract import TractAdapter, loading\n"
        "from conformance.loading import hooks\n"
        "from conformance.plugin import Target\n"
        "import onnx\n"
        "from onnx import helper, TensorProto\n"
        "hooks.of(TractAdapter({})).prepare(Target('tract', 'onnx', 'cpu'))\n"
        "node = helper.make_node('Split', ['x'], ['a', 'b'], axis=5)\n"
        "x = helper.make_tensor_value_info('x', TensorProto.FLOAT, [4])\n"
        "outputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in 'ab']\n"
        "graph = helper.make_graph([node], 'g', [x], outputs)\n"
        "model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)])\n"
        "model.graph.node[0].input.append('s')\n"
        "model.graph.initializer.append(helper.make_tensor('s', TensorProto.INT64, [2], [2, 2]))\n"
        "try:\n"
        "    loading.load(model.SerializeToString())\n"
        "except Exception as error:\n"
        "    print(type(error).__name__, 'Stack backtrace' in str(error))\n"
    )
    env = {**os.environ, "RUST_BACKTRACE": "1"}
    env.pop("RUST_LIB_BACKTRACE", None)
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )
    assert done.stdout.strip() == "TractError False", done.stderr[-2000:]


#: A slice of every kind of request the route's known issues are about: the invalid requests (most
#: of its panics), the malformed graphs and the explorer's, the 2^31 lengths, the graph options, the
#: documents' examples and the Slice edge cases. 1,248 of 3,907 items, where every entry claims a
#: failure (its panics each cost a worker); ``nox -s extra_targets`` holds every item to the same.
SLICE = "invalid or past-2-31 or graph- or doc or malformed or explore or slice-edge"


@pytest.mark.slow
def test_every_non_pass_is_a_known_issue_and_no_entry_is_stale(tmp_path: Path) -> None:
    """A slice of onnx.* items through real workers, raw: each failure (crashes included) claimed,
    none stale, and every entry claiming one."""
    results = raw_run(tmp_path, "tract", ops=("onnx.*",), targets=("tract/*",), keyword=SLICE, jobs=2)
    assert len(results) > 700 and {result.target_id for result in results} == {"tract/onnx/cpu"}
    assert not [result.key for result in results if result.defect is not None]
    assert_every_failure_claimed(results, ISSUES)
    judged = [known_issues.apply(result, ISSUES) for result in results]
    claimed = {r.known_issue["id"] for r in judged if r.status == "xfail" and r.known_issue is not None}
    assert claimed == {issue.id for issue in ISSUES}, "an entry the slice no longer shows"
