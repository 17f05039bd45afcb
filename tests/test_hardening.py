"""Input and surroundings a careless CI script or a hostile pull request brings: an option for a
misspelt adapter, a number that is not one, a results file holding one result twice, a read-only
destination, a C locale with a non-ASCII path, a case too large to be one. Each is refused where
it is given, or handled alike by every verb; the runs are real runs of the NumPy adapter."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import processes
import pytest

from conformance import options
from conformance.cli import main
from conformance.errors import Exit, UsageError
from conformance.explore import generated
from conformance.results import document as results_file
from conformance.run import planning

TESTS = Path(__file__).resolve().parent
#: a corpus the NumPy adapter runs in a second: every item passes
FEW = """\
defaults: {source: hardening tests}
cases:
  - {id: six-in-two, title: 'six … in two', data: {shape: [6, 2], dtype: float32}, axis: 0, lengths: [2, 4]}
  - {id: six-in-three, title: t, data: {shape: [6], dtype: int32}, axis: 0, parts: 3}
"""
#: numpy.vsplit refuses 1-D data: an error the NumPy adapter's shipped known issues expect
VSPLIT_1D = """\
defaults: {source: hardening tests}
cases:
  - {id: vsplit-1d, title: t, ops: [numpy.vsplit], data: {shape: [6], dtype: float32}, parts: 3}
"""


def _env(**extra: str) -> dict[str, str]:
    path = os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path, **extra}


def _cli(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "conformance.cli", *args],
        cwd=cwd,
        env=_env(**env),
        capture_output=True,
        text=True,
        errors="replace",
        timeout=300,
    )


def _run(cwd: Path, cases: str, out: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return _cli(
        cwd, "run", "--cases", cases, "--adapter", "numpy", "--repeat", "0", "--out", out, *args, **env
    )


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    (tmp_path / "few.yaml").write_text(FEW, encoding="utf-8")
    (tmp_path / "vsplit.yaml").write_text(VSPLIT_1D, encoding="utf-8")
    return tmp_path


# --option names an adapter (6)


@pytest.mark.parametrize(
    "verb",
    [
        ["run"],
        ["explore", "--max-examples", "1"],
        ["certify", "--profile", "numpy-split"],
    ],
)
def test_an_option_for_an_adapter_not_installed_is_refused_with_the_closest_name(
    corpus: Path, verb: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """``--option nmpy.device=cpu`` once ran green on the default device, the option dropped."""
    out = corpus / "out"
    given = ["--cases", str(corpus / "few.yaml"), "--adapter", "numpy", "--option", "nmpy.device=cpu"]
    assert main([*verb, *given, "--out", str(out)]) == Exit.USAGE
    err = capsys.readouterr().err
    assert "--option 'nmpy.device=cpu': no adapter named 'nmpy' is installed" in err
    assert "did you mean numpy?" in err
    assert not (out / "results.json").exists()


def test_the_pytest_front_door_reads_option_names_through_the_same_check() -> None:
    """The plugin plans through options.run_config, as the verbs do: the same refusal."""
    given = {"adapter": ["numpy"], "option": ["nmpy.device=cpu"], "out": "reports", "jobs": 1, "timeout": 1.0}
    with pytest.raises(UsageError, match="did you mean numpy"):
        options.run_config(given.get, ("pytest",), case_paths=("cases",))


def test_an_option_for_an_adapter_loaded_by_reference_needs_that_adapter_in_the_run() -> None:
    reference = "fake_adapters:Slicer"
    assert planning.parse_options([f"{reference}.on=x"], [reference]) == {reference: {"on": "x"}}
    assert planning.parse_options(["numpy.device=cpu"], [reference]) == {"numpy": {"device": "cpu"}}
    with pytest.raises(UsageError, match=r"no adapter named 'fake_adapters:Slicer'.*installed: .*numpy"):
        planning.parse_options([f"{reference}.on=x"], ["numpy"])


# numbers are finite (8)


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--timeout", "nan"],
        ["run", "--timeout", "inf"],
        ["run", "--crash-budget", "nan"],
        ["explore", "--budget", "inf"],
        ["explore", "--max-data", "nan"],
        ["diff", "a.json", "b.json", "--ratio", "nan"],
        ["diff", "a.json", "b.json", "--floor-ms", "inf"],
        ["versions", "a.json", "--rows", "-1"],
    ],
)
def test_a_number_that_is_not_finite_or_in_range_is_refused_where_it_is_parsed(
    corpus: Path, args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """``--timeout nan`` once ran: a hang was never stopped and results.json held ``NaN``."""
    verb, *rest = args
    if verb in ("run", "explore"):  # a small run, should the value be taken
        rest = ["--cases", str(corpus / "few.yaml"), "--adapter", "numpy", "--out", str(corpus / "o"), *rest]
        rest = ["--max-examples", "1", *rest] if verb == "explore" else rest
    with pytest.raises(SystemExit) as ended:
        main([verb, *rest])
    assert ended.value.code == Exit.USAGE
    assert f"argument {args[-2]}: " in capsys.readouterr().err


def test_a_results_file_is_never_written_with_nan_or_infinity() -> None:
    for value in (float("nan"), float("inf")):
        with pytest.raises(ValueError, match="not JSON compliant"):
            results_file.encoded({"run": {"timeout_s": value}})


# reproducer commands carry what changes a verdict (7)


@pytest.mark.slow  # seconds: two runs
def test_the_reproducer_of_a_run_without_known_issues_reruns_without_them(corpus: Path) -> None:
    """Typed as printed, the command once reran the error as the shipped known issue's xfail: GREEN."""
    done = _run(corpus, "vsplit.yaml", "out", "--no-known-issues")
    assert done.returncode == Exit.FINDINGS, done.stderr
    (result,) = json.loads((corpus / "out" / "results.json").read_text(encoding="utf-8"))["results"]
    assert result["status"] == "error"
    words = shlex.split(result["reproducer"]["command"])
    assert "--no-known-issues" in words and words[:2] == ["conformance", "run"]
    again = _cli(corpus, *words[1:])
    assert again.returncode == Exit.FINDINGS, again.stdout + again.stderr
    assert "RED: 1 results; 1 unexplained findings, 0 known issues" in again.stdout


