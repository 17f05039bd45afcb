"""Cases with ``runs:``: one model built and compiled once, every run judged on its own.

Adapters here answer through the reference's own arithmetic, from the task ``run`` is handed
(right) or from the task the model was built from (a backend that keeps the first request's
values, the bug runs exist to catch), so each verdict below could come out either way.
"""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest
from fake_adapters import Answering

from conformance.corpus.case import Case
from conformance.corpus.loader import load_file
from conformance.engine.item import run_item
from conformance.plugin import Target
from conformance.results.document import schema
from conformance.results.result import Result

TARGET = Target("fake", "graph", "cpu")

CASES = """
defaults: {source: test, axis: 0, data: {shape: [6, 4], dtype: float32}}
cases:
  - id: lengths-change
    title: runtime lengths that change
    ops: [openvino.VariadicSplit-1]
    lengths: [2, 4]
    graph: {inputs: runtime}
    runs:
      - {lengths: [3, 3]}
      - {lengths: [1, 5]}
  - id: invalid-then-valid
    title: a refused run between two valid ones
    ops: [openvino.VariadicSplit-1]
    lengths: [2, 4]
    graph: {inputs: runtime}
    runs:
      - {lengths: [3, 4]}
      - {lengths: [5, 1]}
  - id: shape-change
    title: a count on dynamic dims at another shape
    ops: [torch.chunk]
    parts: 3
    graph: {data_shape: dynamic}
    runs:
      - {shape: [2, 4]}
"""


@pytest.fixture
def cases(tmp_path: Path) -> dict[str, Case]:
    path = tmp_path / "runs.yaml"
    path.write_text(CASES, encoding="utf-8")
    return {case.id: case for case in load_file(path)}


def test_every_run_passes_when_the_backend_feeds_each_runs_values(cases: dict[str, Case]) -> None:
    result = run_item(Answering({}), TARGET, cases["lengths-change"], "openvino.VariadicSplit-1", repeat=0)
    assert result.status == "pass", result.message
    assert result.message.startswith("all 3 runs pass")
    assert [run["status"] for run in result.runs] == ["pass"] * 3
    assert [run["request"]["form"]["value"] for run in result.runs] == [[2, 4], [3, 3], [1, 5]]
    assert len(result.timing.runs_ms) == 2


def test_a_backend_that_keeps_the_first_runs_values_fails_on_the_run_that_shows_it(
    cases: dict[str, Case],
) -> None:
    result = run_item(
        Answering({"stale": "1"}), TARGET, cases["lengths-change"], "openvino.VariadicSplit-1", repeat=0
    )
    assert result.status == "fail"
    assert result.run == 2
    assert result.message.startswith("run 2 (lengths [3, 3]): ")
    assert result.mismatch is not None and result.mismatch["run"] == 2
    assert [run["status"] for run in result.runs] == ["pass", "fail", "fail"]
    assert result.expected["outputs"][0]["shape"] == [3, 4]


def test_a_refused_run_leaves_the_model_to_the_next(cases: dict[str, Case]) -> None:
    result = run_item(
        Answering({}), TARGET, cases["invalid-then-valid"], "openvino.VariadicSplit-1", repeat=0
    )
    assert result.status == "pass", result.message
    assert [run["status"] for run in result.runs] == ["pass", "pass", "pass"]
    assert "raised" in result.runs[1]["actual"] and "outputs" in result.runs[2]["actual"]


def test_a_refusal_of_a_valid_run_is_the_items_error(cases: dict[str, Case]) -> None:
    result = run_item(
        Answering({"refuse_run": "3"}), TARGET, cases["lengths-change"], "openvino.VariadicSplit-1", repeat=0
    )
    assert (result.status, result.run) == ("error", 3)
    assert result.message.startswith("run 3 (lengths [1, 5]): rejected a valid input in run")


def test_a_refusal_while_building_refuses_every_run(cases: dict[str, Case]) -> None:
    result = run_item(
        Answering({"refuse_build": "1"}),
        TARGET,
        cases["invalid-then-valid"],
        "openvino.VariadicSplit-1",
        repeat=0,
    )
    assert [run["status"] for run in result.runs] == ["error", "pass", "error"]
    assert all(run["actual"]["raised"]["phase"] == "build" for run in result.runs)
    assert (result.status, result.run) == ("error", 1)


def test_each_run_is_judged_at_its_own_shape(cases: dict[str, Case]) -> None:
    result = run_item(Answering({}), TARGET, cases["shape-change"], "torch.chunk", repeat=0)
    assert result.status == "pass", result.message
    assert [len(run["expected"]["outputs"]) for run in result.runs] == [3, 2]


def test_results_with_runs_fit_the_results_schema_and_survive_a_round_trip(cases: dict[str, Case]) -> None:
    result = run_item(
        Answering({"stale": "1"}), TARGET, cases["lengths-change"], "openvino.VariadicSplit-1", repeat=0
    )
    record = result.to_json()
    assert record["run"] == 2 and len(record["runs"]) == 3
    results_schema = schema()
    validator = jsonschema.Draft202012Validator({"$defs": results_schema["$defs"], "$ref": "#/$defs/result"})
    assert list(validator.iter_errors(record)) == []
    assert Result.from_json(record) == result
    broken = {**record, "runs": [{**record["runs"][0], "status": "bogus"}]}
    assert list(validator.iter_errors(broken)), "the schema must check each run's status"
