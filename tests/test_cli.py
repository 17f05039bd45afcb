"""The command line end to end: validate and list on the real corpus and on broken files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.corpus import catalogue as ops

ROOT = Path(__file__).resolve().parent.parent


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


GOOD = """\
defaults: {source: test}
cases:
  - {id: six-in-two, title: t, data: {shape: [6, 2], dtype: float32}, axis: 0, lengths: [2, 4]}
  - {id: six-in-three, title: t, data: {shape: [6], dtype: int32}, axis: 0, parts: 3,
     expect: {by_op: {torch.chunk: {shapes: [[2], [2], [2]]}}}}
"""


@pytest.mark.slow
def test_validate_the_real_corpus(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--cases", str(ROOT / "cases")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ok: ") and "sha256:" in out


def test_validate_reports_a_disagreeing_pin_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = write(tmp_path / "pins.yaml", GOOD.replace("[[2], [2], [2]]", "[[2], [2], [1], [1]]"))
    assert main(["validate", "--cases", str(bad)]) == 1
    err = capsys.readouterr().err
    assert (
        f"{bad.as_posix()}:4: case 'six-in-three': expect disagrees with the reference for torch.chunk" in err
    )


def test_validate_reports_a_broken_file_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = write(tmp_path / "broken.yaml", GOOD.replace("lengths: [2, 4]", "lenghts: [2, 4]"))
    assert main(["validate", "--cases", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad.as_posix()}:3: case 'six-in-two': unknown key 'lenghts'" in err


def test_list_shows_pairs_and_totals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write(tmp_path / "good.yaml", GOOD)
    assert main(["list", "--cases", str(good)]) == 0
    out = capsys.readouterr().out
    assert "six-in-two::openvino.VariadicSplit-1" in out
    assert "six-in-three::torch.chunk" in out
    assert "six-in-three::onnx.Split-1" in out  # int32 is outside its type list: judged, not skipped
    assert "six-in-two::torch.chunk" not in out  # chunk takes no lengths: not applicable
    assert "total: " in out


def test_list_filters_by_op_tag_and_keyword(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write(tmp_path / "good.yaml", GOOD)
    assert main(["list", "--cases", str(good), "--op", "numpy.*", "-k", "three and not numpy.split"]) == 0
    lines = [line.split()[0] for line in capsys.readouterr().out.splitlines() if "::" in line]
    assert lines == ["six-in-three::numpy.array_split"]
    assert main(["list", "--cases", str(good), "--op", "nothing.*"]) == 2


@pytest.mark.slow
def test_list_on_the_real_corpus_covers_every_op(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "--totals", "--cases", str(ROOT / "cases")]) == 0
    out = capsys.readouterr().out
    for op in ops.OPS:
        assert f"  {op} " in out


@pytest.mark.slow
def test_console_script_runs_from_a_clean_process(tmp_path: Path) -> None:
    good = write(tmp_path / "good.yaml", GOOD)
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "validate", "--cases", str(good)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "2 cases" in done.stdout


RUN_CASES = """\
defaults: {source: cli tests, data: {dtype: float32}, ops: [numpy.array_split]}
cases:
  - {id: fine, title: t, data: {shape: [6, 2]}, axis: 0, indices: [2]}
  - {id: wrong, title: t, data: {shape: [6, 2]}, axis: 0, indices: [2, 4]}
