"""The full-run benchmark's accounting: an item whose worker died is the backend's time until then."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from benchmarks import full_run
from conformance.results.result import Result, Timing
from conformance.run.runner import ExecutionOutcome


def _result(case: str, timing: Timing, elapsed_ms: float | None) -> Result:
    worker = None if elapsed_ms is None else {"pid": 1, "peak_rss_kib": 1, "elapsed_ms": elapsed_ms}
    return Result(
        case=case, op="onnx.Split-18", adapter="a", route="r", device="cpu", status="pass", message="",
        timing=timing, worker=worker,
    )  # fmt: skip


def test_a_crash_counts_its_backends_time_in_its_target_and_in_the_items() -> None:
    # a passing item (4 ms, 3 of them the backend's) and one whose worker died 10 ms into its run
    passed = _result("a", Timing(first_run_ms=3.0), 4.0)
    crashed = _result("b", Timing(refused_ms=10.0), None).with_status("crash", "died")
    # and one the backend could not be reached for: counted, not judged, and 0 ms
    refused = _result("c", Timing(), 0.0).with_status("unsupported", "no such op")
    ((target, items, judged, _, backend_s, harness_ms),) = full_run.per_target([passed, crashed, refused])
    assert (target, items, judged) == ("a/r/cpu", 3, 2)
    assert abs(backend_s - 0.013) < 1e-9
    assert abs(harness_ms - 1 / 3) < 1e-9  # (14 ms of worker time - 13 of backend) / 3 items, not negative
    outcome = ExecutionOutcome([passed, crashed, refused], [], False, 0.02, [], [], 0.001)
    figures = full_run.figures(outcome, 1, set())
    assert (figures["items"], figures["judged"]) == (3, 2)
    assert abs(figures["in_items_s"] - 0.001) < 1e-9
    assert abs(figures["between_s"] - 0.006) < 1e-9
    # 20 ms of one worker, 13 of them in the backends, over 3 items
    assert abs(figures["harness_ms_per_item"] - 7 / 3) < 1e-9


def test_the_targets_that_load_adapters_in_items_longest_come_first() -> None:
    def loaded(case: str, route: str, load_ms: float | None) -> Result:
        result = replace(_result(case, Timing(), 5.0), route=route)
        if load_ms is not None:
            assert result.worker is not None
            result.worker["load_ms"] = load_ms
        return result

    results = [
        loaded("a", "r", 250.0),
        loaded("b", "r", 500.0),
        loaded("c", "q", 2000.0),
        loaded("d", "p", None),
    ]
    assert full_run.loads_by_target(results) == [("a/q/cpu", 2.0, 1), ("a/r/cpu", 0.75, 2)]
    assert full_run.loads_by_target(results, shown=1) == [("a/q/cpu", 2.0, 1)]


def test_the_crash_reviews_time_can_be_left_out_of_the_harness_share() -> None:
    # 136.8 s in the backends over 232.2 s on two workers, 146 of them the review's
    share = full_run.without_review({"wall_s": 232.2, "backend_s": 136.8}, 146.0, 2)
    assert abs(share - (1 - 136.8 / (2 * 86.2))) < 1e-9
    assert (
        full_run.without_review({"wall_s": 10.0, "backend_s": 9.0}, 0.0, 1)
        == full_run.figures(
            ExecutionOutcome(
                [_result("a", Timing(first_run_ms=9000.0), 9000.0)], [], False, 10.0, [], [], 0.0
            ),
            1,
            set(),
        )["harness_share"]
    )


def test_the_figures_are_written_between_the_pages_markers_and_nowhere_else(tmp_path: Path) -> None:
    page = tmp_path / "performance.md"
    page.write_text(
        f"# Page\n\nbefore\n{full_run.BEGIN}\nold figures\n{full_run.END}\nafter\n", encoding="utf-8"
    )
    full_run.write_section(
        page, full_run.section("wall time (s)   1.0\n", "python benchmarks/full_run.py -k x")
    )
    text = page.read_text(encoding="utf-8")
    assert "old figures" not in text and "wall time (s)   1.0" in text
    assert text.startswith("# Page\n\nbefore\n") and text.endswith("after\n")
    assert "`python benchmarks/full_run.py -k x`" in text and "cores" in text
    bare = tmp_path / "bare.md"
    bare.write_text("no markers\n", encoding="utf-8")
    try:
        full_run.write_section(bare, "x")
    except SystemExit as stop:
        assert "no <!-- benchmark:full-run -->" in str(stop)
    else:
        raise AssertionError("a page without markers was written")
