"""The Node.js process that runs TF.js for one suite worker, fed one JSON request per line.

One long-lived ``node split_worker.mjs`` per worker process (started at the first request, or by
``prepare``), so TF.js and its WASM module load once per worker, not once per item. A process
forked from another (the engine's workers come from a zygote) starts its own: a pipe is never
shared between two workers.

Where the Node process dies under a request (TF.js's WASM module aborting, say), the backend has
crashed: the worker writes what Node printed to its stderr and aborts itself, so that the engine
records one crash for that item and gives the next item a fresh worker and a fresh Node process.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO, Any

#: The folder holding the Node.js side: its script, package.json and package-lock.json, and
#: node_modules once ``npm ci`` has run there.
NODE_FOLDER = Path(__file__).resolve().parent / "node"
SCRIPT = NODE_FOLDER / "split_worker.mjs"
#: A package whose presence says that ``npm ci`` has run.
MARKER = NODE_FOLDER / "node_modules" / "@tensorflow" / "tfjs-core" / "package.json"


@functools.cache
def setup_problem() -> str | None:
    """Why no TF.js can run here (no ``node`` on PATH, or its packages not installed), or None."""
    if shutil.which("node") is None:
        return "no Node.js: `node` is not on PATH (Node.js 20 or later runs TF.js here)"
    if not MARKER.is_file():
        return f"TF.js is not installed: run `npm ci` in {NODE_FOLDER}"
    return None


class NodeProcess:
    """A running ``node split_worker.mjs``: :meth:`ask` sends one request and reads its answer."""

    def __init__(self) -> None:
        # kept open as long as the process lives: close() reads it for the error message
        self.stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115
        self.process = subprocess.Popen(
            ["node", str(SCRIPT)],
            cwd=NODE_FOLDER,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
            encoding="utf-8",
        )
        self.pid = os.getpid()

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send one request; its answer, or the worker's abort when Node died under it."""
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
            line = self.process.stdout.readline()
        except BrokenPipeError:
            line = ""
        if not line:
            self._died()
        answer: dict[str, Any] = json.loads(line)
        return answer

    def _died(self) -> None:
        """Node exited under a request: say how, with the end of what it printed, and abort."""
        code = self.process.wait()
        self.stderr.seek(0)
        printed = self.stderr.read().decode("utf-8", "replace")[-4000:]
        sys.stderr.write(f"TF.js's Node.js process died (exit status {code}) under a request:\n{printed}\n")
        sys.stderr.flush()
        os.abort()


_running: NodeProcess | None = None


def node() -> NodeProcess:
    """This worker's Node process, started at first use (and again in a forked child)."""
    global _running
    if _running is None or _running.pid != os.getpid():
        _running = NodeProcess()
    return _running
