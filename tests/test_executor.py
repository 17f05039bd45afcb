"""The executor under stress: segfaults, aborts, hangs, wrong answers, Ctrl-C and kill -9.

Backends run in worker processes, so each failure must cost exactly one result and the run
must go on; an interrupted run must keep every finished result and finish on --resume.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from processes import default_sigint

from conformance.engine.pool import Pool
from conformance.errors import UsageError
from conformance.loading import registry
from conformance.results import document as results_file
from conformance.results.result import Result
from conformance.run.planning import RunConfig, parse_options, plan
from conformance.run.runner import execute
from conformance.storage.journal import line as journal_line

TESTS = Path(__file__).resolve().parent

CASES = """\
defaults: {source: executor tests, data: {dtype: float32}, ops: [numpy.array_split]}
cases:
""" + "".join(
    f"  - {{id: {name}-{n}, title: t, data: {{shape: [{6 + n}, 3]}}, axis: 0, indices: [1, 3]}}\n"
    for name in ("good", "bad")
    for n in range(4)
)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "few.yaml").write_text(CASES, encoding="utf-8")
    return tmp_path


def configured(corpus: Path, adapter: str, jobs: int = 2, timeout: float = 60, **options: str) -> RunConfig:
    return RunConfig(
        case_paths=(str(corpus / "cases"),),
        adapters=(adapter,),
        options={adapter: options},
        jobs=jobs,
        timeout=timeout,
        repeat=1,
        out=corpus / "reports",
    )


def run(corpus: Path, adapter: str, jobs: int = 2, timeout: float = 60, **options: str):  # type: ignore[no-untyped-def]
    config = configured(corpus, adapter, jobs, timeout, **options)
    return execute(plan(config), config)


def statuses(outcome) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {result.case: result.status for result in outcome.results}


@pytest.mark.slow
def test_a_segfault_costs_one_result_and_the_run_goes_on(corpus: Path) -> None:
    outcome = run(corpus, "fake_adapters:Segfaulter", on="bad-1")
    got = statuses(outcome)
    assert got.pop("bad-1") == "crash"
    assert set(got.values()) == {"pass"} and len(got) == 7
    crash = next(r for r in outcome.results if r.case == "bad-1")
    assert "SIGSEGV" in crash.message and "about to read address 0" in crash.message
    assert crash.expected["outputs"], "a crash result still records what was expected"
    assert outcome.lost_s > 0  # the item that died and its replacement's start


def test_outputs_no_array_can_hold_fail_even_where_the_spec_rejects(corpus: Path) -> None:
    """A backend that returns a piece of negative shape answered wrongly: a fail, never the pass
    of a refusal where the request is invalid, nor the suite's `unsupported`."""
    rejected = "  - {id: bad-axis, title: t, data: {shape: [6, 3]}, axis: 5, indices: [1, 3]}\n"
    (corpus / "cases" / "rejected.yaml").write_text(
        CASES.split("cases:")[0] + "cases:\n" + rejected, encoding="utf-8"
    )
    outcome = run(corpus, "fake_adapters:Impossible", jobs=1, on="bad-*")
    got = statuses(outcome)
    assert {case: got[case] for case in ("bad-0", "bad-axis")} == {"bad-0": "fail", "bad-axis": "fail"}
    assert got["good-0"] == "pass"
    result = next(r for r in outcome.results if r.case == "bad-axis")
    assert "which no array can have" in result.message and result.expected.get("rejected")
    assert result.actual["outputs"] == [
        {"shape": [-3, 3], "dtype": "float32"},
        {"shape": [9, 3], "dtype": "float32"},
    ]


@pytest.mark.slow
def test_an_abort_is_a_crash_too(corpus: Path) -> None:
    outcome = run(corpus, "fake_adapters:Aborter", jobs=1, on="bad-*")
    got = statuses(outcome)
    assert [got[f"bad-{n}"] for n in range(4)] == ["crash"] * 4
    assert all(got[f"good-{n}"] == "pass" for n in range(4))
    assert "SIGABRT" in next(r for r in outcome.results if r.case == "bad-0").message