def test_every_setting_that_can_change_a_verdict_is_in_the_reproducer_words() -> None:
    assert planning.verdict_settings(planning.RunConfig()) == ()
    config = planning.RunConfig(
        known_issues=False,
        known_issue_files=(Path("mine.yaml"),),
        timeout=5.0,
        repeat=0,
        memory_budget_mib=512,
    )
    assert planning.verdict_settings(config) == (
        "--no-known-issues",
        "--known-issues",
        "mine.yaml",
        "--timeout",
        "5.0",
        "--repeat",
        "0",
        "--memory-budget",
        "512",
    )
    parsed = options.given(options.RUN, planning.verdict_settings(config))
    assert parsed == {
        "no_known_issues": True,
        "known_issues": ["mine.yaml"],
        "timeout": 5.0,
        "repeat": 0,
        "memory_budget": 512,
    }


# one result per results file, for every verb (9)


@pytest.mark.slow  # seconds: a run
def test_a_results_file_holding_a_result_twice_is_refused_by_every_verb(corpus: Path) -> None:
    """A fail planted before the real pass once gave ``diff``: OK, no new failures, exit 0."""
    assert _run(corpus, "few.yaml", "out").returncode == Exit.GREEN
    body = json.loads((corpus / "out" / "results.json").read_text(encoding="utf-8"))
    planted = {**body["results"][0], "status": "fail"}
    body["results"].insert(0, planted)
    (corpus / "twice").mkdir()
    (corpus / "twice" / "results.json").write_text(json.dumps(body), encoding="utf-8")
    twice, good = "twice/results.json", "out/results.json"
    for args in (
        ["diff", good, twice],
        ["report", twice, "-o", "r.html"],
        ["compat", twice, "-o", "c.md"],
        ["versions", twice],
        ["merge", twice, "-o", "merged"],
    ):
        done = _cli(corpus, *args)
        assert done.returncode == Exit.USAGE, (args, done.stdout, done.stderr)
        assert f"{twice}: holds the result {planted['case']}::{planted['op']}@" in done.stderr
        assert "twice (results 1 and 2, fail and pass)" in done.stderr
    assert not {"r.html", "c.md", "merged"} & {path.name for path in corpus.iterdir()}


