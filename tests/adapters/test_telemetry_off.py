"""The OpenVINO and ONNX Runtime adapters import their backend with its usage telemetry off, for
the import only: the worker stays single-threaded, so the zygote may import the backend too and
fork the later workers, and the environment the worker goes on with is the user's."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROBE = """
import os
import {module}
threads = len(os.listdir("/proc/self/task"))
print(threads, os.environ.get({variable!r}, "unset"))
"""


@pytest.mark.slow  # seconds: imports a backend in a fresh interpreter
@pytest.mark.parametrize(
    ("module", "variable"),
    [
        ("conformance_openvino.telemetry_off", "CI"),
        ("conformance_onnxruntime.telemetry_off", "ORT_DISABLE_TELEMETRY"),
    ],
)
def test_the_backend_loads_without_a_thread_and_leaves_the_environment(module: str, variable: str) -> None:
    pytest.importorskip(module.partition(".")[0])
    environment = {
        key: value for key, value in os.environ.items() if key not in {"CI", "ORT_DISABLE_TELEMETRY"}
    }
    # as the zygote and its workers run: one BLAS and OpenMP thread (see conformance.engine.worker)
    environment.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    probe = PROBE.format(module=module, variable=variable)
    said = subprocess.run(
        [sys.executable, "-c", probe],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout.split()
    assert said == ["1", "unset"], said
