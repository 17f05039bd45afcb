"""ONNX SplitToSequence-11 on every ONNX target: the sequence's tensors judged as the pieces.

ONNX's reference evaluator and ONNX Runtime run the model and are judged bit for bit; ONNX's shape
inference cannot state a sequence's length and says so for every item. OpenVINO cannot hand a
sequence out of a model, so its onnx route reads it through the SequenceAt or ConcatFromSequence
that consumes it, and is judged the same way. The full runs go through the executor's workers (a
constant scalar split of 0 kills ORT's process, string data OpenVINO's) with raw statuses, and every
failure must be claimed by a shipped known issue; the reproducers the suite attaches to those
results are run as the snippets a reader would paste.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from claims import assert_every_failure_claimed, raw_run

onnx = pytest.importorskip("onnx")
onnxruntime = pytest.importorskip("onnxruntime")
pytest.importorskip("conformance_onnx")
pytest.importorskip("conformance_onnxruntime")

from conformance_onnx import OnnxToolsAdapter  # noqa: E402
from conformance_onnxruntime import OnnxRuntimeAdapter  # noqa: E402
from route_calls import snippet, with_outputs  # noqa: E402

from conformance.corpus.loader import Suite, load_paths  # noqa: E402
from conformance.engine.item import make_task, run_item  # noqa: E402
from conformance.loading import hooks  # noqa: E402
from conformance.plugin import Target  # noqa: E402
from conformance.results.result import Result  # noqa: E402
from conformance.run.rerun import header, snippet_data  # noqa: E402
from conformance.verdict import known_issues  # noqa: E402

CASES = Path(__file__).resolve().parents[2] / "cases"
OP = "onnx.SplitToSequence-11"
REFERENCE = Target("onnx", "reference", "cpu")
SHAPES = Target("onnx", "shape-inference", "cpu")
ORT = Target("onnxruntime", "default", "cpu")
OPENVINO = Target("openvino", "onnx", "CPU")
#: Valid requests both running targets answer bit for bit: the page's examples, each way of giving
#: split, keepdims without split, a negative axis, strings and 64-bit extremes, runs on one model.
PASSING = [
    "sts-doc-with-split-1",
    "sts-doc-with-split-2",
    "sts-doc-nokeepdims",
    "sts-omitted-keepdims-0-negative-axis",
    "sts-omitted-keepdims-0-rank-1",
    "sts-size-remainder",
    "sts-size-larger-than-dim",
    "sts-lengths-uneven-keepdims-0-ignored",
    "sts-int32-lengths-runtime",
    "sts-int64-special",
    "sts-float64-special",
    "sts-string-omitted",
    "sts-dynamic-size-runs",
    "sts-dynamic-runtime-lengths-runs",
    "sts-dynamic-omitted-keepdims-0-runs",
]


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_paths([CASES])


def _full_run(tmp_path: Path, adapter: str) -> list[Result]:
    """Every corpus item of the op on ``adapter``'s targets, raw statuses, through workers."""
    return raw_run(tmp_path, adapter, ops=(OP,), keyword="not large", jobs=1)


@pytest.mark.slow
@pytest.mark.parametrize("case_id", PASSING)
@pytest.mark.parametrize("adapter", [OnnxToolsAdapter, OnnxRuntimeAdapter])
def test_valid_requests_pass_bit_for_bit(suite: Suite, adapter: type, case_id: str) -> None:
    target = REFERENCE if adapter is OnnxToolsAdapter else ORT
    result = run_item(adapter({}), target, suite.by_id(case_id), OP, repeat=0)
    assert (result.status, result.judged) == ("pass", "values"), result.message
    assert "bit for bit" in result.message


def _reversed(pieces: list[np.ndarray]) -> list[np.ndarray]:
    """The sequence's tensors in reverse order: right shapes as a set, wrong pieces."""
    return pieces[::-1]


def _stacked(pieces: list[np.ndarray]) -> list[np.ndarray]:
    """The sequence as one stacked array, as a naive ``np.asarray`` of the output would give it."""
    return [np.stack(pieces)]


@pytest.mark.slow
@pytest.mark.parametrize("change", [_reversed, _stacked])
def test_a_wrongly_unpacked_sequence_fails(
    suite: Suite, change: Callable[[list[np.ndarray]], list[np.ndarray]]
) -> None:
    """The judgement sees the pieces: order and count both matter (pieces [2, 4] of [6, 4])."""
    wrong = with_outputs(OnnxRuntimeAdapter({}), change)
    result = run_item(wrong, ORT, suite.by_id("sts-size-even"), OP, repeat=0)
    assert result.status == "fail", result.message


