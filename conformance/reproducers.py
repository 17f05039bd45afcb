"""What adapters use to write their reproducers: :func:`array_code` turns a task's data into
Python statements (base64 for the bytes) that need only NumPy; :func:`run_heading` is the comment
before each replayed run of a case with ``runs:`` (``for run in task.every_run``);
:func:`feed_runs_code` replays every run, rebuilding its feeds and handing their variables to the
backend's call (:func:`session_call` for a session fed by input name, which
:func:`session_runs_code` puts together); :func:`wrapped_base64` embeds a serialized model, and
:func:`onnx_snippet` writes the whole snippet of a route that reads the suite's ONNX model.

The vendor-facing face of :mod:`conformance.run.reproducers`, which also writes the command
that reruns one item and the header of every snippet.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from conformance.plugin import Task
from conformance.run.reproducers import (
    array_code,
    feed_runs_code,
    feeds_code,
    feeds_literal,
    run_heading,
    session_call,
    session_runs_code,
    wrapped_base64,
)

__all__ = [
    "array_code",
    "feed_runs_code",
    "feeds_code",
    "feeds_literal",
    "onnx_snippet",
    "run_heading",
    "session_call",
    "session_runs_code",
    "wrapped_base64",
]


def onnx_snippet(
    task: Task,
    imports: str,
    load: str,
    call: Callable[[Mapping[str, str]], str] | None,
    *,
    variable: str = "model",
    file: str | None = None,
) -> str:
    """The snippet of a route that hands the backend the suite's one-node ONNX model
    (:mod:`conformance.models.onnx_graphs`, the bytes ONNX Runtime, ONNX's tools, OpenVINO's ONNX
    frontend, tract, TVM, IREE and onnx2tf are all handed): ``imports``, the model embedded byte for
    byte as bytes in ``variable`` (and saved as ``file`` in the working directory, for a backend
    that reads a path), the backend's ``load`` statements, then each run of the case with its feeds
    rebuilt and ``call`` on their variables (see :func:`feed_runs_code`); ``call`` None for a
    route that runs nothing (a checker judges the model alone)."""
    from conformance.models import onnx_graphs

    encoded = wrapped_base64(onnx_graphs.model_bytes(task))
    operator = onnx_graphs.operator_of(task.op)[0]
    body = (
        f"{imports}# {task.op}: one {operator} node, byte for byte as this run built it\n"
        f"{variable} = base64.b64decode('''\n{encoded}\n''')\n"
    )
    if file is not None:
        body += f'with open("{file}", "wb") as file:\n    file.write({variable})\n'
    body += load
    return body if call is None else body + feed_runs_code(task, onnx_graphs.feeds, call)