@pytest.mark.slow
def test_a_crash_in_the_backend_carries_the_backends_time_and_one_outside_none(corpus: Path) -> None:
    # the time a backend spent on an item until it died is the backend's: lost with the worker's
    # result, it was counted the harness's
    in_run = run(corpus, "fake_adapters:Aborter", jobs=1, on="bad-0", seconds="0.2")
    crash = next(r for r in in_run.results if r.case == "bad-0")
    assert crash.status == "crash" and crash.crash is not None and crash.crash["phase"] == "run"
    assert crash.timing.refused_ms is not None and crash.timing.refused_ms >= 200
    assert crash.timing.backend_ms == crash.timing.refused_ms
    in_support = run(corpus, "fake_adapters:Aborter", jobs=1, on="bad-0", **{"in": "support"})
    crash = next(r for r in in_support.results if r.case == "bad-0")
    assert crash.status == "crash" and crash.crash is not None and crash.crash["phase"] == "support"
    assert crash.timing.backend_ms == 0 and crash.timing.refused_ms is None


@pytest.mark.slow
@pytest.mark.parametrize("jobs", [1, 2])
def test_a_hang_becomes_a_timeout(corpus: Path, jobs: int) -> None:
    # each worker has the next job waiting in its pipe: the one behind the hang must still run
    arrivals: list[tuple[float, Result]] = []  # each result, with when the pool handed it on
    pool = Pool(jobs, 3, lambda result: arrivals.append((time.monotonic(), result)), log_dir=corpus / "logs")
    started = time.monotonic()
    pool.process(plan(configured(corpus, "fake_adapters:Hanger", on="bad-2")).jobs)
    got = {result.case: result.status for _, result in arrivals}
    assert got.pop("bad-2") == "timeout" and set(got.values()) == {"pass"} and len(got) == 7
    # its backend hung in the item (it would for an hour) until the worker was killed at the 3 s
    # limit: the backend's time, which its result carries from the build (after the item's start:
    # half the limit leaves the worker room on a loaded machine) to the kill
    at = next(n for n, (_, result) in enumerate(arrivals) if result.case == "bad-2")
    hung = arrivals[at][1]
    assert hung.crash is not None and hung.timing.backend_ms >= 1500
    _assert_the_loss_is_the_replacements_start(pool.lost_s, arrivals, at, started)


def _assert_the_loss_is_the_replacements_start(
    lost_s: float, arrivals: list[tuple[float, Result]], at: int, started: float
) -> None:
    """The harness lost the span from the hung item's start to its replacement's first item's
    start, less the hung backend's own time: bounded by when the results reached the pool, so no
    speed of the machine breaks it. Counting the backend's time as lost exceeds it by half that
    time at least (the margin is for the pool's own steps between a result and the next start)."""
    hung = arrivals[at][1]
    assert hung.crash is not None
    pid, backend_s = hung.crash["pid"], hung.timing.backend_ms / 1000
    earlier = [(when, result.worker["pid"]) for when, result in arrivals[:at] if result.worker]
    # the hung item started when its worker's previous result came (its job waited in the pipe)
    hung_from = max([when for when, worker in earlier if worker == pid], default=started)
    seen = {worker for _, worker in earlier}
    # the replacement's first item started then; with none (the other worker took every job
    # left), the loss ended at the kill, before the hung item's result came
    replacement_from = next(
        (
            when - result.worker["elapsed_ms"] / 1000
            for when, result in arrivals[at + 1 :]
            if result.worker and result.worker["pid"] not in seen
        ),
        arrivals[at][0],
    )
    assert lost_s <= replacement_from - hung_from - backend_s / 2, (lost_s, hung_from, replacement_from)


@pytest.mark.slow
def test_a_worker_that_holds_too_much_memory_is_replaced_between_jobs(corpus: Path) -> None:
    jobs = plan(configured(corpus, "fake_adapters:Hoarder", on="bad-1")).jobs
    for hoarding, workers in ((False, 1), (True, 2)):
        results: list[Result] = []
        pool = Pool(1, 60, results.append, recycle_above_mib=300)
        # one job waiting in its pipe: it is replaced after that one (else up to depth - 1)
        pool.limits = replace(pool.limits, depth=2)
        pool.process(jobs if hoarding else [replace(job, options={}) for job in jobs])
        assert [r.status for r in results] == ["pass"] * 8
        pids = [r.worker["pid"] for r in results if r.worker]
        assert len(set(pids)) == workers
        if hoarding:  # the worker that ran bad-1 ran nothing after its next job
            hoarder = pids[[r.case for r in results].index("bad-1")]
            assert pids.count(hoarder) <= [r.case for r in results].index("bad-1") + 2