def test_sequence_output_comes_back_as_its_tensors(suite: Suite) -> None:
    """ORT returns the sequence as a list; the adapter hands on its tensors, values untouched."""
    checked = hooks.of(OnnxRuntimeAdapter({}))
    route = checked.route(ORT)
    assert route.build is not None and route.run is not None
    task = make_task(suite.by_id("sts-doc-with-split-2"), OP)
    pieces = route.run(checked.compiled(route.build(task, ORT), ORT), task)
    assert [piece.shape for piece in pieces] == [(1, 6), (2, 6)]
    np.testing.assert_array_equal(np.concatenate(pieces), task.data)


def test_shape_inference_says_why_it_cannot_judge_a_sequence(suite: Suite) -> None:
    refusal = hooks.of(OnnxToolsAdapter({})).unsupported(make_task(suite.by_id("sts-size-even"), OP), SHAPES)
    assert refusal is not None and "no length" in refusal.reason


#: (adapter, its entry point, a case the adapter's running target fails on by returning pieces)
RUNNING = [
    ("onnx", "conformance_onnx:OnnxToolsAdapter", "sts-lengths-sum-short"),
    ("onnxruntime", "conformance_onnxruntime:OnnxRuntimeAdapter", "sts-runtime-lengths-empty"),
]


@pytest.mark.slow
@pytest.mark.covered_by_main_job  # both are default-run adapters: see noxfile.py tests
def test_every_failure_on_the_running_targets_is_claimed(tmp_path: Path) -> None:
    """Both running targets over every item of the op, raw: every failure claimed, none stale."""
    for adapter, entry, _ in RUNNING:
        results = _full_run(tmp_path / adapter, adapter)
        assert {r.op for r in results} == {OP}
        assert all(r.status == "unsupported" for r in results if r.route == "shape-inference")
        running = [r for r in results if r.route != "shape-inference"]
        assert len(running) > 400 and sum(r.status == "pass" for r in running) > 250
        assert_every_failure_claimed(results, known_issues.shipped(adapter, entry))


@pytest.mark.slow
@pytest.mark.parametrize(("adapter", "failing"), [(adapter, failing) for adapter, _, failing in RUNNING])
def test_the_snippet_of_a_failure_prints_what_the_backend_returned(
    tmp_path: Path, adapter: str, failing: str
) -> None:
    """The reproducer the suite attaches to a failure, run alone, prints what the backend returned."""
    results = raw_run(tmp_path, adapter, ops=(OP,), keyword=failing, jobs=1)
    failed = [r for r in results if r.case == failing and r.route != "shape-inference"]
    _reproducer_prints_what_was_returned(failed[0])  # the first route's (ONNX Runtime has three)


def _reproducer_prints_what_was_returned(result: Result) -> None:
    """The Python reproducer the suite attached to a result that returned the wrong pieces prints
    the shapes the backend returned in the run."""
    assert result.status == "fail" and result.reproducer is not None
    printed = _snippet(result.reproducer["python"])
    assert printed.returncode == 0, printed.stderr[-2000:]
    returned = [tuple(output["shape"]) for output in result.actual.get("outputs", [])]
    assert returned and printed.stdout.strip().splitlines()[-1] == str(returned)


