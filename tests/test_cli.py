"""The command line end to end: validate and list on the real corpus and on broken files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conformance import ops
from conformance.cli import main

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


def test_validate_the_real_corpus(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(ROOT / "cases")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ok: ") and "sha256:" in out


def test_validate_reports_a_disagreeing_pin_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = write(tmp_path / "pins.yaml", GOOD.replace("[[2], [2], [2]]", "[[2], [2], [1], [1]]"))
    assert main(["validate", str(bad)]) == 1
    err = capsys.readouterr().err
    assert (
        f"{bad.as_posix()}:4: case 'six-in-three': expect disagrees with the reference for torch.chunk" in err
    )


def test_validate_reports_a_broken_file_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = write(tmp_path / "broken.yaml", GOOD.replace("lengths: [2, 4]", "lenghts: [2, 4]"))
    assert main(["validate", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad.as_posix()}:3: case 'six-in-two': unknown key 'lenghts'" in err


def test_list_shows_pairs_and_totals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write(tmp_path / "good.yaml", GOOD)
    assert main(["list", str(good)]) == 0
    out = capsys.readouterr().out
    assert "six-in-two::openvino.VariadicSplit-1" in out
    assert "six-in-three::torch.chunk" in out
    assert "six-in-three::onnx.Split-1" in out  # int32 is outside its type list: judged, not skipped
    assert "six-in-two::torch.chunk" not in out  # chunk takes no lengths: not applicable
    assert "total: " in out


def test_list_filters_by_op_tag_and_keyword(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write(tmp_path / "good.yaml", GOOD)
    assert main(["list", str(good), "--op", "numpy.*", "-k", "three and not numpy.split"]) == 0
    lines = [line.split()[0] for line in capsys.readouterr().out.splitlines() if "::" in line]
    assert lines == ["six-in-three::numpy.array_split"]
    assert main(["list", str(good), "--op", "nothing.*"]) == 2


def test_list_on_the_real_corpus_covers_every_op(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "--totals", str(ROOT / "cases")]) == 0
    out = capsys.readouterr().out
    for op in ops.OPS:
        assert f"  {op} " in out


def test_console_script_runs_from_a_clean_process(tmp_path: Path) -> None:
    good = write(tmp_path / "good.yaml", GOOD)
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "validate", str(good)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "2 cases" in done.stdout
