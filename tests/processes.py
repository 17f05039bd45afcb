"""Starting the CLI as a child process the way a person's terminal would."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

#: the tests' folder: on a child's path, it finds the fake adapters by import reference
TESTS = Path(__file__).resolve().parent


def default_sigint() -> None:
    """Give the child the default SIGINT disposition (``preexec_fn``).

    A shell starts background jobs with SIGINT ignored and children inherit that, so a test run
    from a background job (as CI may do) would send Ctrl-C to a process that cannot hear it.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_cli(cwd: Path, *args: str, **popen: Any) -> subprocess.Popen[str]:
    """``conformance ARGS`` in ``cwd`` as a terminal starts it (Ctrl-C reaches it), its output
    piped unless ``popen`` says otherwise."""
    path = os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])
    options: dict[str, Any] = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **popen}
    return subprocess.Popen(
        [sys.executable, "-m", "conformance.cli", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": path},
        preexec_fn=default_sigint,
        text=True,
        **options,
    )


def run_cli(cwd: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``conformance ARGS`` in ``cwd`` to its end, its output captured."""
    process = start_cli(cwd, *args)
    out, err = process.communicate(timeout=timeout)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def namespaced(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``script`` as root of a private mount namespace (a mount made there, a read-only bind of a
    folder, is gone with it); skips where unshare(1) or user namespaces are missing."""
    if not shutil.which("unshare"):
        pytest.skip("needs unshare(1) for a private mount namespace")
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"no private mount namespace here: {probe.stderr.decode().strip()}")
    return subprocess.run(
        ["unshare", "-rm", "sh", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )
