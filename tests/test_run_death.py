"""No process outlives its run: however ``conformance run`` ends, SIGKILL included, the workers, the
zygote they are forked from and the helpers the engine starts end with it, within 2 s.

Each test starts a real run whose adapter hangs on an item ignoring SIGTERM (only SIGKILL ends
it), with a helper process it forked, waits until a worker hangs in that item, and kills the run.
Every process descended from the run, read from /proc just before the kill, must be gone 2 s
later. Before the engine tied its processes to the run (conformance.engine.lifeline), the hanging
worker (in its own process group), its helper and the resource tracker of ``multiprocessing``
lived on under init for good.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from processes import default_sigint

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
#: how long after the run's death its descendants may take to end: they end at once, on a signal,
#: but a loaded machine may take seconds to run them to their end; one left to itself never ends
#: (fake_adapters.Stubborn hangs, ignoring SIGTERM, and so does its helper)
GRACE_S = 60.0
CASES = """\
defaults: {source: run death tests, data: {dtype: float32}, ops: [numpy.array_split]}
cases:
""" + "".join(
    f"  - {{id: item-{n}, title: t, data: {{shape: [{6 + n}, 3]}}, axis: 0, indices: [1, 3]}}\n"
    for n in range(8)
)

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists(), reason="reads the process tree in /proc"
)


def _stat(pid: int) -> tuple[str, int, int] | None:
    """A process's state, parent and start time (clock ticks after boot), or None if it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()  # the name, in parentheses, may hold spaces
    return fields[0], int(fields[1]), int(fields[19])


def descendants(root: int) -> dict[int, int]:
    """Every process descended from ``root`` now, with its start time (a pid reused later is
    another process)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (stat := _stat(int(entry.name))) is not None:
            children.setdefault(stat[1], []).append(int(entry.name))
    found: dict[int, int] = {}
    todo = list(children.get(root, []))
    while todo:
        pid = todo.pop()
        stat = _stat(pid)
        if stat is not None and pid not in found:
            found[pid] = stat[2]
            todo.extend(children.get(pid, []))
    return found


def alive(pid: int, started: int) -> bool:
    """Whether the process that started at ``started`` still runs (a zombie has ended: its
    parent, init in a container that never reaps, only has to read its status)."""
    stat = _stat(pid)
    return stat is not None and stat[2] == started and stat[0] not in ("Z", "X")


def _command_line(pid: int) -> str:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:160]
    return "(gone)"


@contextlib.contextmanager
def killed_afterwards(tree: dict[int, int]) -> Iterator[None]:
    """Whatever the test finds, kill what is left of ``tree`` (the same processes, by start time)."""
    try:
        yield
    finally:
        for pid, started in tree.items():
            if alive(pid, started):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)


def _hanging(hung: Path, process: subprocess.Popen[bytes], said: Path) -> int:
    """The pid of the worker hanging in its item, once it says so."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if hung.exists() and (pids := hung.read_text(encoding="utf-8").split()):
            return int(pids[0])
        time.sleep(0.05)
    process.kill()
    process.wait()
    raise AssertionError(f"no worker hung in its item:\n{said.read_text(errors='replace')}")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("how", "crash"),
    [
        pytest.param(signal.SIGKILL, "", id="SIGKILL-spawned-worker"),
        pytest.param(signal.SIGKILL, "item-[056]", id="SIGKILL-forked-worker"),
        pytest.param(signal.SIGTERM, "", id="SIGTERM-spawned-worker"),
    ],
)
def test_no_process_of_a_killed_run_outlives_it(tmp_path: Path, how: signal.Signals, crash: str) -> None:
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "few.yaml").write_text(CASES, encoding="utf-8")
    hung = tmp_path / "hung.txt"
    options = {"on": "item-7", "hung": str(hung), "crash": crash, "seconds": "0.3"}
    command = [sys.executable, "-m", "conformance.cli", "run", "--cases", "cases", "--repeat", "0"]
    command += ["--adapter", "fake_adapters:Stubborn", "--out", "out", "--crash-budget", "0"]
    for key, value in options.items():
        command += ["--option", f"fake_adapters:Stubborn.{key}={value}"]
    path = os.pathsep.join([str(TESTS), str(ROOT), os.environ.get("PYTHONPATH", "")])
    said = tmp_path / "said.txt"  # a file, not a pipe: a process that outlives the run may hold it
    with said.open("wb") as output:
        process = subprocess.Popen(
            command,
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": path},
            preexec_fn=default_sigint,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    tree: dict[int, int] = {}
    with killed_afterwards(tree):
        worker = _hanging(hung, process, said)
        tree.update(descendants(process.pid))
        parents = {pid: stat[1] for pid in tree if (stat := _stat(pid)) is not None}
        assert worker in parents and worker in parents.values(), "no hanging worker with its helper"
        # spawned by the run until a crash; after one, forked by the zygote once it is ready (a
        # loaded machine may still spawn one meanwhile): either way, nothing may outlive the run
        assert crash or parents[worker] == process.pid, "forked by the zygote only after a crash"
        process.send_signal(how)
        process.wait(timeout=60)
        deadline = time.monotonic() + GRACE_S
        while time.monotonic() < deadline and any(alive(pid, started) for pid, started in tree.items()):
            time.sleep(0.05)
        left = [f"{pid}: {_command_line(pid)}" for pid, started in tree.items() if alive(pid, started)]
        assert not left, f"{len(left)} of the run's {len(tree)} processes outlived it:\n" + "\n".join(left)