@pytest.mark.slow
def test_the_pool_journals_each_result_as_its_worker_encoded_it_and_each_death(corpus: Path) -> None:
    # the parent serves every worker: it writes the line a worker sent instead of encoding the
    # result again, and the line is what encoding the result would have written
    lines: list[str] = []
    results: list[Result] = []
    pool = Pool(1, 60, results.append, journal=lines.append)
    pool.process(plan(configured(corpus, "fake_adapters:Segfaulter", on="bad-1")).jobs)
    assert len(lines) == len(results) == 8
    assert [json.loads(line) for line in lines] == [result.to_json() for result in results]
    assert lines == [journal_line(result) for result in results]
    assert [r.case for r in results if r.status == "crash"] == ["bad-1"]  # a death journaled too


def test_workers_that_cannot_start_stop_the_run_and_blame_no_backend(corpus: Path) -> None:
    # a script read from standard input cannot be imported again by a spawned worker: every worker
    # dies before its first job. That was once every item's crash, "confirmed" by the review.
    script = (
        "import sys\n"
        "from conformance.cli import main\n"
        "sys.exit(main(['run', '--cases', 'cases', '--adapter', 'fake_adapters:Slicer', '--out', 'out']))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-"], input=script, cwd=corpus, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2, done.stderr
    assert "3 workers in a row died (exited with status 1, the last) before their first job" in done.stderr
    assert "<stdin> is none: run the suite from a file or the conformance command" in done.stderr
    assert "prepare()" not in done.stderr  # not blamed on the adapter either
    assert not (corpus / "out" / "results.json").exists()
    assert (corpus / "out" / "journal.jsonl").read_text(encoding="utf-8").count("\n") == 1  # its header


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="the resident memory comes from /proc")
def test_a_forked_process_reads_its_own_resident_memory_not_its_parents() -> None:
    # the worker keeps /proc/self/statm open between items; a process forked after it opened the
    # file (a worker forked from one that had) must not go on reading its parent's figure
    import numpy as np

    from conformance.engine.worker import resident_kib

    before = resident_kib()
    assert before is not None
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child touches 256 MiB of its own, and says how much its reading grew
        try:
            start = resident_kib() or 0
            held = np.ones(256 << 17)  # float64: 256 MiB
            grown = (resident_kib() or 0) - start
            os.write(write, str(grown if held.all() else -1).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as said:
        grown_kib = int(said.read())
    os.waitpid(pid, 0)
    assert grown_kib >= 200 * 1024
    assert (resident_kib() or 0) - before < 100 * 1024  # the parent's own did not grow


def test_freeing_the_model_is_timed_as_the_backends(corpus: Path) -> None:
    outcome = run(corpus, "fake_adapters:SlowRelease", jobs=1)
    for result in outcome.results:
        assert result.status == "pass"
        assert result.timing.release_ms is not None and result.timing.release_ms >= 50
        assert result.timing.backend_ms >= result.timing.release_ms
    _, results = results_file.read(corpus / "reports" / "results.json")  # and the file keeps it
    assert all((r.timing.release_ms or 0) >= 50 for r in results)


def test_the_time_until_a_backend_refuses_is_timed_as_the_backends(corpus: Path) -> None:
    # a refused build or run took the backend's time: before, it was counted as the harness's
    outcome = run(corpus, "fake_adapters:SlowRefusal", jobs=1, on="bad-*")
    for result in outcome.results:
        raised = result.actual["raised"]
        timing = result.timing
        assert timing.refused_ms is not None and timing.refused_ms >= 50
        assert timing.backend_ms >= timing.refused_ms
        if result.case.startswith("bad-"):  # refused in build: nothing after it ran
            assert raised["phase"] == "build" and timing.build_ms is None and timing.compile_ms is None
        else:  # refused in the first run: built and compiled, no run time
            assert raised["phase"] == "run" and timing.build_ms is not None and timing.first_run_ms is None
    assert len(outcome.results) == 8
    _, results = results_file.read(corpus / "reports" / "results.json")  # and the file keeps it
    assert all((r.timing.refused_ms or 0) >= 50 for r in results)


def test_a_wrong_answer_fails_with_the_mismatch(corpus: Path) -> None:
    outcome = run(corpus, "fake_adapters:Liar", on="bad-3")
    wrong = next(r for r in outcome.results if r.case == "bad-3")
    assert wrong.status == "fail"
    assert wrong.mismatch is not None and wrong.mismatch["what"] in ("shape", "values")


@pytest.mark.slow
def test_results_come_in_the_same_order_whatever_the_workers(corpus: Path) -> None:
    first = run(corpus, "fake_adapters:Slicer", jobs=1)
    one = [r.key for r in first.results]
    two = [r.key for r in run(corpus, "fake_adapters:Slicer", jobs=2).results]
    assert one == two and len(one) == 8
    assert first.lost_s == 0  # no worker died
    document, results = results_file.read(corpus / "reports" / "results.json")
    assert [r.key for r in results] == one and document["run"]["jobs"] == 2


def test_known_issues_turn_failures_into_xfail_and_passes_into_xpass(corpus: Path) -> None:
    issues = corpus / "issues.yaml"
    issues.write_text(
        "known_issues:\n"
        "  - {id: liar-swaps, items: ['bad-3::*'], reason: swaps outputs, link: 'https://example.invalid/1'}\n"
        "  - {id: fixed-long-ago, items: ['good-0::*'], reason: was broken, link: 'https://example.invalid/2'}\n"
        "  - {id: never-matches, items: ['nothing::*'], reason: stale, link: 'https://example.invalid/3'}\n",
        encoding="utf-8",
    )
    config = RunConfig(
        case_paths=(str(corpus / "cases"),),
        adapters=("fake_adapters:Liar",),
        options={"fake_adapters:Liar": {"on": "bad-3"}},
        jobs=1,
        repeat=1,
        out=corpus / "reports",
        known_issue_files=(issues,),
    )
    outcome = execute(plan(config), config)
    got = {r.case: r for r in outcome.results}
    assert got["bad-3"].status == "xfail" and got["bad-3"].known_issue["link"] == "https://example.invalid/1"
    assert got["good-0"].status == "xpass"
    # stale: the entry whose item ran and passed; one that selected nothing in this run is not
    assert [issue.id for issue in outcome.stale] == ["fixed-long-ago"]


def _cli(corpus: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "conformance.cli",
            "run",
            "--cases",
            "cases",
            "--adapter",
            "fake_adapters:Sleeper",
            "--option",
            "fake_adapters:Sleeper.seconds=0.4",
            "--repeat",
            "0",
            *args,
        ],
        cwd=corpus,
        preexec_fn=default_sigint,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _journaled(corpus: Path, folder: str = "reports") -> int:
    journal = corpus / folder / "journal.jsonl"
    return max(0, len(journal.read_text().splitlines()) - 1) if journal.exists() else 0


def _wait_until_journaled(
    process: subprocess.Popen[str], corpus: Path, results: int, folder: str = "reports"
) -> None:
    """Wait until the run's journal holds ``results`` results. The deadline only ends a wait for a
    run that went wrong, generous for a loaded machine: the run's items take 0.4 s each."""
    deadline = time.monotonic() + 120
    while _journaled(corpus, folder) < results:
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.05)


