"""What adapters write their reproducers with: the Python snippet an adapter's optional
``reproducer(task, target)`` returns needs only its backend and NumPy, and these write its pieces.
:func:`array_code` turns a task's data into Python statements (base64 for the bytes);
:func:`run_heading` is the comment before each replayed run of a case with ``runs:`` (``for run
in task.every_run``); :func:`session_runs_code` replays every run through a session fed by input
name; :func:`wrapped_base64` embeds a serialized model.

The harness's side (the command that reruns one item, the header of every snippet) is
:mod:`conformance.run.reproducers`.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping

import numpy as np

from conformance import dtypes
from conformance.plugin import Task

#: Data larger than this is rebuilt in the snippet from arange rather than embedded byte for byte.
EMBED_LIMIT = 48 * 1024


#: The characters of base64 on each line of a snippet
BASE64_LINE = 96


def wrapped_base64(data: bytes) -> str:
    """``data`` (a serialized model) in base64, in lines of :data:`BASE64_LINE` characters: the
    text a snippet puts between ``base64.b64decode('''`` and ``''')`` to rebuild it byte for byte.
    Cut by slicing: base64 has no spaces to break at, so ``textwrap`` only adds its cost."""
    text = base64.b64encode(data).decode("ascii")
    return "\n".join(text[start : start + BASE64_LINE] for start in range(0, len(text), BASE64_LINE))


def array_code(array: np.ndarray, name: str = "data") -> str:
    """Python statements that rebuild ``array`` exactly, needing only NumPy (and ml_dtypes for
    bfloat16): strings as a literal list, everything else from its bytes in base64."""
    kind = dtypes.name_of(array.dtype)
    shape = tuple(array.shape)
    if kind == "string":
        values = array.reshape(-1).tolist()
        return f"{name} = np.array({values!r}, dtype=object).reshape({shape!r})"
    dtype_code = "ml_dtypes.bfloat16" if kind == "bfloat16" else f"np.{array.dtype.name}"
    prefix = "import ml_dtypes\n" if kind == "bfloat16" else ""
    if array.nbytes > EMBED_LIMIT:  # asked before tobytes(), a copy that takes seconds at 2 GiB
        return (
            f"{prefix}# the suite's fill is {array.nbytes} bytes; rebuilt here as a counter, which keeps\n"
            f"# every element distinct (the exact values are in the suite: run the command reproducer)\n"
            f"{name} = np.arange({array.size}).astype({dtype_code}).reshape({shape!r})"
        )
    encoded = wrapped_base64(np.ascontiguousarray(array).tobytes())
    return (
        f"{prefix}{name} = np.frombuffer(base64.b64decode('''\n{encoded}\n'''), dtype={dtype_code})"
        f".reshape({shape!r}).copy()"
    )


def feeds_code(feeds: Mapping[str, np.ndarray]) -> tuple[str, str]:
    """Statements rebuilding a model's feeds, and the ``{'name': variable, ...}`` literal to pass
    them by input name (what every snippet of an ONNX model runs with)."""
    names = {name: f"feed_{number}" for number, name in enumerate(feeds)}
    statements = "\n".join(array_code(array, names[name]) for name, array in feeds.items())
    literal = "{" + ", ".join(f"{name!r}: {variable}" for name, variable in names.items()) + "}"
    return statements, literal


def session_runs_code(
    task: Task, feeds: Callable[[Task], Mapping[str, np.ndarray]], session: str, *, sequence: bool = False
) -> str:
    """For each run of ``task``: its heading, its feeds rebuilt, ``outputs = <session>.run(None,
    feeds by name)`` and one printed line of output shapes: how every snippet that feeds a model
    by input name (ONNX Runtime, ONNX's evaluator, converted models) replays a case's runs.
    ``sequence``: the model's one output is a sequence (SplitToSequence), which comes back as a
    list of tensors, so the line prints that list's shapes."""
    body = ""
    outputs = "(pieces,)" if sequence else "outputs"
    shapes = "[piece.shape for piece in pieces]" if sequence else "[output.shape for output in outputs]"
    for run in task.every_run:
        arrays, mapping = feeds_code(feeds(run))
        body += f"{run_heading(run)}{arrays}\n{outputs} = {session}.run(None, {mapping})\nprint({shapes})\n"
    return body


def run_heading(task: Task) -> str:
    """The comment a snippet puts before each run of a case with ``runs:`` (none for a single run),
    so a reader can tell which printed line belongs to which request."""
    return f"# {task.run_label}\n" if task.case.runs else ""
