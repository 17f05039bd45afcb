"""The environment the engine's processes start in: the variables backends read when they load
(how many threads they may use, where Keras keeps its files), and how a process sets them around
starting a child without leaving them set for the user's own code.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping

from conformance.plugin import private_folder  # one definition: adapters use it too (Keras)

#: set in each worker so that N workers share the cores instead of each backend assuming it owns
#: them all (which makes -j 2 slower, not faster)
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "CONFORMANCE_THREADS")

#: set while the zygote imports the backends routes declare: some decide once, as they load,
#: whether to start a usage-telemetry thread, and start none in a CI job (ONNX Runtime, OpenVINO).
#: A conformance run is a test run, so the zygote imports them as CI does, and a backend that
#: would start a thread need not stay out of it; the workers keep the user's environment.
TEST_RUN = {"CI": "true"}


@contextlib.contextmanager
def environment(variables: Mapping[str, str]) -> Iterator[None]:
    """``variables`` set in this process's environment for the block, then the previous values
    (or their absence) restored: what a child or a backend reads as it starts or loads is ours,
    what the user's own code sees later is the user's."""
    before = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def backend_variables(threads: int, *, blas: int | None = None) -> dict[str, str]:
    """The variables backends read when they load: how many threads they may use (``blas``
    overrides it for OpenBLAS, which starts its pool when NumPy is imported: the zygote needs 1),
    and Keras's folder, which importing TensorFlow imports where Keras 3 is installed, and which
    writes keras.json into the user's home otherwise. A spawned process imports NumPy with the
    parent's main module before its own code runs: its parent sets them around its start."""
    variables = dict.fromkeys(THREAD_VARIABLES, str(threads))
    if blas is not None:
        variables["OPENBLAS_NUM_THREADS"] = str(blas)
    variables["KERAS_HOME"] = private_folder("keras")
    return variables
