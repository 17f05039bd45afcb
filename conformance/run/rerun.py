"""Copy-paste reproducers for results that are not a plain pass: the ``conformance run`` command
that reruns exactly that item on that target (into a folder of its own, so it never replaces the
run's results), and a standalone Python snippet using only the backend, written by the adapter's
optional ``reproducer(task, target)``, so a backend developer needs no suite.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from conformance import dtypes, ids, reproducers
from conformance.corpus.case import Case, DataSpec
from conformance.corpus.fill import make_data
from conformance.engine import memory
from conformance.plugin import Target
from conformance.storage import out_folder

#: where the reproducer commands write, whatever the run's ``--out`` (so shards agree)
REPRO = Path("reports") / "repro"


def folder(case: Case, op: str, target: Target) -> Path:
    """Where the reproducer command of an item on a target writes: a folder of its own."""
    return REPRO / out_folder.path_safe(ids.result_key(ids.item_id(case.id, op), target.id))


def command(
    items: Sequence[tuple[Case, str]],
    adapter_spec: str,
    target: Target,
    options: Mapping[str, str],
    out: Path,
    settings: Sequence[str] = (),
) -> str:
    """The shell command that reruns ``items`` on one target, into ``out`` (see :func:`folder`),
    with the run's ``settings`` that can change a verdict (planning.verdict_settings); several (a
    culprit and its victim, as the crash review replays them) run in one worker."""
    parts = ["conformance", "run"]
    for file in dict.fromkeys(case.location.file for case, _ in items):
        parts += ["--cases", file]
    parts += ["--adapter", adapter_spec, "--target", target.id]
    for case, op in items:
        parts += ["--item", ids.item_id(case.id, op)]
    for key, value in sorted(options.items()):
        parts += ["--option", f"{adapter_spec}.{key}={value}"]
    parts += settings
    return shlex.join([*parts, "--out", str(out), *(["-j", "1"] if len(items) > 1 else [])])


def snippet_data(spec: DataSpec) -> np.ndarray:
    """The data a reproducer's task carries: the case's own fill when ``array_code`` embeds it, else
    a read-only stand-in of its shape and dtype that takes no memory (the snippet rebuilds such
    data as a counter anyway)."""
    if spec.dtype in dtypes.STRING or memory.data_bytes(spec) <= reproducers.EMBED_LIMIT:
        return make_data(spec)
    return np.broadcast_to(np.zeros((), dtype=dtypes.numpy_dtype(spec.dtype)), spec.shape)


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