"""


def _run_cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    import os

    (tmp_path / "cases").mkdir(exist_ok=True)
    write(tmp_path / "cases" / "run.yaml", RUN_CASES)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tests")}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "conformance.cli",
            "run",
            "--adapter",
            "fake_adapters:Liar",
            "--repeat",
            "1",
            *args,
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


@pytest.mark.slow
def test_run_end_to_end_writes_valid_results_and_junit(tmp_path: Path) -> None:
    import json
    from xml.etree import ElementTree

    import jsonschema

    from conformance.results.document import schema

    done = _run_cli(tmp_path, "--option", "fake_adapters:Liar.on=wrong")
    assert done.returncode == 1, done.stderr  # a fail makes the run red
    assert "liar/slices/cpu" in done.stdout and "results.json" in done.stdout
    body = json.loads((tmp_path / "reports" / "results.json").read_text())
    jsonschema.Draft202012Validator(schema()).validate(body)
    assert [(r["case"], r["status"]) for r in body["results"]] == [("fine", "pass"), ("wrong", "fail")]
    assert body["adapters"][0]["name"] == "liar" and body["suite"]["digest"].startswith("sha256:")
    suite = ElementTree.parse(tmp_path / "reports" / "junit.xml").getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "1" and suite.get("tests") == "2"


@pytest.mark.slow
def test_run_is_green_when_everything_passes(tmp_path: Path) -> None:
    done = _run_cli(tmp_path, "-j", "2")
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
def test_run_rejects_a_bad_option_and_an_unknown_adapter(tmp_path: Path) -> None:
    assert _run_cli(tmp_path, "--option", "nodot").returncode == 2
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", "--adapter", "no-such-adapter"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and "no adapter named 'no-such-adapter' is installed" in done.stderr


@pytest.mark.slow  # it imports every default route's backend, in child processes (30 s on two cores)
def test_adapters_lists_the_installed_ones() -> None:
    """And every route of the default run loads its backend here (exit status 0)."""
    from conformance.loading import registry

    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "adapters"],
        capture_output=True,
        text=True,
        check=False,
        timeout=900,  # a bound on a hang, not on speed: each child has the engine's start limit
    )
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert "CANNOT LOAD" not in done.stdout, done.stdout
    for name in registry.installed():
        assert f"\n{name}  " in f"\n{done.stdout}"
    if "jax" in registry.installed():  # devices a run may ask for besides its own (AdapterInfo.other_devices)
        assert "  devices: cpu, cpu-x64  (also: gpu, gpu-x64, with --option jax.device=...)\n" in done.stdout


@pytest.mark.slow
def test_run_selects_exact_items_and_targets(tmp_path: Path) -> None:
    import json

    done = _run_cli(tmp_path, "--item", "wrong::numpy.array_split", "--target", "liar/*")
    assert done.returncode == 0, done.stderr
    body = json.loads((tmp_path / "reports" / "results.json").read_text())
    assert [r["case"] for r in body["results"]] == ["wrong"]
    nothing = _run_cli(tmp_path, "--target", "openvino/*")
    assert nothing.returncode == 2 and "matches no (case, op, target)" in nothing.stderr


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (
            ["--target", "lair/*"],
            "--target 'lair/*' matches none of the targets: liar/slices/cpu",
        ),
        (["--tag", "nosuchtag"], "--tag 'nosuchtag': no case has it; tags: "),
        (["--item", "fien::numpy.array_split"], "no case 'fien' in the corpus; did you mean fine?"),
        (["--item", "fine::numpy.split"], "case 'fine' has items for numpy.array_split only"),
        (["-k", "nothing"], "-k 'nothing' matches none of the items the other options select"),
    ],
)
def test_an_empty_selection_names_the_option_and_the_choices(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], given: list[str], said: str
) -> None:
    (tmp_path / "cases").mkdir()
    write(tmp_path / "cases" / "run.yaml", RUN_CASES.replace("  - {id: wrong", "  - {id: wrong, tags: [x]"))
    command = [
        "run",
        "--cases",
        str(tmp_path / "cases"),
        "--adapter",
        "fake_adapters:Liar",
        "--out",
        str(tmp_path / "out"),
    ]
    assert main([*command, *given]) == 2
    assert said in capsys.readouterr().err


@pytest.mark.parametrize(
    "given", [["-j", "0"], ["-j", "-3"], ["--timeout", "0"], ["--repeat", "-1"], ["-j", "two"]]
)
def test_run_refuses_numbers_out_of_range(capsys: pytest.CaptureFixture[str], given: list[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["run", *given])
    assert stopped.value.code == 2 and given[0] in capsys.readouterr().err


def test_run_help_states_the_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    for default in ("(default 1)", "(default 3)", "(default 120)", "(default: reports/)"):
        assert default in shown
