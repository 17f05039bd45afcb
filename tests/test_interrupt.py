"""Ctrl-C, the same for every verb: the results so far and the report are written, the process
exits 130, and the last line says what to type to finish; typing exactly that works.

Each test sends SIGINT to a real ``conformance`` (or ``pytest``) process part-way through, as a
terminal does. The adapter sleeps on every item so the run is still going when the signal lands.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from processes import default_sigint

from conformance.engine import interruption
from conformance.results import document as results_file
from conformance.run.planning import RunConfig, plan
from conformance.run.runner import ExecutionOutcome, execute
from conformance.storage import out_folder

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
SLEEPER = ("--adapter", "fake_adapters:Sleeper", "--option", "fake_adapters:Sleeper.seconds=0.3")
CASES = """\
defaults: {source: interruption tests, data: {dtype: float32}, ops: [numpy.array_split]}
cases:
""" + "".join(
    f"  - {{id: item-{n}, title: t, data: {{shape: [{6 + n}, 3]}}, axis: 0, indices: [1, 3]}}\n"
    for n in range(8)
)
PROFILE = "id: few\ntitle: the few cases\ndescription: interruption tests\nops: [numpy.array_split]\n"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    (tmp_path / "cases" / "profiles").mkdir(parents=True)
    (tmp_path / "cases" / "few.yaml").write_text(CASES, encoding="utf-8")
    (tmp_path / "cases" / "profiles" / "few.yaml").write_text(PROFILE, encoding="utf-8")
    return tmp_path


def _env() -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(TESTS), str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }


def start(corpus: Path, *command: str) -> subprocess.Popen[str]:
    """``conformance COMMAND`` (or ``pytest ...``) in ``corpus``, as typed in a terminal."""
    module = "conformance.cli" if command[0] == "conformance" else command[0]
    return subprocess.Popen(
        [sys.executable, "-m", module, *command[1:]],
        cwd=corpus,
        env=_env(),
        preexec_fn=default_sigint,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def interrupt(process: subprocess.Popen[str], journal: Path, lines: int = 3) -> tuple[str, str]:
    """Ctrl-C once ``journal`` holds ``lines`` results; the process's output."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if journal.exists() and len(journal.read_text().splitlines()) > lines:
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == interruption.EXIT_STATUS, out + err
    assert "Traceback" not in err
    return out, err


def follow(corpus: Path, advice: str) -> subprocess.CompletedProcess[str]:
    """Type exactly the command the advice gives."""
    command = shlex.split(advice)
    assert command[0] == "conformance", advice
    return subprocess.run(
        [sys.executable, "-m", "conformance.cli", *command[1:]],
        cwd=corpus,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )


def last_line(err: str) -> str:
    return err.strip().splitlines()[-1]


@pytest.mark.slow
def test_run_writes_results_and_report_exits_130_and_says_how_to_finish(corpus: Path) -> None:
    process = start(
        corpus, "conformance", "run", "--cases", "cases", *SLEEPER, "--repeat", "0", "--out", "out"
    )
    out, err = interrupt(process, corpus / "out" / "journal.jsonl")
    document, results = results_file.read(corpus / "out" / "results.json")
    assert document["run"]["interrupted"] is True and 3 <= len(results) < 8
    assert (corpus / "out" / "index.html").is_file() and "results in" in out
    assert last_line(err) == "finish with: conformance run --resume --out out"
    done = follow(corpus, last_line(err).removeprefix("finish with: "))
    assert done.returncode == 0, done.stderr
    document, results = results_file.read(corpus / "out" / "results.json")
    assert document["run"]["interrupted"] is False and len(results) == 8
    assert not (corpus / "out" / "journal.jsonl").exists()


@pytest.mark.slow
def test_a_journal_a_new_run_sets_aside_is_finished_by_the_command_it_prints(corpus: Path) -> None:
    process = start(corpus, "conformance", "run", "--cases", "cases", *SLEEPER, "--repeat", "0")
    interrupt(process, corpus / "reports" / "journal.jsonl")
    fresh = follow(corpus, f"conformance run --cases cases {shlex.join(SLEEPER)} --repeat 0 -k 'item-0'")
    assert fresh.returncode == 0, fresh.stderr
    note = next(line for line in fresh.stderr.splitlines() if "set aside" in line)
    folder, _, advice = note.removeprefix("note: an unfinished run's journal was set aside in ").partition(
        "/; finish that run with: "
    )
    assert advice == f"conformance run --resume --out {folder}"
    _, fresh_results = results_file.read(corpus / "reports" / "results.json")
    assert [result.case for result in fresh_results] == ["item-0"]

    refused = follow(corpus, "conformance run --resume")  # the folder's own journal is gone
    assert refused.returncode == 2
    assert f"an unfinished run was set aside in {folder}/; finish it with: {advice}" in refused.stderr

    done = follow(corpus, advice)
    assert done.returncode == 0, done.stderr
    document, results = results_file.read(corpus / folder / "results.json")
    assert len(results) == 8 and document["run"]["interrupted"] is False
    assert [result.case for result in results_file.read(corpus / "reports" / "results.json")[1]] == ["item-0"]


