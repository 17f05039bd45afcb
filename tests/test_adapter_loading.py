"""Loading an adapter imports its own backend and nothing heavier.

Every worker loads the adapters it serves (``registry.load``, which calls ``info()``), the run's
main process loads every selected one to plan, and a worker replaced after a crash loads them again.
A framework imported there that the adapter's routes do not run is paid for again and again: ONNX
Runtime's ``info()`` once imported TensorFlow, Keras and JAX through tf2onnx (4.8 s per worker, a
sixth of a full run's time outside the backends). Each adapter is loaded in a fresh interpreter.
"""

from __future__ import annotations

import json
import subprocess
import sys

import built_in
import pytest

#: each test starts an interpreter that imports a framework: seconds
pytestmark = pytest.mark.slow

#: Frameworks too heavy to import without need (each costs a worker from 0.3 to 5 s).
HEAVY = (
    "tensorflow",
    "torch",
    "jax",
    "keras",
    "openvino",
    "onnxruntime",
    "tvm",
    "iree",
    "tract",
    "tf2onnx",
    "onnx2tf",
    "ai_edge_litert",
    "cupy",
    "mlx",
)
#: What loading each adapter may import of them: its own backend, which the adapter reports on.
OWN = {
    "onnxruntime": {"onnxruntime"},
    "openvino": {"openvino"},
    "torch": {"torch"},
    "litert": {"ai_edge_litert"},
}

PROBE = (
    "import json, sys\n"
    "from conformance.loading import registry\n"
    "registry.load(sys.argv[1], {})\n"
    "print(json.dumps([name for name in json.loads(sys.argv[2]) if name in sys.modules]))\n"
)


@pytest.mark.parametrize("adapter", built_in.every_adapter())
def test_loading_an_adapter_imports_no_framework_it_does_not_own(adapter: str) -> None:
    pytest.importorskip(f"conformance_{adapter}")
    done = subprocess.run(
        [sys.executable, "-c", PROBE, adapter, json.dumps(HEAVY)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    imported = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert imported <= OWN.get(adapter, set()), f"{adapter}: loading imported {sorted(imported)}"


def test_a_backends_version_is_read_without_the_installed_packages_index_when_it_can_be() -> None:
    # the index reads every installed distribution's file list (0.23 s here): OpenVINO's four
    # version look-ups made it 0.9 s of each worker's adapter load, replacements included
    from conformance import plugin

    plugin.distributions_by_package.cache_clear()
    name, _ = plugin.installed_distribution("numpy") or ("", "")
    assert name == "numpy" and plugin.distributions_by_package.cache_info().currsize == 0
    # an import package named unlike its distribution (``yaml`` comes from PyYAML, a dependency of
    # the suite; TensorFlow's from tensorflow-cpu): only the index says which, read once
    assert (plugin.installed_distribution("yaml") or ("",))[0] == "pyyaml"
    assert plugin.distributions_by_package.cache_info().currsize == 1
    assert plugin.installed_distribution("no_such_package_anywhere") is None


DEFAULT_ROUTES = (
    "import sys\n"
    "from conformance.loading import registry\n"
    "print(any(route.default for route in registry.load(sys.argv[1], {}).info.routes))\n"
)


@pytest.mark.parametrize("adapter", built_in.every_adapter())
def test_the_main_job_installs_exactly_the_adapters_with_a_default_route(adapter: str) -> None:
    """noxfile.py's ADAPTERS (what ``nox -s suite`` installs) are those with a route in the default
    run; EXTRA_ADAPTERS have none, so the main job never installs a backend it does not run."""
    pytest.importorskip(f"conformance_{adapter}")
    done = subprocess.run(
        [sys.executable, "-c", DEFAULT_ROUTES, adapter],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-1] == str(adapter in built_in.adapters())