@pytest.mark.slow
@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL])
def test_an_interrupted_run_loses_nothing_and_resumes(corpus: Path, how: signal.Signals) -> None:
    process = _cli(corpus)
    _wait_until_journaled(process, corpus, 3)
    process.send_signal(how)
    _, err = process.communicate(timeout=60)
    kept = _journaled(corpus)
    assert 3 <= kept < 8, err
    if how == signal.SIGINT:
        assert process.returncode == 130
        assert "--resume" in err
        assert json.loads((corpus / "reports" / "results.json").read_text())["run"]["interrupted"] is True
    finished = _cli(corpus, "--resume")
    _, err = finished.communicate(timeout=120)
    assert finished.returncode == 0, err
    assert f"resuming: {kept} results already journaled, {8 - kept} to go" in err
    document, results = results_file.read(corpus / "reports" / "results.json")
    assert len(results) == 8 and {r.status for r in results} == {"pass"}
    assert document["run"]["interrupted"] is False
    assert not (corpus / "reports" / "journal.jsonl").exists()


@pytest.mark.slow
def test_resume_alone_restores_the_interrupted_runs_options(corpus: Path) -> None:
    process = _cli(corpus, "-k", "good or bad-0", "--out", "reports/mine")
    journal = corpus / "reports" / "mine" / "journal.jsonl"
    _wait_until_journaled(process, corpus, 2, "reports/mine")
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    advice = err.rpartition("finish with: ")[2].strip()
    assert advice == "conformance run --resume --out reports/mine"
    # exactly what the message says, nothing else: no --cases, --adapter, -k or --option
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-m", "conformance.cli", *advice.split()[1:], "-j", "2"]
    done = subprocess.run(command, cwd=corpus, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "resuming: conformance run --cases cases --adapter fake_adapters:Sleeper" in done.stderr
    document, results = results_file.read(corpus / "reports" / "mine" / "results.json")
    assert sorted(r.case for r in results) == ["bad-0", *(f"good-{n}" for n in range(4))]
    assert {r.status for r in results} == {"pass"} and document["run"]["jobs"] == 2  # -j given now wins
    assert not journal.exists()


@pytest.mark.slow
def test_resuming_a_different_selection_is_refused(corpus: Path) -> None:
    process = _cli(corpus, "-k", "good")
    process.communicate(timeout=60)
    (corpus / "reports" / "journal.jsonl").write_text(
        json.dumps({"schema": "conformance.journal/1", "digest": "sha256:" + "0" * 64}) + "\n"
    )
    again = _cli(corpus, "--resume", "-k", "good")
    _, err = again.communicate(timeout=60)
    assert again.returncode == 2 and "different digest" in err


def test_broken_plugins_are_named(tmp_path: Path) -> None:
    with pytest.raises(registry.PluginError, match=r"adapter 'fake_adapters:nothing'.*failed to import"):
        registry.load("fake_adapters:nothing")
    with pytest.raises(registry.PluginError, match="no adapter named 'nope' is installed"):
        registry.load("nope")
    with pytest.raises(registry.PluginError, match=r"'fake_adapters:time'.*is not callable"):
        registry.load("fake_adapters:time")
    with pytest.raises(registry.PluginError, match=r"'fake_adapters:NotAnAdapter'.*lacks info\(\)"):
        registry.load("fake_adapters:NotAnAdapter")
    with pytest.raises(registry.PluginError, match=r"'fake_adapters:WrongInfo'.*returned dict, not"):
        registry.load("fake_adapters:WrongInfo")


def test_options_parse_with_dotted_adapter_references() -> None:
    assert parse_options(["openvino.device=CPU", "pkg.mod:Cls.x=1=2"]) == {
        "openvino": {"device": "CPU"},
        "pkg.mod:Cls": {"x": "1=2"},
    }
    with pytest.raises(UsageError, match=r"ADAPTER\.KEY=VALUE"):
        parse_options(["device=CPU"])


@pytest.mark.slow
def test_a_torn_or_foreign_journal_line_is_dropped_with_a_warning_and_its_item_runs_again(
    corpus: Path,
) -> None:
    process = _cli(corpus)
    _wait_until_journaled(process, corpus, 3)
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=60)
    journal = corpus / "reports" / "journal.jsonl"
    lines = journal.read_bytes().split(b"\n")
    kept = len([line for line in lines[1:] if line])
    # a line that is JSON but no result, then a last line cut inside a two-byte UTF-8 character
    journal.write_bytes(b"\n".join([*lines[:2], b"[1, 2, 3]", *lines[2:-1]]) + b'\n{"case": "caf\xc3')
    finished = _cli(corpus, "--resume")
    _, err = finished.communicate(timeout=120)
    assert finished.returncode == 0, err
    assert "line 3 is not a result (the result is a JSON array, not object)" in err
    assert f"line {kept + 3} is cut short (the run was killed while writing it)" in err
    _, results = results_file.read(corpus / "reports" / "results.json")
    assert len(results) == 8 and {r.status for r in results} == {"pass"}