def test_resume_without_a_journal_refuses_before_planning(corpus: Path) -> None:
    done = follow(corpus, "conformance run --resume --cases cases --adapter fake_adapters:Sleeper")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "conformance run: nothing to resume: reports/journal.jsonl does not exist (a run stopped by "
        "Ctrl-C or killed leaves it); leave out --resume to start a run\n"
    )
    assert not (corpus / "reports").exists()


@pytest.mark.slow
def test_certify_writes_results_and_report_no_certificate_and_finishes_on_resume(corpus: Path) -> None:
    command = ["conformance", "certify", "--cases", "cases", *SLEEPER, "--profile", "few", "--out", "cert"]
    out, err = interrupt(start(corpus, *command), corpus / "cert" / "journal.jsonl")
    document, _ = results_file.read(corpus / "cert" / "results.json")
    assert document["run"]["interrupted"] is True and (corpus / "cert" / "index.html").is_file()
    assert not (corpus / "cert" / "certificate.json").exists() and "no certificate (interrupted)" in out
    advice = last_line(err).removeprefix("finish with: ")
    assert advice == shlex.join([*command[:-2], "--resume", "--out", "cert"])
    done = follow(corpus, advice)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "CERTIFIED: sleeper against few" in done.stdout
    assert json.loads((corpus / "cert" / "certificate.json").read_text())["certified"] is True


@pytest.mark.slow
def test_explore_writes_what_it_found_and_says_it_starts_over(corpus: Path) -> None:
    command = ["conformance", "explore", *SLEEPER, "--op", "numpy.array_split", "--max-examples", "30"]
    command += ["--cases", "cases", "--out", "found"]
    out, err = interrupt(start(corpus, *command), corpus / "found" / "journal.jsonl")
    document, _ = results_file.read(corpus / "found" / "results.json")
    assert document["run"]["interrupted"] is True and (corpus / "found" / "index.html").is_file()
    assert "(interrupted)" in out
    said, _, again = last_line(err).partition("; to start again: ")
    assert said == "`conformance explore` does not resume: what finished is written"
    assert again == shlex.join(command)
    done = follow(corpus, again)
    assert done.returncode == 0, done.stderr
    assert results_file.read(corpus / "found" / "results.json")[0]["run"]["interrupted"] is False


@pytest.mark.slow
def test_the_pytest_plugin_writes_results_and_report_and_exits_130(corpus: Path) -> None:
    command = ["pytest", "cases/few.yaml", "-p", "no:cacheprovider", "--conformance-out", "out"]
    command += ["--adapter", "fake_adapters:Sleeper", "--adapter-option", "fake_adapters:Sleeper.seconds=0.3"]
    out, err = interrupt(start(corpus, *command), corpus / "out" / "journal.jsonl")
    assert "interrupted: the results so far are in out/; the same command starts over" in out + err
    assert results_file.read(corpus / "out" / "results.json")[0]["run"]["interrupted"] is True
    assert (corpus / "out" / "index.html").is_file()


def test_the_engine_says_it_was_interrupted(corpus: Path) -> None:
    outcome = _interrupted_run(corpus, corpus / "out")
    assert outcome.interrupted and len(outcome.results) == 2 and outcome.stale == []
    assert (corpus / "out" / "journal.jsonl").is_file()


def test_the_boundary_turns_ctrl_c_anywhere_into_130_and_the_advice() -> None:
    said: list[str] = []
    with interruption.boundary(lambda: "finish with: this", said.append) as verb:
        verb.status = 1
        raise KeyboardInterrupt
    assert (verb.status, verb.interrupted, said) == (130, True, ["finish with: this"])
    with interruption.boundary(lambda: "unused", said.append) as verb:
        verb.status = 1
    assert (verb.status, verb.interrupted, said) == (1, False, ["finish with: this"])


