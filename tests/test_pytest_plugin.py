"""The pytest front door: YAML cases collected as items, run by the same executor."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from processes import default_sigint

TESTS = Path(__file__).resolve().parent

CASES = """\
defaults: {source: plugin tests, data: {dtype: int32}, ops: [numpy.array_split]}
cases:
  - {id: fine, title: t, data: {shape: [6]}, axis: 0, indices: [2]}
  - {id: lied-to, title: t, data: {shape: [6]}, axis: 0, indices: [2, 4]}
  - {id: counted, title: t, data: {shape: [6]}, axis: 0, parts: 2}
"""


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makefile(".yaml", few=CASES)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]))
    return pytester


def test_workers_that_cannot_start_end_the_session_without_failing_items(project: pytest.Pytester) -> None:
    # pytest run from a script read from standard input: no spawned worker can start
    script = "import sys, pytest\nsys.exit(pytest.main(['few.yaml', '--adapter', 'fake_adapters:Liar']))\n"
    done = project.run(sys.executable, "-", stdin=script.encode())
    output = done.stdout.str() + done.stderr.str()
    assert done.ret == pytest.ExitCode.USAGE_ERROR, output  # as the plugin's other input errors
    assert "3 workers in a row died (exited with status 1, the last) before their first job" in output
    assert " failed" not in output and "died in the adapter's prepare()" not in output


@pytest.mark.slow
def test_cases_become_items_with_stable_ids(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess(
        "few.yaml", "--adapter", "fake_adapters:Liar", "--collect-only", "-q"
    )
    result.stdout.fnmatch_lines(
        [
            "few.yaml::fine::numpy.array_split[[]liar/slices/cpu[]]",
            "few.yaml::lied-to::numpy.array_split[[]liar/slices/cpu[]]",
            "few.yaml::counted::numpy.array_split[[]liar/slices/cpu[]]",
        ]
    )


@pytest.mark.slow
def test_results_map_to_pytest_outcomes_and_the_results_file(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess(
        "few.yaml",
        "--adapter",
        "fake_adapters:Liar",
        "--adapter-option",
        "fake_adapters:Liar.on=lied-to",
        "--conformance-jobs",
        "2",
        "-rA",
    )
    result.assert_outcomes(passed=1, failed=1, skipped=1)
    result.stdout.fnmatch_lines(["*lied-to::numpy.array_split@liar/slices/cpu*", "*fail: output 0*"])
    document = json.loads((project.path / "reports" / "results.json").read_text())
    assert {r["case"]: r["status"] for r in document["results"]} == {
        "fine": "pass",
        "lied-to": "fail",
        "counted": "unsupported",
    }


@pytest.mark.slow
def test_pytest_keyword_deselects_before_running(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("few.yaml", "--adapter", "fake_adapters:Liar", "-k", "fine")
    result.assert_outcomes(passed=1, deselected=2)
    document = json.loads((project.path / "reports" / "results.json").read_text())
    assert [r["case"] for r in document["results"]] == ["fine"]


@pytest.mark.slow
def test_inert_without_adapter(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("few.yaml")
    result.stdout.fnmatch_lines(["collected 0 items"])
    assert not (project.path / "reports").exists()


@pytest.mark.slow
def test_the_plugin_plans_as_the_cli_does(project: pytest.Pytester) -> None:
    """One planning path: the same items, in the same order, with the same statuses and report."""
    project.runpytest_subprocess("few.yaml", "--adapter", "fake_adapters:Liar", "-p", "no:cacheprovider")
    through_pytest = json.loads((project.path / "reports" / "results.json").read_text())
    assert (project.path / "reports" / "index.html").is_file()
    done = project.run(
        sys.executable,
        "-m",
        "conformance.cli",
        "run",
        "--cases",
        "few.yaml",
        "--adapter",
        "fake_adapters:Liar",
        "--out",
        "cli",
    )
    assert done.ret == 0, done.stderr.str()
    through_cli = json.loads((project.path / "cli" / "results.json").read_text())

    def keyed(document: dict[str, object]) -> list[tuple[str, str, str]]:
        results = document["results"]
        assert isinstance(results, list)
        return [(r["case"], r["op"], r["status"]) for r in results]

    assert keyed(through_pytest) == keyed(through_cli) != []


@pytest.mark.slow
def test_engine_errors_are_pytest_usage_errors(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess(
        "few.yaml", "--adapter", "fake_adapters:Liar", "--conformance-shard", "4/3"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--conformance-shard*4/3*between 1 and N*"])


@pytest.mark.slow
def test_pytest_and_cli_shards_merge_into_the_unsharded_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One digest per corpus: a pytest shard and CLI shards of one checkout merge into one run."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]))
    corpus = pytester.mkdir("corpus")
    lines = [
        "defaults: {source: plugin tests, data: {dtype: int32, shape: [12]}, ops: [numpy.array_split]}",
        "cases:",
    ]
    lines += [f"  - {{id: piece-{n}, title: t, axis: 0, indices: [{n}]}}" for n in range(1, 13)]
    (corpus / "many.yaml").write_text("\n".join(lines) + "\n")
    (corpus / "empty-for-this-adapter.yaml").write_text(
        "cases:\n  - {id: only-torch, title: t, source: s, ops: [torch.chunk],"
        " data: {shape: [4], dtype: int32}, axis: 0, parts: 2}\n"
    )

    def cli(*arguments: str) -> None:
        done = pytester.run(sys.executable, "-m", "conformance.cli", *arguments)
        assert done.ret in (0, 1), done.stderr.str()

    adapter = ("--adapter", "fake_adapters:Liar")
    cli("run", "--cases", "corpus", *adapter, "--out", "whole")
    cli("run", "--cases", "corpus", *adapter, "--shard", "1/3", "--out", "one")
    cli("run", "--cases", "corpus", *adapter, "--shard", "3/3", "--out", "three")
    pytester.runpytest_subprocess(
        "corpus", *adapter, "--conformance-shard", "2/3", "--conformance-out", "two"
    )
    cli("merge", "one/results.json", "two/results.json", "three/results.json", "-o", "merged")

    def results(folder: str) -> list[tuple[str, str, str]]:
        document = json.loads((pytester.path / folder / "results.json").read_text())
        return [(r["case"], r["op"], r["status"]) for r in document["results"]]

    whole = json.loads((pytester.path / "whole" / "results.json").read_text())
    two = json.loads((pytester.path / "two" / "results.json").read_text())
    assert two["suite"]["digest"] == whole["suite"]["digest"]
    assert results("two") and results("merged") == results("whole")


MANY = "\n".join(
    [
        "defaults: {source: plugin tests, data: {dtype: int32, shape: [40]}, ops: [numpy.array_split]}",
        "cases:",
        *(f"  - {{id: piece-{n:02}, title: t, axis: 0, indices: [{n}]}}" for n in range(1, 31)),
    ]
)

PIECE = re.compile(r"piece-\d\d")


@pytest.mark.slow
@pytest.mark.parametrize("stop", [["-x"], ["--maxfail", "2"]])
def test_x_and_maxfail_stop_the_run_itself(project: pytest.Pytester, stop: list[str]) -> None:
    """Items run in pytest's run phase: stopping pytest stops the run, and the results file holds
    exactly the items that ran (the one failing and the few sent ahead to the workers)."""
    project.makefile(".yaml", many=MANY)
    liar = ("--adapter", "fake_adapters:Liar", "--adapter-option", "fake_adapters:Liar.on=piece-0[27]")
    result = project.runpytest_subprocess("many.yaml", *liar, "--conformance-jobs", "2", *stop)
    failed = 1 if stop == ["-x"] else 2
    result.assert_outcomes(passed=5 if failed == 2 else 1, failed=failed)  # piece-01, 03 to 06
    document = json.loads((project.path / "reports" / "results.json").read_text())
    ran = [r["case"] for r in document["results"]]
    assert "piece-02" in ran and len(ran) < 30, ran
    assert len(ran) <= 7 + 2 * 2 + 2, "at most the window of jobs sent ahead ran past the last failure"
    assert document["run"]["interrupted"] is True
    result.stdout.fnmatch_lines([f"*{len(ran)} of 30 items ran; results: reports*results.json*"])


@pytest.mark.slow
def test_pytests_junit_times_are_the_items_times(project: pytest.Pytester) -> None:
    project.makefile(".yaml", many=MANY)
    project.runpytest_subprocess(
        "many.yaml",
        "--adapter",
        "fake_adapters:Sleeper",
        "--adapter-option",
        "fake_adapters:Sleeper.seconds=0.05",
        "--junitxml",
        "pytest.xml",
    )
    document = json.loads((project.path / "reports" / "results.json").read_text())
    worker_s = {r["case"]: r["worker"]["elapsed_ms"] / 1000 for r in document["results"]}
    junit = ElementTree.parse(project.path / "pytest.xml").getroot()
    times = {
        PIECE.findall(f"{case.get('classname')}::{case.get('name')}")[0]: float(case.get("time", "0"))
        for case in junit.iter("testcase")
    }
    assert set(times) == set(worker_s)
    for case, seconds in worker_s.items():
        assert seconds >= 0.05 and times[case] == pytest.approx(seconds, abs=0.0006), (
            case
        )  # JUnit rounds to ms: half a millisecond off, and a hair more in binary (0.2015 s as 0.202)


@pytest.mark.slow
def test_a_victim_of_a_broken_worker_passes_in_pytest_and_the_culprit_is_named(
    project: pytest.Pytester,
) -> None:
    """The crash review runs as soon as an item dies, before pytest reports it."""
    project.makefile(".yaml", many=MANY)
    poisoner = (
        "--adapter",
        "fake_adapters:Poisoner",
        "--adapter-option",
        "fake_adapters:Poisoner.on=piece-03",
    )
    result = project.runpytest_subprocess("many.yaml", *poisoner, "--conformance-jobs", "1")
    result.assert_outcomes(passed=30)
    result.stdout.fnmatch_lines(["*crash review*1 item(s) died*"])
    # piece-03 was reported passed before piece-04 died of it: the session fails, as the CLI's run does
    result.stdout.fnmatch_lines(["*piece-03::numpy.array_split@poisoner/slices/cpu: reported green, then*"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    document = json.loads((project.path / "reports" / "results.json").read_text())
    statuses = {r["case"]: r["status"] for r in document["results"]}
    assert statuses["piece-03"] == "crash" and statuses["piece-04"] == "pass"
    assert document["run"]["crash_review"]["culprits"] == 1 and document["run"]["interrupted"] is False


@pytest.mark.slow
def test_xdist_gives_the_clis_statuses_in_one_results_file(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``-n 2``: xdist's two workers each run their items (a failure, an unsupported item, a
    crash reviewed where it happened); the controller writes one results file, JUnit XML and
    report, with the statuses ``conformance run`` gives on the same selection.

    ``--dist loadfile``: which items share a worker process decides whether an item that breaks its
    process meets a victim. xdist's default hands items out by load, and on a busy machine it once
    gave piece-03 as the last item of a worker, so nothing died after it and no culprit was named
    (30 passed, where ``conformance run`` names piece-03). Per file, each worker runs its file's
    items in order, as ``conformance run -j 1`` runs them all."""
    project.makefile(".yaml", many=MANY)
    # a temporary folder of its own: another test's session running beside it has its folders in
    # the system's, which the check at the end would count
    private_tmp = project.path / "tmp"
    private_tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(private_tmp))
    poisoner = ("fake_adapters:Poisoner", "fake_adapters:Poisoner.on=piece-03")
    result = project.runpytest_subprocess(
        "many.yaml",
        "few.yaml",
        "--adapter",
        poisoner[0],
        "--adapter-option",
        poisoner[1],
        "-n",
        "2",
        "--dist",
        "loadfile",
        "-p",
        "no:cacheprovider",
    )
    result.stdout.fnmatch_lines(
        ["*33 items ran in xdist's workers; results: reports*results.json*index.html*"]
    )
    cli = project.run(
        sys.executable,
        "-m",
        "conformance.cli",
        "run",
        "--cases",
        "many.yaml",
        "--cases",
        "few.yaml",
        "--adapter",
        poisoner[0],
        "--option",
        poisoner[1],
        "--out",
        "cli",
    )
    # the culprit piece-03 makes both red (pytest reported it passed before the review named it)
    assert cli.ret == result.ret == 1, (cli.errlines, result.outlines)

    xdist, run = (
        json.loads((project.path / folder / "results.json").read_text()) for folder in ("reports", "cli")
    )

    def statuses(document: dict[str, Any]) -> tuple[str, dict[str, str]]:
        return document["suite"]["digest"], {r["case"]: r["status"] for r in document["results"]}

    assert statuses(xdist) == statuses(run)
    assert statuses(xdist)[1]["piece-03"] == "crash" and len(xdist["results"]) == 33
    workers = {r["case"]: r["worker"]["pid"] for r in xdist["results"] if r["worker"]}
    assert workers["fine"] != workers["piece-01"], "each of xdist's two workers ran a file"
    assert (project.path / "reports" / "junit.xml").exists() and (
        project.path / "reports" / "index.html"
    ).exists()
    assert not list(private_tmp.glob("conformance-xdist-*")), "the workers' folders are removed"


