"""The case format's additions: inputs placed one by one, runs on one built model, declared outputs.

Each contract is checked where it lives: the loader (values, resolution, line-accurate errors), the
catalogue (which ops can express a case), the reference (the ``declared-outputs`` rule, one answer
per run) and the ONNX model builder.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.corpus import catalogue
from conformance.corpus.case import Case, InputPlacement
from conformance.corpus.loader import CaseFileErrors, load_file
from conformance.oracle.reference import Pieces, Rejection, SplitRequest, answer


def _load(tmp_path: Path, body: str) -> list[Case]:
    path = tmp_path / "cases.yaml"
    path.write_text(body, encoding="utf-8")
    return load_file(path)


def _errors(tmp_path: Path, body: str) -> list[str]:
    with pytest.raises(CaseFileErrors) as raised:
        _load(tmp_path, body)
    return [str(error) for error in raised.value.errors]


HEADER = "defaults: {source: test, data: {shape: [6, 4], dtype: float32}, axis: 0}\ncases:\n"


# --- graph.inputs as a mapping -------------------------------------------------------------------


def test_a_mapping_places_each_input_and_leaves_the_rest_constant(tmp_path: Path) -> None:
    (case,) = _load(
        tmp_path, HEADER + "  - {id: a, title: t, lengths: [2, 4], graph: {inputs: {lengths: runtime}}}\n"
    )
    assert case.graph.inputs == InputPlacement(axis="constant", lengths="runtime")
    assert case.graph.runtime("lengths") and not case.graph.runtime("axis")
    assert case.graph.as_dict()["inputs"] == {"axis": "constant", "lengths": "runtime"}


def test_the_word_runtime_still_places_every_input(tmp_path: Path) -> None:
    (case,) = _load(tmp_path, HEADER + "  - {id: a, title: t, lengths: [2, 4], graph: {inputs: runtime}}\n")
    assert case.graph.runtime("lengths") and case.graph.runtime("axis")


@pytest.mark.parametrize(
    ("inputs", "needle"),
    [("{axs: runtime}", "expected constant, runtime, or a mapping"), ("{axis: later}", "expected constant")],
)
def test_a_bad_mapping_is_an_error_on_its_line(tmp_path: Path, inputs: str, needle: str) -> None:
    body = HEADER + "  - id: a\n    title: t\n    lengths: [2, 4]\n    graph:\n      inputs: " + inputs + "\n"
    (message,) = _errors(tmp_path, body)
    assert message.startswith(f"{tmp_path / 'cases.yaml'}:7:"), message
    assert needle in message


def test_an_axis_placed_at_run_time_rules_out_every_onnx_op(tmp_path: Path) -> None:
    (case,) = _load(
        tmp_path, HEADER + "  - {id: a, title: t, lengths: [2, 4], graph: {inputs: {axis: runtime}}}\n"
    )
    # the ops whose axis is an input: OpenVINO's, tf.split's (traced), LiteRT SPLIT_V's
    assert catalogue.applicable_ops(case) == [
        "openvino.VariadicSplit-1",
        "tensorflow.split",
        "tflite.SPLIT_V",
        "paddle.split",
    ]
    reason = catalogue.why_not_applicable(case, catalogue.OPS["onnx.Split-13"])
    assert reason is not None and "axis as an attribute" in reason


def test_lengths_placed_at_run_time_reach_the_ops_that_take_them_as_an_input(tmp_path: Path) -> None:
    (case,) = _load(
        tmp_path, HEADER + "  - {id: a, title: t, lengths: [2, 4], graph: {inputs: {lengths: runtime}}}\n"
    )
    assert catalogue.applicable_ops(case) == [
        "openvino.VariadicSplit-1",
        "onnx.Split-1",
        "onnx.Split-13",
        "onnx.Split-18",
        "tensorflow.split",
        "tflite.SPLIT_V",
        "onnx.SplitToSequence-11",
        "jax.lax.split",
    ]


# --- runs ----------------------------------------------------------------------------------------

RUNS = HEADER + (
    "  - id: r\n"
    "    title: t\n"
    "    lengths: [2, 4]\n"
    "    graph: {inputs: runtime, data_shape: dynamic}\n"
    "    runs:\n"
    "      - {lengths: [3, 3]}\n"
    "      - {shape: [9, 2], lengths: [4, 5], fill: random, seed: 4}\n"
)


def test_runs_resolve_against_the_case(tmp_path: Path) -> None:
    (case,) = _load(tmp_path, RUNS)
    first, second, third = case.all_runs
    assert (first.number, first.form.value, first.data.shape) == (1, (2, 4), (6, 4))
    assert (second.number, second.form.value, second.data.shape, second.data.fill) == (
        2,
        (3, 3),
        (6, 4),
        "arange",
    )
    assert (third.data.shape, third.data.fill, third.data.seed, third.axis) == ((9, 2), "random", 4, 0)
    assert third.describe() == "run 3 (shape [9, 2], lengths [4, 5], fill, seed)"
    assert case.runtime_changes() == {"lengths"}


@pytest.mark.parametrize(
    ("graph", "run", "needle"),
    [
        (
            "{inputs: runtime}",
            "{shape: [7, 4]}",
            "runs[0].shape: a new shape needs graph.data_shape: dynamic",
        ),
        ("{data_shape: dynamic}", "{shape: [6]}", "rank 1 differs from the case's 2"),
        ("{data_shape: dynamic}", "{axis: 1}", "runs[0].axis: the axis is a constant of the model"),
        ("{inputs: {axis: runtime}}", "{lengths: [3, 3]}", "the lengths are constants of the model"),
        ("{inputs: runtime}", "{parts: 2}", "the case asks for 'lengths'; a run changes its values"),
        ("{inputs: runtime}", "{lengths: [1, 2, 3]}", "3 values where the case gives 2"),
        ("{inputs: runtime}", "{lenghts: [1, 2]}", "unknown key 'lenghts'"),
    ],
)
def test_a_run_that_changes_what_the_model_fixes_is_an_error_on_its_line(
    tmp_path: Path, graph: str, run: str, needle: str
) -> None:
    body = (
        HEADER
        + f"  - id: r\n    title: t\n    lengths: [2, 4]\n    graph: {graph}\n    runs:\n      - {run}\n"
    )
    (message,) = _errors(tmp_path, body)
    assert message.startswith(f"{tmp_path / 'cases.yaml'}:8:"), message
    assert needle in message


def test_a_values_case_that_changes_shape_needs_new_data(tmp_path: Path) -> None:
    body = (
        "cases:\n  - id: v\n    title: t\n    source: s\n    axis: 0\n    parts: 2\n"
        "    data: {shape: [2], dtype: int8, values: [1, 2]}\n    graph: {data_shape: dynamic}\n"
        "    runs:\n      - {shape: [4]}\n      - {shape: [4], values: [1, 2, 3]}\n"
    )
    messages = _errors(tmp_path, body)
    assert any("give the run its own fill or values" in message for message in messages), messages
    assert any("runs[1].values" in message and "4" in message for message in messages), messages


def test_an_op_that_cannot_feed_what_a_run_changes_is_not_applicable(tmp_path: Path) -> None:
    body = HEADER + "  - {id: a, title: t, lengths: [2, 4], graph: {inputs: runtime}, runs: [{axis: 1}]}\n"
    (case,) = _load(tmp_path, body)
    assert catalogue.applicable_ops(case) == [
        "openvino.VariadicSplit-1",
        "tensorflow.split",
        "tflite.SPLIT_V",
        "paddle.split",
    ]


def test_each_run_gets_the_reference_answer_for_its_own_request(tmp_path: Path) -> None:
    (case,) = _load(tmp_path, RUNS)
    answers = [answer("onnx.Split-13", SplitRequest.of_run(case, run)) for run in case.all_runs]
    assert [a.outcome for a in answers[:1]] == [Pieces(0, ((0, 2), (2, 6)))]
    assert answers[1].outcome == Pieces(0, ((0, 3), (3, 6)))
    assert answers[2].outcome == Pieces(0, ((0, 4), (4, 9)))


# --- declared outputs ----------------------------------------------------------------------------


def test_declared_outputs_that_disagree_with_the_request_are_rejected_by_their_rule(tmp_path: Path) -> None:
    (case,) = _load(
        tmp_path, HEADER + "  - {id: a, title: t, lengths: [2, 4], graph: {declared_outputs: 3}}\n"
    )
    assert catalogue.applicable_ops(case) == [f"onnx.Split-{v}" for v in (1, 2, 11, 13, 18)]
    outcome = answer("onnx.Split-13", SplitRequest.of(case)).outcome
    assert isinstance(outcome, Rejection) and outcome.rule == "declared-outputs"
    assert "gives 2 outputs, the node declares 3" in outcome.reason


def test_declared_outputs_that_agree_change_nothing(tmp_path: Path) -> None:
    (case,) = _load(
        tmp_path, HEADER + "  - {id: a, title: t, lengths: [2, 4], graph: {declared_outputs: 2}}\n"
    )
    assert answer("onnx.Split-11", SplitRequest.of(case)).outcome == Pieces(0, ((0, 2), (2, 6)))


def test_declared_outputs_need_a_count_apart_from_the_request(tmp_path: Path) -> None:
    (case,) = _load(tmp_path, HEADER + "  - {id: a, title: t, parts: 3, graph: {declared_outputs: 2}}\n")
    assert catalogue.applicable_ops(case) == ["onnx.Split-18"]
    outcome = answer("onnx.Split-18", SplitRequest.of(case)).outcome
    assert isinstance(outcome, Rejection) and outcome.rule == "declared-outputs"


def test_the_onnx_builder_declares_the_outputs_and_feeds_only_what_is_placed_at_run_time(
    tmp_path: Path,
) -> None:
    onnx_graphs = pytest.importorskip("conformance.models.onnx_graphs")
    from conformance.engine.item import make_task

    body = (
        HEADER
        + "  - {id: a, title: t, lengths: [2, 4], graph: {declared_outputs: 3, inputs: {lengths: runtime}}}\n"
    )
    (case,) = _load(tmp_path, body)
    task = make_task(case, "onnx.Split-13")
    model = onnx_graphs.build_model(task)
    assert len(model.graph.node[0].output) == 3
    assert [value.name for value in model.graph.input] == ["data", "split"]
    assert set(onnx_graphs.feeds(task)) == {"data", "split"}