@pytest.mark.slow
def test_a_second_run_on_the_same_folder_is_refused_and_names_the_first(corpus: Path) -> None:
    # the first run's last item waits until the second has been refused: on a loaded machine the
    # second's start once took longer than the first's items, and it met a finished run
    gate = corpus / "second-refused"
    first = _cli(
        corpus,
        "--option",
        "fake_adapters:Sleeper.on=bad-3",
        "--option",
        f"fake_adapters:Sleeper.until={gate}",
    )
    _wait_until_journaled(first, corpus, 1)
    second = _cli(corpus, "-k", "good")
    _, err = second.communicate(timeout=120)
    gate.touch()
    assert second.returncode == 2
    assert "reports is being written by another run (process " in err and f"{first.pid}" in err
    _, first_err = first.communicate(timeout=120)
    assert first.returncode == 0, first_err  # the first run lost nothing
    _, results = results_file.read(corpus / "reports" / "results.json")
    assert len(results) == 8
    # once it has ended, the folder is free again (to replace its complete run of every item
    # with one of fewer takes --replace: conformance.storage.out_folder.check_replacing)
    third = _cli(corpus, "-k", "good", "--replace")
    third.communicate(timeout=120)
    assert third.returncode == 0


def test_a_backend_allocating_without_bound_stops_at_the_budget_and_is_no_rejection(corpus: Path) -> None:
    config = RunConfig(
        case_paths=(str(corpus / "cases"),),
        adapters=("fake_adapters:Glutton",),
        options={"fake_adapters:Glutton": {"on": "bad-1"}},
        jobs=1,
        repeat=0,
        out=corpus / "reports",
        memory_budget_mib=256,
    )
    outcome = execute(plan(config), config)
    got = statuses(outcome)
    assert got.pop("bad-1") == "error" and set(got.values()) == {"pass"}
    glutton = next(r for r in outcome.results if r.case == "bad-1")
    assert "out of memory in run: MemoryError" in glutton.message and "--memory-budget" in glutton.message