# the machine's failures are 4 for every verb (10)


@pytest.mark.slow  # seconds: a run and five verbs
def test_a_read_only_destination_stops_every_verb_with_exit_4(corpus: Path) -> None:
    """``report``, ``compat``, ``diff --html``, ``versions`` and ``merge`` once said exit 2 (the
    input's fault) where ``run`` said 4 (the machine's)."""
    assert _run(corpus, "few.yaml", "out").returncode == Exit.GREEN
    (corpus / "locked").mkdir()
    results = "out/results.json"
    verbs = [
        ["report", results, "-o", "locked/r.html"],
        ["compat", results, "-o", "locked/c.html"],
        ["diff", results, results, "--html", "locked/d.html"],
        ["versions", results, "-o", "locked/v.html"],
        ["merge", results, "-o", "locked/m"],
        ["run", "--cases", "few.yaml", "--adapter", "numpy", "--repeat", "0", "--out", "locked/run"],
    ]
    conformance = shlex.join([sys.executable, "-m", "conformance.cli"])
    each = "; ".join(
        f"{conformance} {shlex.join(args)} >said 2>&1; status=$?; tail -n 1 said; echo status $status"
        for args in verbs
    )
    ended = processes.namespaced(
        f"mount --bind locked locked && mount -o remount,bind,ro locked && {{ {each}; }}", corpus, _env()
    )
    lines = ended.stdout.splitlines()
    assert len(lines) == 2 * len(verbs), ended.stdout + ended.stderr
    for args, said, status in zip(verbs, lines[::2], lines[1::2], strict=True):
        assert status == f"status {Exit.ENVIRONMENT}", (args, said)
        assert said.startswith("stopped: ") and "Read-only file system" in said, (args, said)
    assert not list((corpus / "locked").iterdir())


# any locale (11)


def test_names_the_locale_could_not_decode_are_written_as_their_utf8() -> None:
    typed = "ü/run".encode().decode("ascii", "surrogateescape")  # as a C locale hands it over
    assert results_file.utf8(typed) == "ü/run".encode()
    assert results_file.utf8("\udcff-\u2026") == "\ufffd-\u2026".encode()  # no UTF-8 there: U+FFFD
    assert results_file.utf8("lone \ud800") == b"lone ?"


@pytest.mark.slow  # seconds: a run and four verbs
def test_every_verb_writes_in_the_c_locale_to_a_non_ascii_path(corpus: Path) -> None:
    """``run``, ``report``, ``diff --html``, ``compat`` and ``merge`` once ended in a
    UnicodeEncodeError traceback, exit 1, where a path held a character ASCII lacks."""
    locale = {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""}
    (corpus / "ü").mkdir()
    done = _run(corpus, "few.yaml", "ü/run", **locale)
    assert done.returncode == Exit.GREEN and "Traceback" not in done.stderr, done.stderr
    results = "ü/run/results.json"
    for args in (
        ["report", results, "-o", "ü/r.html"],
        ["diff", results, results, "--html", "ü/d.html"],
        ["compat", results, "-o", "ü/c.html"],
        ["merge", results, "-o", "ü/m"],
    ):
        done = _cli(corpus, *args, **locale)
        assert done.returncode == Exit.GREEN and "Traceback" not in done.stderr, (args, done.stderr)
        assert "ü/" in done.stdout  # the name as typed, not its escapes
    body = json.loads((corpus / results).read_text(encoding="utf-8"))
    assert body["run"]["command"][-2:] == ["--out", "ü/run"]
    merged = json.loads((corpus / "ü" / "m" / "results.json").read_text(encoding="utf-8"))
    assert len(merged["results"]) == len(body["results"])
    assert {"r.html", "d.html", "c.html"} <= {path.name for path in (corpus / "ü").iterdir()}


