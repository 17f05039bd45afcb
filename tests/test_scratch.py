"""A run leaves nothing in the system's temporary folder: each worker writes its temporary files
in a private folder that the pool removes once the worker has ended, a worker killed in the
middle of an item included (conformance/storage/scratch.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
CASES = """defaults: {source: scratch tests, data: {dtype: float32, shape: [6, 2]}, ops: [numpy.array_split]}
cases:
  - {id: first, title: t, axis: 0, indices: [1, 3]}
  - {id: killed, title: t, axis: 0, indices: [2]}
  - {id: last, title: t, axis: 0, indices: [4]}
"""


@pytest.mark.slow
def test_workers_temporary_files_are_gone_after_the_run_even_a_killed_ones(tmp_path: Path) -> None:
    (tmp_path / "cases.yaml").write_text(CASES, encoding="utf-8")
    system_temp = tmp_path / "system-temp"
    system_temp.mkdir()
    environment = {
        **os.environ,
        "TMPDIR": str(system_temp),
        "PYTHONPATH": f"{TESTS}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
    }
    command = [sys.executable, "-m", "conformance.cli", "run", "--cases", "cases.yaml", "--crash-budget", "0"]
    command += ["--adapter", "fake_adapters:Litterer", "--option", "fake_adapters:Litterer.on=killed"]
    command += ["--out", "out", "-j", "2"]
    done = subprocess.run(
        command, cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 1, done.stderr[-2000:]  # the killed item is a crash
    logs = "".join(path.read_text() for path in (tmp_path / "out" / "workers").glob("worker-*.log"))
    littered = [Path(line) for line in re.findall(r"^littered (.+)$", logs, re.MULTILINE)]
    assert {path.name.split("-")[1] for path in littered} == {"first", "killed", "last"}
    for path in littered:  # written in a worker's own folder inside the pool's, not loose in the system's
        assert path.parent.name.startswith("worker-") and path.parent.parent.parent == system_temp
        assert not path.exists()
    assert list(system_temp.iterdir()) == []
