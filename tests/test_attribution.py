"""Who rejected: only the backend's exception is a rejection a spec can ask for (issue: a stub or
a broken lookup must never score a pass), and an output type the suite does not know is a dtype
mismatch, not a harness failure."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from fake_adapters import TableAdapter

from conformance.corpus.loader import load_paths
from conformance.corpus.selection import select
from conformance.engine.attribution import attribute
from conformance.engine.item import run_item
from conformance.ids import Target
from conformance.results.result import Result

CASES = Path(__file__).resolve().parent.parent / "cases"
TARGET = Target("table", "table", "cpu")


def run_all(flaw: str) -> list[Result]:
    """Every numpy.split / array_split item of the corpus on the table adapter with ``flaw``."""
    suite = load_paths([CASES])
    adapter = TableAdapter({"flaw": flaw})
    return [
        run_item(adapter, TARGET, item.case, item.op, repeat=0)
        for item in select(suite.cases, ("numpy.split", "numpy.array_split"), keyword="not large")
    ]


@pytest.mark.slow
@pytest.mark.parametrize("flaw", ["keyerror", "adaptererror", "stub", "dim"])
def test_an_adapter_defect_never_passes(flaw: str) -> None:
    results = run_all(flaw)
    statuses = Counter(result.status for result in results)
    assert len(results) > 600 and statuses == {"error": len(results)}, statuses
    first = results[0]
    assert (
        first.message.startswith("adapter defect in ")
        and "only the backend's refusal counts" in first.message
    )
    assert first.actual["raised"]["origin"] == "adapter"


@pytest.mark.slow
def test_a_model_builder_failure_means_cannot_be_built() -> None:
    results = run_all("builder")
    assert {result.status for result in results} == {"unsupported"}
    assert results[0].message.startswith("cannot be built by the suite's model builder (conformance.models")


@pytest.mark.slow
@pytest.mark.parametrize("flaw", ["none", "refusal"])
def test_the_backends_refusals_still_count(flaw: str) -> None:
    """numpy's own refusals, marked by backend_calls() or BackendRefusal, pass the invalid cases."""
    results = run_all(flaw)
    rejected = [result for result in results if "rejected" in result.expected]
    assert rejected and all(result.status == "pass" for result in rejected)
    assert {result.actual["raised"]["origin"] for result in rejected} == {"backend"}
    assert Counter(result.status for result in results)["error"] == 0


@pytest.mark.slow
def test_an_unknown_output_type_is_a_dtype_mismatch() -> None:
    results = run_all("datetime")
    returned = [result for result in results if result.actual.get("outputs")]
    assert returned and all(result.status == "fail" for result in returned)
    assert all(result.mismatch and result.mismatch["what"] == "dtype" for result in returned)
    assert "datetime64[s]" in returned[0].message


def test_a_call_into_native_code_is_the_backends_a_raise_is_the_adapters() -> None:
    import numpy as np

    def native() -> None:
        np.arange(6).reshape(4)

    def own() -> None:
        raise ValueError("the adapter's own check")

    for function, origin in ((native, "backend"), (own, "adapter")):
        try:
            function()
        except ValueError as error:
            assert attribute(error, __name__).origin == origin


def test_a_failing_reference_is_a_harness_error_and_the_worker_lives(tmp_path: Path) -> None:
    from conformance.run.planning import RunConfig, plan
    from conformance.run.runner import execute

    config = RunConfig(
        case_paths=(str(CASES / "indices.yaml"),),
        adapters=("fake_adapters:ReferenceBreaker",),
        repeat=0,
        out=tmp_path,
        junit=False,
    )
    made = plan(config)
    outcome = execute(made, config)
    assert len(outcome.results) == len(made.jobs) > 2
    assert {result.status for result in outcome.results} == {"error"}
    assert all("the reference failed too: ZeroDivisionError" in result.message for result in outcome.results)
    pids = {result.worker["pid"] for result in outcome.results if result.worker}
    assert len(pids) == 1  # one worker served them all: none died
