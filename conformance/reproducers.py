"""What adapters write their reproducers with: the Python snippet a route's optional
``reproducer(task, target)`` returns needs only its backend and NumPy, and these write its pieces
(arrays as statements, feeds, each run of a case with ``runs:``, an embedded model). The harness's
side (the command that reruns one item, the header of every snippet) is
:mod:`conformance.run.rerun`.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from conformance import dtypes
from conformance.corpus.case import SliceArguments
from conformance.plugin import Task

#: Data larger than this is rebuilt in the snippet from arange rather than embedded byte for byte.
EMBED_LIMIT = 48 * 1024
#: The characters of base64 on each line of a snippet
BASE64_LINE = 96


def wrapped_base64(data: bytes) -> str:
    """``data`` (a serialized model) in base64, in lines of :data:`BASE64_LINE` characters, for a
    snippet's ``base64.b64decode('''...''')`` (sliced: base64 has no spaces for ``textwrap``)."""
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


def _feed_statements(feeds: Mapping[str, np.ndarray]) -> tuple[str, dict[str, str]]:
    """Statements rebuilding ``feeds`` as ``feed_0``, ``feed_1`` ..., and those names by input name."""
    names = {name: f"feed_{number}" for number, name in enumerate(feeds)}
    return "\n".join(array_code(array, names[name]) for name, array in feeds.items()), names


def feeds_literal(variables: Mapping[str, str]) -> str:
    """The ``{'name': variable, ...}`` literal that passes rebuilt feeds by input name."""
    return "{" + ", ".join(f"{name!r}: {variable}" for name, variable in variables.items()) + "}"


def feed_runs_code(
    task: Task, feeds: Callable[[Task], Mapping[str, np.ndarray]], call: Callable[[Mapping[str, str]], str]
) -> str:
    """For each run of ``task``: its heading, its feeds rebuilt as ``feed_0``, ``feed_1`` ..., then
    ``call(variables by input name)``, the backend's statements that run the model and print."""
    body = ""
    for run in task.every_run:
        statements, variables = _feed_statements(feeds(run))
        body += f"{run_heading(run)}{statements}\n{call(variables)}"
    return body


def session_call(session: str, *, sequence: bool = False) -> Callable[[Mapping[str, str]], str]:
    """The call of :func:`feed_runs_code` for a session fed by input name: ``<session>.run(None,
    feeds)`` and a printed line of output shapes (``sequence``: of the one output's list, as
    SplitToSequence returns)."""
    outputs = "(pieces,)" if sequence else "outputs"
    shapes = "[piece.shape for piece in pieces]" if sequence else "[output.shape for output in outputs]"
    return lambda variables: f"{outputs} = {session}.run(None, {feeds_literal(variables)})\nprint({shapes})\n"


def session_runs_code(
    task: Task, feeds: Callable[[Task], Mapping[str, np.ndarray]], session: str, *, sequence: bool = False
) -> str:
    """Every run of ``task`` through :func:`session_call` (ONNX Runtime, ONNX's evaluator ...)."""
    return feed_runs_code(task, feeds, session_call(session, sequence=sequence))


def run_heading(task: Task) -> str:
    """The comment before each run of a case with ``runs:`` (none for a single run), so a reader
    can tell which printed line belongs to which request."""
    return f"# {task.run_label}\n" if task.case.runs else ""


def selection(arguments: SliceArguments) -> tuple[Any, ...]:
    """The selection tuple a user writes for a bounds request, ``x[1:3, ::2]``: one slice per
    dimension up to the last sliced axis, or, where the axes count from the back, an ellipsis
    first (``x[..., 1:3]``). The catalogue hands this form only requests such a tuple can write
    (one axis each, all of one sign, vectors of one length)."""
    count = len(arguments.starts)
    axes = arguments.axes if arguments.axes is not None else tuple(range(count))
    ends = arguments.ends if arguments.ends is not None else (None,) * count
    steps = arguments.steps if arguments.steps is not None else (None,) * count
    slices = {
        axis: slice(start, end, step)
        for axis, start, end, step in zip(axes, arguments.starts, ends, steps, strict=True)
    }
    if axes and min(axes) < 0:
        return (Ellipsis, *(slices.get(axis, slice(None)) for axis in range(min(axes), 0)))
    return tuple(slices.get(axis, slice(None)) for axis in range(max(axes, default=-1) + 1))


def selection_code(arguments: SliceArguments) -> str:
    """:func:`selection` as a user writes it: ``[1:3, ::2]``, ``[..., :-1]``."""

    def bound(value: int | None) -> str:
        return "" if value is None else str(value)

    def written(entry: Any) -> str:
        if entry is Ellipsis:
            return "..."
        text = f"{bound(entry.start)}:{bound(entry.stop)}"
        return text + (f":{entry.step}" if entry.step is not None else "")

    return "[" + ", ".join(written(entry) for entry in selection(arguments)) + "]"