# sizes a case may have, and -j (degraded)


@pytest.mark.parametrize(
    ("case", "said"),
    [
        (
            "{id: deep, title: t, data: {shape: [" + ", ".join(["1"] * 33) + "]}, axis: 0, parts: 1}",
            "case 'deep': data.shape: 33 dimensions; at most 32",
        ),
        (
            "{id: long, title: " + "x" * 201 + ", data: {shape: [6]}, axis: 0, parts: 3}",
            "case 'long': title: 201 characters; at most 200",
        ),
        ("{id: " + "a" * 101 + ", title: t, data: {shape: [6]}, axis: 0, parts: 3}", "id: 101 characters"),
        ("{id: noted, title: t, note: " + "n" * 4001 + ", data: {shape: [6]}, parts: 3}", "note: 4001 char"),
    ],
    ids=["rank-33", "title-201", "id-101", "note-4001"],
)
def test_validate_refuses_a_case_beyond_the_sizes_with_file_and_line(
    tmp_path: Path, case: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A rank-100,000 case once passed ``validate``, then each of its items was a suite defect."""
    path = tmp_path / "big.yaml"
    path.write_text(
        f"defaults: {{source: s, data: {{dtype: float32}}}}\ncases:\n  - {case}\n", encoding="utf-8"
    )
    assert main(["validate", "--cases", str(path)]) == Exit.USAGE
    err = capsys.readouterr().err
    assert f"{path.as_posix()}:3: " in err and said in err
    assert "x" * 201 not in err  # the text too long is not repeated


def test_the_largest_case_within_the_sizes_is_valid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shape = ", ".join(["1"] * 32)
    case = f"{{id: {'a' * 100}, title: {'x' * 200}, data: {{shape: [{shape}]}}, axis: 0, parts: 1}}"
    path = tmp_path / "edge.yaml"
    path.write_text(
        f"defaults: {{source: s, data: {{dtype: float32}}}}\ncases:\n  - {case}\n", encoding="utf-8"
    )
    assert main(["validate", "--cases", str(path)]) == Exit.GREEN, capsys.readouterr().err


def test_an_explored_finding_gets_a_title_a_case_may_hold() -> None:
    """explore writes each finding as a case: a title over the limit would leave it out."""
    edge = -(2**63)
    request = {"data": {"dtype": "complex128", "shape": [2**20] * 5}, "axis": edge, "lengths": [edge] * 256}
    said = generated.title(request)
    assert len(said) <= generated.TITLE_LIMIT == 200
    assert said.startswith(f"lengths [{edge}, {edge}, {edge}, ..., {edge}] (256 values) on axis {edge}")


def test_more_workers_than_cores_is_allowed_with_a_one_line_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cores = len(os.sched_getaffinity(0))
    missing = str(tmp_path / "missing.yaml")  # the verb stops at once: the note comes first
    main(
        ["run", "--cases", missing, "--adapter", "numpy", "-j", str(cores + 1), "--out", str(tmp_path / "o")]
    )
    noted = [line for line in capsys.readouterr().err.splitlines() if line.startswith("note: -j")]
    assert noted == [noted[0]] and noted[0].startswith(f"note: -j {cores + 1} on {cores} cores: ")
    main(["run", "--cases", missing, "--adapter", "numpy", "-j", str(cores), "--out", str(tmp_path / "o")])
    assert "note: -j" not in capsys.readouterr().err