@pytest.mark.slow
def test_xdist_with_x_stops_and_marks_the_results_interrupted(project: pytest.Pytester) -> None:
    project.makefile(".yaml", many=MANY)
    liar = ("--adapter", "fake_adapters:Liar", "--adapter-option", "fake_adapters:Liar.on=piece-0[2-9]")
    result = project.runpytest_subprocess("many.yaml", *liar, "-n", "2", "-x", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    document = json.loads((project.path / "reports" / "results.json").read_text())
    assert 0 < len(document["results"]) < 30 and document["run"]["interrupted"] is True


@pytest.mark.slow
def test_xdist_with_a_failure_fails_and_records_it(project: pytest.Pytester) -> None:
    liar = ("--adapter", "fake_adapters:Liar", "--adapter-option", "fake_adapters:Liar.on=lied-to")
    result = project.runpytest_subprocess("few.yaml", *liar, "-n", "2", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1, skipped=1)
    document = json.loads((project.path / "reports" / "results.json").read_text())
    assert {r["case"]: r["status"] for r in document["results"]} == {
        "fine": "pass",
        "lied-to": "fail",
        "counted": "unsupported",
    }


KEYWORD_CASES = """\
defaults: {source: keyword tests, data: {dtype: int32}, ops: [numpy.array_split, torch.chunk]}
cases:
  - {id: even-parts, title: t, tags: [even], data: {shape: [6]}, axis: 0, parts: 2}
  - {id: odd-parts, title: t, tags: [uneven, odd-one], data: {shape: [7], dtype: int64}, axis: 0, parts: 2}
  - {id: points, title: t, tags: [uneven], data: {shape: [6]}, axis: 0, indices: [1, 4]}
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    "expression",
    [
        "uneven",  # a tag, and a substring of no id
        "UNEVEN",  # case is ignored, as pytest ignores it
        "ODD-one",  # a tag, matched ignoring case
        "chunk and not uneven",  # an op
        "numpy/numpy",  # a target
        "emulated",  # part of a target id
        "int64 or indices",  # a dtype, a form
        "words and not chunk",  # the case file's name (every item here)
        "conformance and not parts",  # the marker every item carries
    ],
)
def test_k_keeps_the_same_items_in_both_front_doors(pytester: pytest.Pytester, expression: str) -> None:
    """One -k rule (conformance.corpus.keywords): pytest's own -k over the plugin's items and
    ``conformance run -k`` over its plan keep the same (case, op, target) items."""
    from conformance.run import planning

    pytester.makefile(".yaml", words=KEYWORD_CASES)
    collected = pytester.runpytest_subprocess(
        "words.yaml", "--adapter", "numpy", "--collect-only", "-q", "-p", "no:cacheprovider", "-k", expression
    )
    in_pytest = {line.split("::", 1)[1] for line in collected.outlines if line.startswith("words.yaml::")}
    config = planning.RunConfig(case_paths=("words.yaml",), adapters=("numpy",), keyword=expression)
    in_cli = {f"{job.case.id}::{job.op}[{job.target.id}]" for job in planning.plan(config).jobs}
    everything = planning.plan(planning.RunConfig(case_paths=("words.yaml",), adapters=("numpy",))).jobs
    assert in_pytest == in_cli
    assert 0 < len(in_cli) < len(everything)  # each expression keeps some items, not all


@pytest.mark.slow
def test_markers_select_by_tag_op_family_and_target_under_strict_markers(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", words=KEYWORD_CASES)

    def kept(marker: str) -> set[str]:
        result = pytester.runpytest_subprocess(
            "words.yaml", "--adapter", "numpy", "--collect-only", "-q", "--strict-markers", "-m", marker
        )
        assert result.ret == 0, result.outlines
        return {line.split("::", 1)[1] for line in result.outlines if line.startswith("words.yaml::")}

    assert kept("uneven and torch") == {
        "odd-parts::torch.chunk[numpy/emulated/cpu]"
    }  # chunk takes no indices
    assert kept("numpy/numpy/cpu and even") == {"even-parts::numpy.array_split[numpy/numpy/cpu]"}


def _cli_run(project: pytest.Pytester, *arguments: str) -> pytest.RunResult:
    return project.run(sys.executable, "-m", "conformance.cli", "run", "--repeat", "0", *arguments)


def _snapshot(folder: Path) -> dict[str, bytes]:
    """Every file in ``folder`` but its lock, whose holder each run that takes it writes."""
    files = (path for path in folder.rglob("*") if path.is_file() and path.name != ".lock")
    return {str(path.relative_to(folder)): path.read_bytes() for path in files}


@pytest.mark.slow
@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["alone", "xdist"])
def test_a_narrower_session_is_refused_over_a_fuller_run_and_replace_moves_it_aside(
    project: pytest.Pytester, xdist: list[str]
) -> None:
    """The pytest front door takes its folder as ``conformance run`` does: a session selecting
    less than the complete run there is refused with the CLI's message, naming its own options,
    and leaves the folder as it was; ``--conformance-replace`` moves that run into previous/."""
    assert _cli_run(project, "--cases", "few.yaml", "--adapter", "numpy").ret == 0
    before = _snapshot(project.path / "reports")
    session = ("few.yaml", "--adapter", "numpy", "-k", "fine", "-p", "no:cacheprovider", *xdist)
    refused = project.runpytest_subprocess(*session)
    assert refused.ret == pytest.ExitCode.USAGE_ERROR, refused.outlines
    assert (
        "ERROR: --conformance-out reports: holds the complete run of every item of 1 case file on numpy "
        "(results.json and its report); this run selects -k fine of 1 case file on numpy and would "
        "replace it. Give another folder, e.g. --conformance-out reports/fine, or --conformance-replace "
        "to replace it"
    ) in refused.errlines
    assert _snapshot(project.path / "reports") == before  # no result, page or log written, moved or removed

    replaced = project.runpytest_subprocess(*session, "--conformance-replace")
    assert replaced.ret == 0, replaced.outlines
    replaced.stdout.fnmatch_lines(["note: the earlier results and report moved to reports/previous/"])
    document = json.loads((project.path / "reports" / "results.json").read_text())
    assert {r["case"] for r in document["results"]} == {"fine"}
    assert document["run"]["selection"]["pytest"] == ["-k", "fine"]
    earlier = project.path / "reports" / "previous"
    assert {name: (earlier / name).read_bytes() for name in ("results.json", "junit.xml")} == {
        name: before[name] for name in ("results.json", "junit.xml")
    }
    if not xdist:  # the same session again replaces its own complete run: it records its selection
        again = project.runpytest_subprocess(*session)
        assert again.ret == 0, again.outlines


@pytest.mark.slow
def test_a_cli_run_into_the_folder_of_a_live_session_is_refused_until_it_ends(
    project: pytest.Pytester,
) -> None:
    """The controlling process of ``-n 2`` holds the folder's lock from the session's start (it
    once took it only to write the results at the end, and a CLI run wrote into the folder
    meanwhile); Ctrl-C ends the session and frees the folder."""
    project.makefile(".yaml", many=MANY)
    sleeper = ("--adapter", "fake_adapters:Sleeper", "--adapter-option", "fake_adapters:Sleeper.seconds=2")
    command = [sys.executable, "-m", "pytest", "many.yaml", *sleeper, "-n", "2", "-p", "no:cacheprovider"]
    session = subprocess.Popen(
        command, cwd=project.path, preexec_fn=default_sigint, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    lock = project.path / "reports" / ".lock"
    deadline = time.monotonic() + 120  # only ends a wait for a session that went wrong
    while not (lock.is_file() and "pytest" in lock.read_text()):
        assert session.poll() is None and time.monotonic() < deadline, session.communicate()
        time.sleep(0.05)
    refused = _cli_run(project, "--cases", "few.yaml", "--adapter", "fake_adapters:Liar")
    assert refused.ret == 2, refused.outlines
    held = f"reports is being written by another run (process {session.pid}: pytest many.yaml"
    assert any(held in line for line in refused.errlines), refused.errlines
    assert session.poll() is None, "the session still ran when the CLI was refused"
    session.send_signal(signal.SIGINT)
    output, _ = session.communicate(timeout=120)
    assert session.returncode == 130, output.decode()
    # the interrupted session left no complete run to protect, and no lock: the CLI runs now
    assert _cli_run(project, "--cases", "few.yaml", "--adapter", "fake_adapters:Liar").ret == 0
