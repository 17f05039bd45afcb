"""Each installed adapter's declared modules (Route.imports) start no thread when imported: a
run's zygote imports them without trying them first, and a thread there would end its forking
(every later worker spawned, importing its backends again)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conformance.engine import worker
from conformance.loading import registry

_COUNT = (
    "import importlib, os, sys\n"
    "for name in sys.argv[1:]:\n"
    "    importlib.import_module(name)\n"
    "print(len(os.listdir('/proc/self/task')))\n"
)


def _declared() -> list[tuple[str, tuple[str, ...]]]:
    """(adapter, modules) for each installed adapter whose routes declare any."""
    found = []
    for name in sorted(registry.installed()):
        try:
            info = registry.load(name).info
        except Exception:  # not loadable here: the adapter's own tests say why
            continue
        modules = tuple(dict.fromkeys(module for route in info.routes for module in route.imports))
        if modules:
            found.append((name, modules))
    return found


@pytest.mark.slow  # seconds: each adapter's backend imported in a fresh interpreter
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="threads are counted in /proc")
def test_the_declared_modules_of_every_installed_adapter_start_no_thread() -> None:
    declared = _declared()
    assert declared, "no installed adapter declares modules: torch, TensorFlow and Paddle's do"
    variables = worker.backend_variables(2, blas=1)  # as the zygote has them: two threads a worker
    for adapter, modules in declared:
        counted = subprocess.run(
            [sys.executable, "-c", _COUNT, *modules],
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, **variables},
            check=True,
        )
        assert counted.stdout.split()[-1] == "1", (adapter, modules, counted.stderr[-2000:])