SWALLOWED = """
import gc, os, signal, sys, time
from conformance.engine import interruption

def callback(phase, info):  # as Hypothesis's: Ctrl-C lands inside, and Python swallows it
    if phase == "start" and not fired:
        fired.append(True)
        os.kill(os.getpid(), signal.SIGINT)
        sum(range(1000))

fired = []
gc.callbacks.append(callback)
with interruption.stopping() as stop:
    started = time.monotonic()
    while time.monotonic() - started < 20:
        gc.collect()
print(stop.happened, time.monotonic() - started)
"""


def test_a_ctrl_c_swallowed_in_a_gc_callback_still_stops_the_work() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SWALLOWED],
        env=_env(),
        preexec_fn=default_sigint,
        capture_output=True,
        text=True,
    )
    happened, seconds = done.stdout.split()
    # swallowed, the Ctrl-C would leave the loop to its 20 s: half of that is room for any load
    assert happened == "True" and float(seconds) < 10, done.stdout + done.stderr


def _interrupted_run(corpus: Path, out: Path) -> ExecutionOutcome:
    """A run stopped by Ctrl-C after two results, as `conformance run --out OUT` would leave it."""
    command = ("conformance", "run", "--cases", str(corpus / "cases"), "--adapter", "fake_adapters:Liar")
    config = RunConfig(
        case_paths=(str(corpus / "cases"),),
        adapters=("fake_adapters:Liar",),
        repeat=0,
        out=out,
        command=(*command, "--repeat", "0", "--out", str(out)),
    )
    seen: list[object] = []

    def stop_after_two(result: object) -> None:
        seen.append(result)
        if len(seen) == 2:
            raise KeyboardInterrupt

    return execute(plan(config), config, on_result=stop_after_two)


@pytest.mark.slow
def test_resume_takes_the_folder_or_a_journal_an_earlier_version_moved_aside(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from conformance.cli import main

    _interrupted_run(corpus, corpus / "first")
    assert main(["run", "--resume", str(corpus / "first"), "--out", str(corpus / "other")]) == 2
    assert "name two folders; give the folder once" in capsys.readouterr().err
    assert main(["run", "--resume", str(corpus / "first")]) == 0
    assert len(results_file.read(corpus / "first" / "results.json")[1]) == 8

    _interrupted_run(corpus, corpus / "second")
    moved = corpus / "second" / "journal-123.jsonl"  # what earlier versions did with it
    (corpus / "second" / "journal.jsonl").rename(moved)
    assert main(["run", "--resume", "--out", str(corpus / "second")]) == 2
    assert f"finish it with: conformance run --resume {moved}" in capsys.readouterr().err
    assert main(["run", "--resume", str(moved)]) == 0
    (folder,) = (corpus / "second").glob("interrupted-*")
    assert f"moved {moved} to {folder / 'journal.jsonl'}" in capsys.readouterr().err
    document, results = results_file.read(folder / "results.json")
    assert len(results) == 8 and document["run"]["interrupted"] is False


@pytest.mark.slow
def test_a_run_killed_in_a_folder_of_results_leaves_none_that_look_current(corpus: Path) -> None:
    """A new run moves the folder's results, JUnit XML and report into previous/ as it starts:
    killed before its end (SIGKILL: nothing of its own is written), it once left the earlier
    run's complete files looking like its own."""
    command = ["conformance", "run", "--cases", "cases", *SLEEPER, "--repeat", "0", "--out", "out"]
    first = follow(corpus, shlex.join(command))
    assert first.returncode == 0, first.stderr
    out = corpus / "out"
    earlier = (out / "results.json").read_bytes()
    process = start(corpus, *command)
    deadline = time.monotonic() + 120
    while not (out / "journal.jsonl").is_file() or len((out / "journal.jsonl").read_text().splitlines()) < 3:
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=60)
    assert [name for name in out_folder.RESULTS if (out / name).exists()] == []
    assert (out / "previous" / "results.json").read_bytes() == earlier
    assert {path.name for path in (out / "previous").iterdir()} == {*out_folder.RESULTS, ".conformance-run"}
    done = follow(corpus, "conformance run --resume --out out")
    assert done.returncode == 0, done.stderr
    document, results = results_file.read(out / "results.json")
    assert document["run"]["interrupted"] is False and len(results) == 8
    assert (out / "previous" / "results.json").read_bytes() == earlier  # a resume replaces nothing else
