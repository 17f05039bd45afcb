"""Hostile and careless case files: each ends in the suite's own error or defect, naming the
file, line or case, without allocating what the file asks for (measured as memory, which no load
on the machine changes, not as time)."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from fake_adapters import Slicer

from benchmarks import mutation
from conformance.corpus.loader import load_paths
from conformance.engine.item import run_item
from conformance.oracle.corpus_check import check_corpus
from conformance.oracle.reference import MAX_PIECES
from conformance.plugin import Target


T = TypeVar("T")
#: the most a refusal may hold at once: it takes kilobytes, what the requests ask for takes from
#: 40 MB (10,000,000 float32 elements) to gigabytes (a million pieces: 150 MB of arrays)
REFUSAL_BYTES = 16 << 20


def _peak_bytes(call: Callable[[], T]) -> tuple[T, int]:
    """What ``call()`` returns, and the most memory it held at once (NumPy reports its arrays'
    memory to tracemalloc too)."""
    tracing = tracemalloc.is_tracing()
    if not tracing:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        returned = call()
        return returned, tracemalloc.get_traced_memory()[1] - before
    finally:
        if not tracing:
            tracemalloc.stop()


def _case_file(tmp_path: Path, body: str, dtype: str = "float32") -> Path:
    path = tmp_path / "hostile.yaml"
    path.write_text(
        f"defaults: {{source: hostile tests, data: {{dtype: {dtype}}}}}\ncases:\n" + body, encoding="utf-8"
    )
    return path


@pytest.mark.parametrize(
    ("body", "said"),
    [
        # a million pieces of an empty dimension, a size of 1 on a dimension of 10^7
        (
            "  - {id: many, title: t, data: {shape: [0]}, axis: 0, parts: 1000000, ops: [numpy.split]}\n",
            "1,000,000 pieces",
        ),
        (
            "  - {id: sizes, title: t, data: {shape: [10000000]}, axis: 0, size: 1, ops: [torch.split]}\n",
            "10,000,000 pieces",
        ),
        (
            "  - {id: w, title: t, data: {shape: [4]}, axis: 0, parts: 2147483648, ops: [onnx.Split-18]}\n",
            "2,147,483,648 pieces",
        ),
    ],
)
def test_a_request_for_too_many_pieces_is_a_defect_not_an_allocation(
    tmp_path: Path, body: str, said: str
) -> None:
    cases = load_paths([_case_file(tmp_path, body)]).cases
    defects, peak = _peak_bytes(lambda: check_corpus(cases))
    assert peak < REFUSAL_BYTES
    assert any(said in defect.message and f"{MAX_PIECES:,}" in defect.message for defect in defects), defects


def test_an_item_with_too_many_pieces_is_not_judged_and_builds_nothing(tmp_path: Path) -> None:
    body = (
        "  - {id: many, title: t, data: {shape: [0, 3]}, axis: 0, parts: 1000000, ops: [numpy.array_split]}\n"
    )
    (case,) = load_paths([_case_file(tmp_path, body)]).cases
    result, peak = _peak_bytes(
        lambda: run_item(Slicer({}), Target("slicer", "slices", "cpu"), case, "numpy.array_split")
    )
    assert peak < REFUSAL_BYTES
    assert result.status == "unsupported" and "1,000,000 pieces" in result.message
    assert "not judged" in result.message


@pytest.mark.parametrize(
    ("values", "said"),
    [
        ("[[[1, 2], [3]], [[4, 5], [6, 7]]]", "cannot be read as a float32 array"),
        ("[[[a, b]], [[c, d]]]", "cannot be read as a float32 array"),
    ],
)
def test_unreadable_expected_values_are_a_defect(tmp_path: Path, values: str, said: str) -> None:
    body = (
        "  - {id: ragged, title: t, data: {shape: [4, 2], fill: arange}, axis: 0, parts: 2,"
        f" ops: [numpy.array_split], expect: {{values: {values}}}}}\n"
    )
    defects = check_corpus(load_paths([_case_file(tmp_path, body)]).cases)
    assert any(said in defect.message and defect.case_id == "ragged" for defect in defects), defects


def test_expected_values_on_huge_data_are_not_filled_by_the_audit(tmp_path: Path) -> None:
    body = (
        "  - {id: huge, title: t, data: {shape: [100000, 100000], fill: arange}, axis: 0, parts: 2,"
        " ops: [numpy.array_split], expect: {values: [[[0]], [[0]]]}}\n"
    )
    cases = load_paths([_case_file(tmp_path, body, "float64")]).cases
    defects, peak = _peak_bytes(lambda: check_corpus(cases))
    assert peak < REFUSAL_BYTES
    assert any("80,000,000,000 bytes of data" in defect.message for defect in defects), defects


@pytest.mark.slow
def test_a_seeded_mutation_run_over_the_corpus_has_no_traceback_and_no_hang() -> None:
    # each mutant is validated in a memory-limited child; ~40 a second here
    outcomes = mutation.check(seed=20261123, count=600, timeout_s=20)
    bad = [outcome for outcome in outcomes if outcome.kind in ("traceback", "died", "hang")]
    assert not bad, "\n\n".join(f"{o.kind}: {o.name}\n{o.detail}" for o in bad[:5])
    kinds = {outcome.kind for outcome in outcomes}
    assert {"ok", "error", "defects"} <= kinds  # the mutants reach the loader, the schema and the audit


def test_an_item_over_the_memory_budget_is_refused_before_any_allocation(tmp_path: Path) -> None:
    from conformance.run.planning import RunConfig, plan
    from conformance.run.runner import execute

    op = "ops: [numpy.array_split]"
    body = (
        f"  - {{id: big, title: t, data: {{shape: [8192, 8192]}}, axis: 0, indices: [1], {op}}}\n"
        f"  - {{id: small, title: t, data: {{shape: [4, 2]}}, axis: 0, indices: [1], {op}}}\n"
    )
    config = RunConfig(
        case_paths=(str(_case_file(tmp_path, body)),),
        adapters=("fake_adapters:Slicer",),
        repeat=0,
        out=tmp_path / "out",
        memory_budget_mib=512,
    )
    got = {result.case: result for result in execute(plan(config), config).results}
    assert got["small"].status == "pass" and got["big"].status == "unsupported"
    assert "over the memory budget of 0.5 GiB; raise it with --memory-budget" in got["big"].message
    assert got["big"].timing.build_ms is None and not got["big"].actual  # refused before data or model


def test_a_directory_that_cannot_be_listed_is_named_not_taken_for_an_empty_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # root reads every directory, so the refusal a user without the permission meets is simulated
    import os

    from conformance.corpus.loader import CaseFileErrors

    (tmp_path / "cases" / "locked").mkdir(parents=True)
    real = os.scandir

    def scandir(path: object) -> object:
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", scandir)
    with pytest.raises(CaseFileErrors) as refused:
        load_paths([tmp_path / "cases"])
    (error,) = refused.value.errors
    assert error.file.endswith("locked") and "cannot read this directory" in error.message
