"""Copy-paste reproducers for results that are not a plain pass.

Two per result: the ``conformance run`` command that reruns exactly that item on exactly that
target, and a standalone Python snippet that uses only the backend (written by the adapter's
optional ``reproducer(task, target)`` method, from the pieces here), so a backend developer can
reproduce a finding without installing the suite.

The command writes into a folder of its own (:func:`folder`, ``--out reports/repro/<result
key>``): typed as shown, it once replaced the main job's 34,104 results with its one.
"""

from __future__ import annotations

import base64
import shlex
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from conformance import dtypes, ids
from conformance.corpus.case import Case, DataSpec
from conformance.corpus.fill import make_data
from conformance.plugin import Target, Task
from conformance.run import memory, out_folder

#: Data larger than this is rebuilt in the snippet from arange rather than embedded byte for byte.
EMBED_LIMIT = 48 * 1024


#: the folder the reproducer commands write into, one folder each: the same whatever the run's
#: ``--out`` (shards run in several folders give the results the unsharded run gives)
REPRO = Path("reports") / "repro"


def folder(case: Case, op: str, target: Target) -> Path:
    """Where the reproducer command of an item on a target writes: a folder of its own, named
    for the result, so that it replaces neither the run's results nor another reproducer's."""
    return REPRO / out_folder.path_safe(ids.result_key(ids.item_id(case.id, op), target.id))


def command(
    case: Case, op: str, adapter_spec: str, target: Target, options: Mapping[str, str], out: Path
) -> str:
    """The shell command that reruns one item on one target, into ``out`` (see :func:`folder`)."""
    return shlex.join(_command([(case, op)], adapter_spec, target, options, out))


def sequence_command(
    items: Sequence[tuple[Case, str]],
    adapter_spec: str,
    target: Target,
    options: Mapping[str, str],
    out: Path,
    *,
    suite_order: bool,
) -> str:
    """The shell command that runs ``items`` one after the other in one worker (``-j 1``), as
    the crash review replays an item that broke its worker and the item that died after it.
    The suite runs a selection in its own order; where that is not the order given
    (``suite_order`` False), the command says so on a comment line above it (the Python
    reproducer keeps the order)."""
    line = shlex.join([*_command(items, adapter_spec, target, options, out), "-j", "1"])
    if suite_order:
        return line
    return f"# the suite runs these in its own order, not this one: the Python reproducer keeps it\n{line}"


def _command(
    items: Sequence[tuple[Case, str]],
    adapter_spec: str,
    target: Target,
    options: Mapping[str, str],
    out: Path,
) -> list[str]:
    parts = ["conformance", "run"]
    for file in dict.fromkeys(case.location.file for case, _ in items):
        parts += ["--cases", file]
    parts += ["--adapter", adapter_spec, "--target", target.id]
    for case, op in items:
        parts += ["--item", ids.item_id(case.id, op)]
    for key, value in sorted(options.items()):
        parts += ["--option", f"{adapter_spec}.{key}={value}"]
    return [*parts, "--out", str(out)]


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


def snippet_data(spec: DataSpec) -> np.ndarray:
    """The data a reproducer's task carries: the case's own fill when :func:`array_code` embeds
    it, else a read-only stand-in of its shape and dtype that takes no memory. The snippet
    rebuilds data past :data:`EMBED_LIMIT` as a counter anyway, so making a multi-GiB fill per
    failing result only to read its size would be waste."""
    if spec.dtype in dtypes.STRING or memory.data_bytes(spec) <= EMBED_LIMIT:
        return make_data(spec)
    return np.broadcast_to(np.zeros((), dtype=dtypes.numpy_dtype(spec.dtype)), spec.shape)


def feeds_code(feeds: Mapping[str, np.ndarray]) -> tuple[str, str]:
    """Statements rebuilding a model's feeds, and the ``{'name': variable, ...}`` literal to pass
    them by input name (what every snippet of an ONNX model runs with)."""
    statements, variables = _feed_statements(feeds)
    return statements, feeds_literal(variables)


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
    """For each run of ``task``: its heading, its feeds rebuilt as ``feed_0``, ``feed_1`` ... (in
    the order ``feeds`` gives them), then ``call(variables by input name)``: the statements that run
    the model on them and print what came out. Every snippet that feeds a model run after run
    shares this; only the call differs from backend to backend."""
    body = ""
    for run in task.every_run:
        statements, variables = _feed_statements(feeds(run))
        body += f"{run_heading(run)}{statements}\n{call(variables)}"
    return body


def session_call(session: str, *, sequence: bool = False) -> Callable[[Mapping[str, str]], str]:
    """The call of :func:`feed_runs_code` for a session fed by input name: ``outputs =
    <session>.run(None, feeds by name)`` and one printed line of output shapes. ``sequence``: the
    model's one output is a sequence (SplitToSequence), which comes back as a list of tensors, so
    the line prints that list's shapes."""
    outputs = "(pieces,)" if sequence else "outputs"
    shapes = "[piece.shape for piece in pieces]" if sequence else "[output.shape for output in outputs]"
    return lambda variables: f"{outputs} = {session}.run(None, {feeds_literal(variables)})\nprint({shapes})\n"


def session_runs_code(
    task: Task, feeds: Callable[[Task], Mapping[str, np.ndarray]], session: str, *, sequence: bool = False
) -> str:
    """Every run of ``task`` through :func:`session_call`: how every snippet that feeds a model by
    input name (ONNX Runtime, ONNX's evaluator, converted models) replays a case's runs."""
    return feed_runs_code(task, feeds, session_call(session, sequence=sequence))


def run_heading(task: Task) -> str:
    """The comment a snippet puts before each run of a case with ``runs:`` (none for a single run),
    so a reader can tell which printed line belongs to which request."""
    return f"# {task.run_label}\n" if task.case.runs else ""


def header(item_id: str, target: Target, expected: str) -> str:
    """The snippet's opening comment: what it reproduces and what the spec expects."""
    return (
        f"# Reproduces {item_id} on {target.id}.\n# The spec expects: {expected}\n"
        "import base64\n\nimport numpy as np\n"
    )


def describe_expected(expected: Mapping[str, object]) -> str:
    """One line from a result's ``expected`` field."""
    if "rejected" in expected:
        rejected = expected["rejected"]
        assert isinstance(rejected, Mapping)
        return f"a rejection ({rejected['rule']}: {rejected['reason']})"
    if "outputs" in expected:
        outputs = expected["outputs"]
        assert isinstance(outputs, list)
        return f"{len(outputs)} outputs of shapes {[o['shape'] for o in outputs]}"
    return f"one of several readings ({expected.get('ambiguity')})"
