"""What a CI job can trust: every exit status of the table (conformance.errors.Exit) reached by a
real ``conformance`` process the way a CI system or a shell meets it (a pipe closed by ``head``,
a cancel's SIGTERM, a closed terminal's SIGHUP, a full disk, a read-only folder, an output encoding
without "…"), each ending with its documented status, its files written and no traceback.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import processes
import pytest
from processes import default_sigint, start_cli

from conformance import errors
from conformance.engine import interruption
from conformance.verdict.exit_status import verdict
from conformance.errors import Exit
from conformance.results import document as results_file
from conformance.results.result import Result

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
SLEEPER = ("--adapter", "fake_adapters:Sleeper", "--option", "fake_adapters:Sleeper.seconds=0.3")
FAST = ("--adapter", "fake_adapters:Slicer")
CASES = """\
defaults: {source: exit code tests, data: {dtype: float32}, ops: [numpy.array_split]}
cases:
""" + "".join(
    f"  - {{id: item-{n}, title: 'seven … elements', data: {{shape: [{6 + n}, 3]}},"
    " axis: 0, indices: [1, 3]}\n"
    for n in range(8)
)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "few.yaml").write_text(CASES, encoding="utf-8")
    return tmp_path


def _env(**extra: str) -> dict[str, str]:
    path = os.pathsep.join([str(TESTS), str(ROOT), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path, **extra}


def _conformance(*args: str) -> list[str]:
    return [sys.executable, "-m", "conformance.cli", *args]


#: How long a worker asked to stop may take to exit, for the cancel's test: minutes instead of the
#: engine's seconds, so that a cancel which waits for a hung worker's stop is told apart from one a
#: loaded machine slows down by a margin no load reaches.
STOP_S = 120
#: ``conformance ARGS`` with :data:`STOP_S` for stop_s (the engine's settings are the module's).
WITH_STOP_S = f"""\
import dataclasses, sys
from conformance.engine import settings
settings.ENGINE = dataclasses.replace(settings.ENGINE, stop_s={STOP_S})
from conformance.cli import main
sys.exit(main())
"""


def wait_for(journal: Path, lines: int) -> None:
    deadline = time.monotonic() + 120
    while not (journal.exists() and len(journal.read_text().splitlines()) > lines):
        assert time.monotonic() < deadline, f"{journal} never held {lines} results"
        time.sleep(0.05)


def results(folder: Path) -> tuple[dict[str, object], list[Result]]:
    return results_file.read(folder / "results.json")  # type: ignore[return-value]


@pytest.mark.slow
def test_a_reader_that_stops_early_costs_the_output_not_the_run(corpus: Path) -> None:
    """``conformance run ... 2>&1 | head -1``: the run goes on to its end and its exit status."""
    args = ("run", "--cases", "cases", *FAST, "--repeat", "0", "-j", "1", "--out", "out")
    process = start_cli(corpus, *args, stderr=subprocess.STDOUT)
    assert process.stdout is not None
    process.stdout.readline()
    process.stdout.close()  # what `head -1` does once it has its line
    assert process.wait(timeout=120) == Exit.GREEN
    document, kept = results(corpus / "out")
    assert document["run"]["interrupted"] is False and len(kept) == 8  # type: ignore[index]
    assert (corpus / "out" / "junit.xml").is_file() and (corpus / "out" / "index.html").is_file()


@pytest.mark.slow
def test_closed_streams_and_an_encoding_without_the_characters_change_nothing(corpus: Path) -> None:
    command = shlex.join(_conformance("run", "--cases", "cases", *FAST, "--repeat", "0", "--out", "out"))
    closed = subprocess.run(
        f"{command} 2>&- >&-", shell=True, cwd=corpus, env=_env(), capture_output=True, timeout=120
    )
    assert closed.returncode == Exit.GREEN
    assert len(results(corpus / "out")[1]) == 8
    ascii_only = subprocess.run(
        [*_conformance("list", "--totals", "--cases", "cases"), "-k", "item"],
        cwd=corpus,
        env=_env(PYTHONIOENCODING="ascii"),
        capture_output=True,
        timeout=120,
    )
    assert ascii_only.returncode == Exit.GREEN, ascii_only.stderr
    assert b"Traceback" not in ascii_only.stderr


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_stopping_signal_takes_the_ctrl_c_path(corpus: Path, stop: signal.Signals) -> None:
    process = start_cli(corpus, "run", "--cases", "cases", *SLEEPER, "--repeat", "0", "--out", "out")
    wait_for(corpus / "out" / "journal.jsonl", 3)
    process.send_signal(stop)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 128 + stop == errors.SIGNAL_EXITS[stop.name], err
    assert "Traceback" not in err
    document, kept = results(corpus / "out")
    assert document["run"]["interrupted"] is True and 3 <= len(kept) < 8  # type: ignore[index]
    assert (corpus / "out" / "junit.xml").is_file() and (corpus / "out" / "index.html").is_file()
    assert err.strip().splitlines()[-1] == "finish with: conformance run --resume --out out"
    assert "RED (not finished:" in out


@pytest.mark.slow
def test_a_cancel_with_a_hung_backend_ends_at_once(corpus: Path) -> None:
    """A CI cancel: SIGINT, then SIGTERM a moment later, while a backend hangs. The run ends
    with its results written without waiting for the hung workers to stop (it waited stop_s per
    hung worker before)."""
    hanger = ("--adapter", "fake_adapters:Hanger", "--option", "fake_adapters:Hanger.on=item-[4-7]")
    args = ("run", "--cases", "cases", *hanger, "--repeat", "0", "-j", "2", "--timeout", "600")
    process = subprocess.Popen(
        [sys.executable, "-c", WITH_STOP_S, *args, "--out", "out"],
        cwd=corpus,
        env=_env(),
        preexec_fn=default_sigint,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for(corpus / "out" / "journal.jsonl", 4)
    time.sleep(0.5)  # both workers in a hanging item
    began = time.monotonic()
    process.send_signal(signal.SIGINT)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=0.3)
    if process.returncode is None:  # not done yet: the cancel's second signal
        process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=3 * STOP_S)
    assert time.monotonic() - began < STOP_S / 2, err  # it waited for no hung worker's stop
    # 130; or SIGTERM's own status when it landed after the verb ended, as Python finalizes
    # (which resets the handlers): never 0, and what finished is written either way
    assert process.returncode in (130, -signal.SIGTERM) and "Traceback" not in err
    assert results(corpus / "out")[0]["run"]["interrupted"] is True  # type: ignore[index]


@pytest.mark.slow
def test_a_full_disk_ends_with_one_line_exit_4_and_the_journal_intact(corpus: Path) -> None:
    run = shlex.join(_conformance("run", "--cases", "cases", *SLEEPER, "--repeat", "0", "--out", "small"))
    # a tmpfs of 16 KiB takes the journal's first results and then refuses the rest
    script = (
        f"mkdir -p small && mount -t tmpfs -o size=16k tmpfs small && {run}; status=$?; "
        "cp -r small kept; exit $status"
    )
    ended = processes.namespaced(script, corpus, _env())
    assert ended.returncode == Exit.ENVIRONMENT, ended.stderr
    assert "Traceback" not in ended.stderr
    last = ended.stderr.strip().splitlines()[-1]
    assert last.startswith("stopped: the disk is full") and "--resume --out small" in last
    for line in (corpus / "kept" / "journal.jsonl").read_text().splitlines():
        json.loads(line)  # every line whole: a cut last line is dropped by resume, never half-read


@pytest.mark.slow
def test_a_read_only_output_folder_ends_with_one_line_and_exit_4(corpus: Path) -> None:
    """A new folder on a read-only file system, and one an earlier run marked that became so."""
    (corpus / "new").mkdir()
    for folder, cause in (
        ("new", "--out new: cannot be written"),
        ("marked", "the file system is read-only"),
    ):
        run = shlex.join(_conformance("run", "--cases", "cases", *FAST, "--repeat", "0", "--out", folder))
        before = f"{run} >/dev/null 2>&1; " if folder == "marked" else ""
        script = f"{before}mount --bind {folder} {folder} && mount -o remount,bind,ro {folder} && {run}"
        ended = processes.namespaced(script, corpus, _env())
        assert ended.returncode == Exit.ENVIRONMENT, ended.stderr
        assert "Traceback" not in ended.stderr
        assert ended.stderr.strip().splitlines()[-1].startswith(f"stopped: {cause}"), ended.stderr


def test_the_boundary_turns_the_machines_failures_into_exit_4_and_one_line() -> None:
    said: list[str] = []
    for failure in (
        MemoryError(),
        OSError(28, "No space left on device", "out/journal.jsonl"),
        OSError(30, "Read-only file system", "out/results.json"),
    ):
        with interruption.boundary(lambda: "finish with: X", said.append) as verb:
            raise failure
        assert verb.status == Exit.ENVIRONMENT
        assert said[-1].startswith("stopped: ") and said[-1].endswith("; finish with: X")
    assert "writing out/journal.jsonl" in said[1]
    with pytest.raises(OSError), interruption.boundary(lambda: "", said.append):
        raise FileNotFoundError(2, "No such file", "x")  # not the machine's: a bug keeps its traceback


def _result(status: str, defect: str | None = None) -> Result:
    return Result("c", "numpy.split", "numpy", "numpy", "cpu", status, "", defect=defect)  # type: ignore[arg-type]


def test_the_verdict_line_says_green_only_for_a_whole_judged_selection() -> None:
    clean = [_result("pass"), _result("xfail"), _result("unsupported")]
    assert verdict(clean, 3, False).startswith("GREEN: 3 results; 0 unexplained findings, 1 known issues")
    assert verdict(clean, 5, False).startswith("RED (not finished: 3 of 5 items judged)")
    assert verdict(clean, 3, True).startswith("RED (not finished")
    assert verdict([_result("unsupported")], 1, False).startswith("RED (nothing judged)")
    red = verdict([_result("fail"), _result("error", "adapter"), _result("xpass")], 3, False)
    assert red.startswith("RED: 3 results; 1 unexplained findings, 0 known issues, 1 adapter or harness")
    assert "1 known issues that passed (xpass)" in red


@pytest.mark.slow  # seconds: subprocesses or imported backends
def test_every_verb_lists_its_exit_statuses_in_its_help() -> None:
    for verb, codes in errors.VERB_EXITS.items():
        shown = subprocess.run(
            _conformance(verb, "--help"), capture_output=True, text=True, env=_env(), timeout=60
        )
        table = shown.stdout.partition("exit status:\n")[2]
        listed = [int(line.split()[0]) for line in table.splitlines() if line[:6].strip().isdigit()]
        assert listed == list(codes), verb


def test_the_docs_hold_the_exit_table_the_code_has() -> None:
    docs = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    assert errors.exit_markdown() in docs, (
        "regenerate docs/results.md's table: conformance.errors.exit_markdown()"
    )
