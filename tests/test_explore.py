"""``conformance explore``: the parameter space draws only loadable cases, the search finds and
shrinks planted bugs through the real worker pool (a crash included), the same seed gives the same
cases, known issues and the corpus are told apart, and what it writes reproduces with ``run``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from processes import default_sigint

from conformance.corpus import catalogue
from conformance.corpus.loader import load_paths
from conformance.explore import generated, slice_space, space
from conformance.explore.limits import Limits
from conformance.results.findings import masked

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent
PLANTED = "fake_adapters:Planted"


def _explore(
    out: Path, *extra: str, adapter: str = PLANTED, op: str = "torch.split"
) -> subprocess.CompletedProcess[str]:
    """``conformance explore`` on the planted adapter's torch.split by default (a subprocess, as a
    user runs it)."""
    command = [
        sys.executable,
        "-m",
        "conformance.cli",
        "explore",
        "--adapter",
        adapter,
        "--op",
        op,
        "--cases",
        str(ROOT / "cases"),
        "--out",
        str(out),
        *extra,
    ]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), str(ROOT)])}
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=600, check=False)


@pytest.fixture(scope="module")
def planted_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    out = tmp_path_factory.mktemp("explore")
    done = _explore(out, "--seed", "7", "--max-examples", "150", "--write", str(out / "cases"))
    return done, out


def _written(out: Path) -> list[dict[str, object]]:
    files = sorted((out / "cases").glob("*.yaml"))
    return [case for path in files for case in yaml.safe_load(path.read_text())["cases"]]


def test_the_space_draws_cases_the_loader_accepts_and_the_op_can_express() -> None:
    limits = Limits(data_bytes=1 << 20, pieces=64)

    @settings(max_examples=40, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def draw(data: st.DataObject) -> None:
        op = data.draw(
            st.sampled_from([op for op, entry in catalogue.OPS.items() if entry.family == "split"])
        )
        document = data.draw(space.case_documents(op, limits))
        case = generated.to_case(op, document, 0)  # raises if the schema or a rule refuses it
        assert catalogue.why_not_applicable(case, catalogue.OPS[op]) is None
        for run in case.all_runs:
            assert run.data.dtype in catalogue.OPS[op].dtypes
        kind = case.form.kind
        assert space.within(document, kind, limits)

    draw()


@pytest.mark.parametrize("op", [op for op, entry in catalogue.OPS.items() if entry.family == "slice"])
def test_the_slice_space_draws_cases_the_loader_accepts_most_of_which_the_op_can_state(op: str) -> None:
    limits = Limits(data_bytes=1 << 20)
    stated: list[bool] = []

    @settings(
        max_examples=60,
        database=None,
        deadline=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(slice_space.case_documents(op, limits))
    def draw(document: dict[str, object]) -> None:
        case = generated.to_case(op, document, 0)  # raises if the schema or a rule refuses it
        assert case.family == "slice" and slice_space.within(document, limits)
        stated.append(catalogue.why_not_applicable(case, catalogue.OPS[op]) is None)

    draw()
    assert sum(stated) >= len(stated) / 2  # the rest the search rejects without running them


@pytest.mark.slow
def test_explore_shrinks_a_slice_finding_of_a_real_backend(tmp_path: Path) -> None:
    """ONNX Runtime refuses complex data for Slice-13 (a known issue): the search finds it and
    shrinks it to a one-element request, written as a case that validates."""
    extra = ("--target", "onnxruntime/default/*", "--seed", "0", "--max-examples", "40", "-j", "1")
    done = _explore(
        tmp_path, *extra, "--write", str(tmp_path / "cases"), adapter="onnxruntime", op="onnx.Slice-13"
    )
    assert done.returncode == 0, done.stdout + done.stderr  # the one finding is known
    assert "known issue complex-tensor-type-not-registered" in done.stdout
    (case,) = _written(tmp_path)
    assert case["data"] == {"shape": [1], "dtype": "complex64"} and case["ops"] == ["onnx.Slice-13"]
    assert load_paths([tmp_path / "cases"]).cases[0].family == "slice"


def test_implied_pieces_bound_what_a_request_asks_for() -> None:
    assert space.implied_pieces("parts", 2**31, 4) == 2**31
    assert space.implied_pieces("size", 1, 2**20) == 2**20
    assert space.implied_pieces("size", -1, 10) == 0
    assert space.implied_pieces("indices", [1, 2], 10) == 3
    document = {"data": {"shape": [0, 2**31 + 8], "dtype": "float32"}, "axis": 1, "size": 1}
    assert not space.within(document, "size", Limits())  # 2^31 empty pieces: not drawn
    document["size"] = 2**31
    assert space.within(document, "size", Limits())  # no element, two pieces: drawn


def test_a_run_label_does_not_split_a_finding() -> None:
    assert masked("run 2 (shape [1, 1]): output 0: 1 of 2 elements differ") == masked(
        "output 3: 5 of 9 elements differ"
    )
    assert masked("known issue x: run 3 (lengths [1, 2], shape [3]): accepted") == "accepted"


@pytest.mark.slow
def test_the_corpus_index_knows_a_request_the_corpus_holds() -> None:
    index = generated.CorpusIndex(load_paths([ROOT / "cases"]).cases)
    held = {"data": {"shape": [0], "dtype": "float32"}, "axis": 0, "lengths": [0, 0, 0]}
    assert index.find("torch.split", generated.to_case("torch.split", held, 3)) is not None
    fresh = {"data": {"shape": [7, 0, 5], "dtype": "uint16"}, "axis": 2, "lengths": [5, 0, 0, 0]}
    assert index.find("torch.split", generated.to_case("torch.split", fresh, 3)) is None


@pytest.mark.slow
def test_explore_finds_and_shrinks_the_three_planted_bugs(
    planted_run: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    done, out = planted_run
    assert done.returncode == 1, done.stderr + done.stdout  # new findings: exit 1
    cases = _written(out)
    notes = "\n".join(str(case["note"]) for case in cases)
    assert "elements differ" in notes  # small integers negated
    assert "the worker died (killed by SIGABRT)" in done.stdout + notes  # the abort
    assert "accepted an input the spec rejects (axis-range" in notes  # axis taken modulo the rank
    by_kind = {
        "values": [c for c in cases if "elements differ" in str(c["note"])],
        "axis": [c for c in cases if "axis-range" in str(c["note"])],
    }
    (values,) = by_kind["values"]
    assert values["data"]["dtype"] == "int8" and len(values["data"]["shape"]) == 1  # type: ignore[index]
    assert "runs" not in values and "graph" not in values  # shrunk away
    (axis,) = by_kind["axis"]
    shape = axis["data"]["shape"]  # type: ignore[index]
    assert shape == [1] and axis["axis"] == 1 and axis["data"]["dtype"] == "float32"  # type: ignore[index]
    assert all(case["source"] == "generated by conformance explore, seed 7" for case in cases)
    assert all("generated" in case["tags"] for case in cases)  # type: ignore[operator]
    (crash,) = [c for c in cases if "SIGABRT" in str(c["note"])]
    assert 0 in crash["data"]["shape"] and len(crash["lengths"]) == 3  # type: ignore[index, arg-type]
    assert "shrunk in" in done.stdout and "not fully shrunk" not in done.stdout


@pytest.mark.slow
def test_written_cases_validate_and_reproduce_with_run(
    planted_run: tuple[subprocess.CompletedProcess[str], Path], tmp_path: Path
) -> None:
    _, out = planted_run
    checked = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "validate", "--cases", str(out / "cases")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), str(ROOT)])}
    rerun = subprocess.run(
        [
            *(sys.executable, "-m", "conformance.cli", "run", "--adapter", PLANTED),
            *("--cases", str(out / "cases"), "--out", str(tmp_path), "--repeat", "0"),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert rerun.returncode == 1
    statuses = sorted(r["status"] for r in json.loads((tmp_path / "results.json").read_text())["results"])
    assert statuses == ["crash", "fail", "fail"]  # each written finding, found again by `run`


@pytest.mark.slow
def test_the_same_seed_draws_the_same_requests(
    planted_run: tuple[subprocess.CompletedProcess[str], Path], tmp_path: Path
) -> None:
    _, out = planted_run
    again = _explore(tmp_path, "--seed", "7", "--max-examples", "150", "--write", str(tmp_path / "cases"))
    assert again.returncode == 1
    assert _written(tmp_path) == _written(out)

    def drawn(results: Path) -> list[str]:
        return [r["case"] for r in json.loads(results.read_text())["results"]]

    assert drawn(tmp_path / "results.json") == drawn(out / "results.json")
    other = _explore(tmp_path / "other", "--seed", "8", "--max-examples", "20")
    assert drawn(tmp_path / "other" / "results.json")[:20] != drawn(out / "results.json")[:20]
    assert other.returncode in (0, 1)


@pytest.mark.slow
def test_known_issues_tell_known_findings_from_new_ones(tmp_path: Path) -> None:
    issues = tmp_path / "planted.yaml"
    issues.write_text(
        "known_issues:\n"
        "  - id: planted-int8\n    dtypes: [int8, uint8, int16, uint16]\n    statuses: [fail]\n"
        "    reason: small integers come back negated\n    link: https://example.org/planted/1\n"
        "  - id: planted-axis\n    rules: axis-range\n    statuses: [fail]\n"
        "    reason: an axis past the rank is taken modulo the rank\n    link: https://example.org/planted/2\n"
        "  - id: planted-abort\n    forms: lengths\n    statuses: [crash]\n"
        "    reason: empty data into three or more lengths aborts\n    link: https://example.org/planted/3\n"
    )
    done = _explore(tmp_path / "out", "--seed", "7", "--max-examples", "150", "--known-issues", str(issues))
    assert done.returncode == 0, done.stdout + done.stderr  # every finding is a known one
    for issue in ("planted-int8", "planted-axis", "planted-abort"):
        assert f"known issue {issue}" in done.stdout
    results = json.loads((tmp_path / "out" / "results.json").read_text())["results"]
    assert not {r["status"] for r in results} & {"fail", "error", "crash", "timeout"}


@pytest.mark.slow
def test_a_budget_ends_the_search(tmp_path: Path) -> None:
    done = _explore(tmp_path, "--budget", "3")  # no --max-examples: only the budget stops it
    assert done.returncode in (0, 1), done.stderr
    assert "explored" in done.stdout and (tmp_path / "results.json").is_file()
    assert not (tmp_path / "journal.jsonl").exists()  # a finished exploration leaves no journal


@pytest.mark.slow
def test_ctrl_c_keeps_what_was_explored(tmp_path: Path) -> None:
    command = [
        *(sys.executable, "-m", "conformance.cli", "explore", "--adapter", PLANTED, "--op", "torch.split"),
        *("--budget", "300", "--out", str(tmp_path), "--write", str(tmp_path / "cases")),
    ]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), str(ROOT)])}
    process = subprocess.Popen(
        command, preexec_fn=default_sigint, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    journal = tmp_path / "journal.jsonl"
    deadline = time.monotonic() + 240  # generous: the test may share the machine with others
    while time.monotonic() < deadline:
        if journal.exists() and len(journal.read_text().splitlines()) > 40:
            break
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=300)
    assert process.returncode == 130, out + err
    journaled = len(journal.read_text().splitlines()) - 1  # kept for the record
    document = json.loads((tmp_path / "results.json").read_text())
    assert document["run"]["interrupted"] is True
    assert len(document["results"]) >= min(journaled, 40)
    assert "(interrupted)" in out and (tmp_path / "index.html").is_file()


def test_explore_refuses_a_selection_with_nothing_to_run(tmp_path: Path) -> None:
    done = _explore(tmp_path, "--target", "nosuch/*")
    assert done.returncode == 2
    assert "--target 'nosuch/*' matches none of the targets: planted/graph/cpu" in done.stderr


def test_the_nightly_recipe_runs_the_nox_session_and_uploads_the_cases() -> None:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "explore.yml").read_text())
    assert workflow[True]["schedule"]  # `on:` is YAML 1.1's True to PyYAML
    steps = workflow["jobs"]["explore"]["steps"]
    runs = [str(step.get("run", "")) for step in steps]
    (nox_line,) = [run for run in runs if run.startswith("nox -s explore")]
    assert "--budget" in nox_line and "--seed" in nox_line
    assert any("-c constraints.txt" in run for run in runs if "pip install" in run)
    noxfile = (ROOT / "noxfile.py").read_text()
    assert "def explore(" in noxfile
    from conformance.cli import build_parser

    parsed = build_parser().parse_args(
        ["explore", "-j", "2", "--write", "reports/explore/cases", "--budget", "1800", "--seed", "12"]
    )
    assert parsed.out == "reports/explore" and parsed.write.startswith(parsed.out)
    (upload,) = [step for step in steps if str(step.get("uses", "")).startswith("actions/upload-artifact")]
    assert upload["with"]["path"] == "reports/explore/" and upload["if"] == "always()"