def test_a_run_that_returns_no_arrays_is_the_adapters_defect(corpus: Path) -> None:
    outcome = run(corpus, "fake_adapters:Forgetful", on="bad-*")
    for result in outcome.results:
        if result.case.startswith("bad-"):
            assert result.status == "error"
            assert "adapter defect in run" in result.message
            assert "returned NoneType, not a sequence of NumPy arrays" in result.message
        else:
            assert result.status == "pass"


def test_an_adapter_that_closes_its_output_costs_no_other_item(corpus: Path) -> None:
    outcome = run(corpus, "fake_adapters:Closer", jobs=1, on="bad-0")
    got = statuses(outcome)
    assert got.pop("bad-0") != "crash" and set(got.values()) == {"pass"}
    assert len({r.worker["pid"] for r in outcome.results if r.worker}) == 1  # the same worker went on


@pytest.mark.slow
def test_a_worker_that_dies_after_starting_a_helper_is_a_crash_and_the_helper_ends_too(
    corpus: Path, tmp_path: Path
) -> None:
    helpers = tmp_path / "helpers.txt"
    started = time.monotonic()
    outcome = run(corpus, "fake_adapters:Orphaner", jobs=1, timeout=600, on="bad-1", helpers=str(helpers))
    # the death is seen at once, not when the helper (which holds the worker's pipe) ends its
    # 120 s sleep nor at the 600 s limit: far from both whatever the machine's load
    assert time.monotonic() - started < 100
    got = statuses(outcome)
    assert got.pop("bad-1") == "crash" and set(got.values()) == {"pass"}
    assert "SIGSEGV" in next(r for r in outcome.results if r.case == "bad-1").message
    pids = [int(line) for line in helpers.read_text().split()]
    assert len(pids) == 2, "one helper in the run, one in the crash review's rerun"
    deadline = time.monotonic() + 60  # half the helper's sleep: it was killed, not waited for
    for pid in pids:
        while Path(f"/proc/{pid}").exists() and "Z" not in Path(f"/proc/{pid}/stat").read_text().split()[2]:
            assert time.monotonic() < deadline, "a helper outlived its worker"
            time.sleep(0.1)


@pytest.mark.slow
def test_a_crash_in_prepare_is_not_blamed_on_an_item(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outcome = run(corpus, "fake_adapters:BrokenPrepare", jobs=1)
    assert set(statuses(outcome).values()) == {"pass"} and len(outcome.results) == 8
    said = capsys.readouterr().err
    assert (
        "a worker died (killed by SIGSEGV) in the adapter's prepare() for broken-prepare/slices/cpu" in said
    )


@pytest.mark.slow
def test_a_crash_writes_no_core_dump_where_the_shell_allows_them(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With core dumps allowed (``ulimit -c unlimited``) and the kernel's pattern a plain file name,
    each crashed worker wrote its whole memory as ``core`` into the folder the run started in."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
    if hard != resource.RLIM_INFINITY and hard < 1 << 30:
        pytest.skip(f"core dumps are capped at {hard} bytes here: the shell cannot allow them")
    pattern = Path("/proc/sys/kernel/core_pattern").read_text(encoding="utf-8").strip()
    if pattern.startswith(("|", "/")) or "/" in pattern:
        pytest.skip(f"cores go to {pattern!r} here, never into the run's folder: nothing to see there")
    resource.setrlimit(resource.RLIMIT_CORE, (hard, hard))
    try:
        monkeypatch.chdir(corpus)
        outcome = run(corpus, "fake_adapters:Aborter", jobs=1, on="bad-0")
    finally:
        resource.setrlimit(resource.RLIMIT_CORE, (soft, hard))
    assert statuses(outcome)["bad-0"] == "crash"
    assert not [path.name for path in corpus.rglob("core*")]
