"""The phase file a worker leaves: the parent reads where it died and how long its backend ran."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance.engine import phase


@pytest.fixture
def log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A worker's log path with its phase file open in this process (as in a worker)."""
    monkeypatch.setattr(phase, "_descriptor", None)
    path = tmp_path / "worker-1.log"
    phase.open_marker(str(path))
    yield path
    assert phase._descriptor is not None
    os.close(phase._descriptor)


@pytest.mark.parametrize("dying_in", ["build", "compile", "run", "steady runs", "run 2", "release"])
def test_a_death_in_the_backends_phases_counts_from_the_build(log: Path, dying_in: str) -> None:
    phase.mark("reference")
    before = time.monotonic()
    phase.mark("build")
    phase.mark(dying_in)  # "build" again: the time is the later build's
    after = time.monotonic()
    now = after + 5.0
    said, backend_s = phase.left(log, now)
    assert said == phase.read(log) == dying_in
    assert now - after <= backend_s <= now - before


@pytest.mark.parametrize("dying_in", ["judging", "between items", "reference", "data", "support"])
def test_a_death_outside_them_leaves_the_backend_no_time(log: Path, dying_in: str) -> None:
    phase.mark("build")
    phase.mark(dying_in)  # a shorter write: the build's time stays in the file, and is not read
    assert phase.left(log, time.monotonic() + 5.0) == (dying_in, 0.0)


def test_before_any_build_or_without_a_file_nothing_is_counted(log: Path) -> None:
    phase.mark("run")  # a file that never had a build's time in it
    assert phase.left(log, time.monotonic()) == ("run", 0.0)
    assert phase.left(None, time.monotonic()) == (None, 0.0)
    assert phase.left(log.with_name("nobody.log"), time.monotonic()) == (None, 0.0)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks a process to kill it")
def test_the_phase_a_killed_process_marked_last_is_still_in_its_file(tmp_path: Path) -> None:
    """The marks are stores into a shared mapping of the file, not writes: the kernel keeps them
    when the process dies without a word (SIGKILL, as a backend's abort or the pool's kill)."""
    log = tmp_path / "worker-2.log"
    before = time.monotonic()
    child = os.fork()
    if child == 0:  # pragma: no cover (the child never returns to pytest)
        try:
            phase.open_marker(str(log))
            phase.mark("build")
            phase.mark("compile")
            os.kill(os.getpid(), 9)
        finally:
            os._exit(1)  # only if the marks raised: never back into pytest
    _, status = os.waitpid(child, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == 9
    now = time.monotonic()
    said, backend_s = phase.left(log, now)
    assert said == "compile" and 0.0 < backend_s <= now - before  # from the child's build mark on


def test_a_file_cleared_and_never_marked_names_no_phase(tmp_path: Path) -> None:
    """The file is sized and cleared to zeros before the first mark: a worker that died in
    between (or a previous run's longer file) leaves no phase and no backend time."""
    log = tmp_path / "worker-3.log"
    phase.path_for(log).write_bytes(b"compile".ljust(24) + bytes(8) + b"old run's tail")
    assert phase.read(log) == "compile"
    phase.path_for(log).write_bytes(bytes(32))
    assert phase.left(log, time.monotonic()) == (None, 0.0)