def _snippet(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


#: OpenVINO's answers through the consumers: valid items it passes bit for bit (SequenceAt, n of
#: them), and findings, each with the known issue that must claim it.
OPENVINO_PASSING = [
    "sts-doc-with-split-2",
    "sts-doc-nokeepdims",
    "sts-omitted-keepdims-0-negative-axis",
    "sts-size-remainder",
    "sts-int32-lengths-runtime",
    "sts-dynamic-runtime-lengths-runs",
]
OPENVINO_FINDINGS = {
    "sts-lengths-negative": "onnx-sts-minus1-length-as-remainder",  # read by ConcatFromSequence
    "sts-int16-lengths": "onnx-sts-type-constraints-unchecked",
    "sts-runtime-size": "onnx-sts-scalar-split-needs-constant-and-static-dim",
    "graph-dynamic-size": "onnx-sts-scalar-split-needs-constant-and-static-dim",
    "sts-size-empty-dim": "onnx-sts-empty-dim-piece-not-compiled",
}


@pytest.fixture(scope="module")
def openvino_results(tmp_path_factory: pytest.TempPathFactory) -> list[Result]:
    """Every item of the op on openvino/onnx/CPU, raw, through workers (string data crashes it)."""
    pytest.importorskip("conformance_openvino")
    return raw_run(tmp_path_factory.mktemp("openvino"), "openvino", ops=(OP,), keyword="not large", jobs=1)


@pytest.mark.slow
@pytest.mark.covered_by_main_job  # a default-run adapter: see noxfile.py tests
def test_openvino_is_judged_through_the_consumers(openvino_results: list[Result]) -> None:
    """Valid requests pass bit for bit, findings are claimed by their issue, nothing else is left:
    only complex data and strings ending in NUL stay unsupported, for the adapter's own reasons."""
    by_case = {result.case: result for result in openvino_results}
    for case in OPENVINO_PASSING:
        assert (by_case[case].status, by_case[case].judged) == ("pass", "values"), by_case[case].message
        assert "bit for bit" in by_case[case].message
    issues = known_issues.shipped("openvino", "conformance_openvino:OpenVINOAdapter")
    for case, issue in OPENVINO_FINDINGS.items():
        claimed = known_issues.apply(by_case[case], issues)
        assert (claimed.status, claimed.known_issue and claimed.known_issue["id"]) == ("xfail", issue)
    unsupported = [r.message for r in openvino_results if r.status == "unsupported"]
    assert unsupported and all("no complex element type" in m or "trailing NUL" in m for m in unsupported)
    assert sum(r.status == "pass" for r in openvino_results) > 300
    assert_every_failure_claimed(openvino_results, issues)


@pytest.mark.slow
def test_openvino_snippet_reads_the_pieces_through_sequence_at(tmp_path: Path) -> None:
    """A failure read through SequenceAt (int64 extremes narrowed): its reproducer names the
    consumers and, run alone, prints the shapes of the pieces the backend returned."""
    pytest.importorskip("conformance_openvino")
    found = raw_run(tmp_path, "openvino", ops=(OP,), keyword="sts-int64-special", jobs=1)
    failed = next(r for r in found if r.case == "sts-int64-special" and r.route == "onnx")
    assert failed.reproducer is not None and "2 SequenceAt" in (failed.reproducer["python"] or "")
    _reproducer_prints_what_was_returned(failed)


def test_openvino_records_and_builds_its_consumers(suite: Suite) -> None:
    """The rule is in the adapter's recorded options; a valid request's model reads its n pieces
    with n SequenceAt, an invalid one's joins them with one ConcatFromSequence."""
    openvino = pytest.importorskip("conformance_openvino")
    from conformance.models import sequence_consumers

    rule = openvino.OpenVINOAdapter({}).info().options["onnx_sequence_consumer"]
    assert "SequenceAt" in rule and "ConcatFromSequence" in rule
    valid = make_task(suite.by_id("sts-doc-with-split-2"), OP)  # pieces of 1 and 2 rows
    invalid = make_task(suite.by_id("sts-lengths-negative"), OP)
    expected = [
        (valid, ["SplitToSequence", "SequenceAt", "SequenceAt"]),
        (invalid, ["SplitToSequence", "ConcatFromSequence"]),
    ]
    for task, ops in expected:
        model = onnx.load_from_string(sequence_consumers.model_bytes(task, sequence_consumers.CONCAT))
        assert [node.op_type for node in model.graph.node] == ops
        assert [output.name for output in model.graph.output] == [f"output_{i}" for i in range(len(ops) - 1)]


@pytest.mark.parametrize("target", [REFERENCE, ORT])
def test_reproducers_replay_every_run(suite: Suite, target: Target) -> None:
    """A case with runs: the snippet feeds each run and prints each run's pieces."""
    task = make_task(suite.by_id("sts-dynamic-runtime-lengths-runs"), OP, fill=snippet_data)
    body = snippet(target, task)
    assert body is not None
    ran = _snippet(header(task.item_id, target, "pieces") + body)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert ran.stdout.strip().splitlines() == [
        "[(2, 3), (4, 3)]",
        "[(5, 3), (1, 3)]",
        "[(1, 3), (3, 3)]",
    ]


def test_the_shape_inference_snippet_shows_the_sequence_type_it_infers(suite: Suite) -> None:
    """Never attached (the route is unsupported), but callable: it prints the one element type that
    ONNX infers for every piece, without a count ([6, 4] by 4 gives pieces of 4 and 2: dim unknown)."""
    task = make_task(suite.by_id("sts-lengths-uneven"), OP, fill=snippet_data)
    body = snippet(SHAPES, task)
    assert body is not None
    ran = _snippet(header(task.item_id, SHAPES, "pieces") + body)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert "sequence_type" in ran.stdout and "dim_value: 4" in ran.stdout and "dim_value: 1" not in ran.stdout
