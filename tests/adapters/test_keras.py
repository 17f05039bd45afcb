"""The Keras adapter: keras.ops.split on every Keras backend, each item on its route's backend.

Keras reads its backend once per process, and a worker may serve several of the adapter's routes in
turn, so the central claim is that every item runs under a Keras imported with its route's
backend. It is checked three ways: by what ran (one process serving the routes in turn, where
``keras.backend.backend()`` after each item names the route and each backend refuses the same
request with its own exception), by the adapter's refusal when the switch does not take, and by a
run through the suite's workers that crosses routes within a worker and is green with every
failure claimed. Keras and its backends run in subprocesses and workers only, never in the
process running the tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import route_calls
from claims import assert_every_failure_claimed, raw_run

pytest.importorskip("keras")
pytest.importorskip("conformance_keras")

from conformance_keras import KerasAdapter, backends

from conformance.corpus.loader import Suite, load_paths
from conformance.engine.item import make_task
from conformance.errors import UsageError
from conformance.plugin import Target, Unsupported, private_folder
from conformance.storage import out_folder
from conformance.verdict import known_issues

ROOT = Path(__file__).resolve().parents[2]
OP = "keras.ops.split"
ROUTES = ("tensorflow", "jax", "torch", "numpy", "openvino")
#: each route refuses indices [-3] (numpy.split's pieces of 7 and 3 rows) with its own exception
REFUSALS = {
    "tensorflow": ("InvalidArgumentError", "SplitV"),
    "jax": ("ValueError", "Sizes passed to split must be nonnegative"),
    "torch": ("RuntimeError", "split_with_sizes"),
    "openvino": ("RuntimeError", "split_lengths"),
}


@cache
def suite() -> Suite:
    return load_paths([ROOT / "cases"])


def target(route: str) -> Target:
    return Target("keras", route, "cpu")


def in_subprocess(code: str, *args: str, home: Path | None = None) -> Any:
    """Run ``code`` (with ``args``) in a fresh Python (Keras fixes its backend per process), with
    ``home`` as HOME if given, and return the JSON it prints last."""
    env = {**os.environ, "HOME": str(home)} if home is not None else None
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=ROOT,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_info_offers_one_route_per_backend_without_importing_keras() -> None:
    code = (
        "import json, sys\nfrom conformance_keras import KerasAdapter\ninfo = KerasAdapter({}).info()\n"
        "print(json.dumps({'routes': [[r.name, r.default, r.description] for r in info.routes],"
        " 'version': info.version, 'options': dict(info.options),"
        " 'imported': [m for m in ('keras', 'tensorflow', 'jax', 'torch', 'openvino') if m in sys.modules]}))"
    )
    info = in_subprocess(code)
    assert [(name, default) for name, default, _ in info["routes"]] == [
        ("tensorflow", True),
        ("jax", False),  # jnp.split compiles for each new shape: 78 ms an item here
        ("torch", True),
        ("numpy", True),
        ("openvino", False),  # each piece is a compiled OpenVINO model: 210 ms an item here
    ]
    assert all(backends.version(name) in description for name, _, description in info["routes"])
    assert info["options"] == {"device": "cpu", "jax_x64": "off"}
    assert info["imported"] == []  # the parent and the zygote import this adapter: no backend with it


@pytest.mark.parametrize(
    ("options", "complaint"),
    [({"device": "gpu"}, "unknown device"), ({"x64": "on"}, "unknown option"), ({"jax_x64": "yes"}, "on")],
)
def test_bad_options_are_refused_at_construction(options: dict[str, str], complaint: str) -> None:
    with pytest.raises(UsageError, match=complaint):
        KerasAdapter(options)


@pytest.mark.slow
def test_support_refuses_only_what_a_route_cannot_hold() -> None:
    wide = make_task(suite().by_id("dtype-int64-parts"), OP)
    complex_data = make_task(suite().by_id("dtype-complex64-parts"), OP)
    adapter, x64 = KerasAdapter({}), KerasAdapter({"jax_x64": "on"})
    support = route_calls.support
    refused = support(adapter, wide, target("jax"))
    assert isinstance(refused, Unsupported) and "jax_enable_x64" in refused.reason
    assert support(x64, wide, target("jax")) is None
    assert all(support(adapter, wide, target(route)) is None for route in ROUTES if route != "jax")
    refused = support(adapter, complex_data, target("openvino"))
    assert isinstance(refused, Unsupported) and "no complex element type" in refused.reason
    others = [route for route in ROUTES if route != "openvino"]
    assert all(support(adapter, complex_data, target(route)) is None for route in others)


def test_a_route_whose_backend_is_not_installed_is_unsupported_with_the_pip_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    absent = backends.Backend("nosuch", "no_such_package", (), "nosuch")
    monkeypatch.setitem(backends.BACKENDS, "nosuch", absent)
    backends.missing.cache_clear()
    task = make_task(suite().by_id("dtype-int64-parts"), OP)
    refused = route_calls.support(KerasAdapter({}), task, target("nosuch"))
    backends.missing.cache_clear()
    assert isinstance(refused, Unsupported)
    assert refused.reason == (
        "route nosuch needs no_such_package, which is not installed "
        "(python -m pip install 'conformance-keras[nosuch]')"
    )


_EVERY_ROUTE_IN_ONE_PROCESS = """
import json, sys
import numpy as np
sys.path.insert(0, 'tests')  # the test helpers, as pytest's rootdir puts them
import route_calls
from conformance.corpus.loader import load_paths
from conformance.engine.item import run_item
from conformance.plugin import Target
from conformance_keras import KerasAdapter, tensors

OP = 'keras.ops.split'
suite = load_paths(['cases'])
adapter = KerasAdapter({})
seen = []
for route in ['numpy', 'tensorflow', 'jax', 'torch', 'openvino', 'numpy', 'tensorflow']:
    for case in ('indices-negative', 'onnx-node-split-equal-parts-2d'):
        result = run_item(adapter, Target('keras', route, 'cpu'), suite.by_id(case), OP, repeat=0)
        raised = result.actual.get('raised') or {}
        seen.append([route, case, sys.modules['keras'].backend.backend(), result.status, result.defect,
                     raised.get('type'), result.message])

class BitFlipping(KerasAdapter):
    def info(self):
        return route_calls.tampered(super().info(), route_calls.flip_low_bit)

case = suite.by_id('onnx-node-split-equal-parts-2d')
flipped = run_item(BitFlipping({}), Target('keras', 'torch', 'cpu'), case, OP, repeat=0).status
import jax.numpy as jnp, tensorflow as tf, torch
foreign = [tensors.is_native('torch', np.zeros(1)), tensors.is_native('numpy', torch.zeros(1)),
           tensors.is_native('jax', tf.zeros(1)), tensors.is_native('tensorflow', jnp.zeros(1))]
print(json.dumps({'seen': seen, 'flipped': flipped, 'foreign': foreign}))
"""


@pytest.mark.slow
def test_one_process_serving_every_route_in_turn_runs_each_item_on_its_route_s_backend() -> None:
    """What a worker does when the pool hands it jobs of several routes: Keras is re-imported with
    each route's backend, and what comes back is that backend's (its own refusal of one request,
    its own tensors), never the previous route's."""
    found = in_subprocess(_EVERY_ROUTE_IN_ONE_PROCESS)
    for route, case, backend, status, defect, raised, message in found["seen"]:
        assert backend == route, (route, case)
        assert defect is None, message
        if case != "indices-negative" or route == "numpy":  # NumPy's slices are the reference's
            assert status == "pass", (route, case, message)
            continue
        kind, words = REFUSALS[route]
        assert (status, raised) == ("error", kind) and words in message, (route, message)
    assert found["flipped"] == "fail"  # bit-exact comparison of what the backend returned
    assert found["foreign"] == [False, False, False, False]


_SWITCH_THAT_DOES_NOT_TAKE = """
import json, os
os.environ['KERAS_BACKEND'] = 'numpy'
import keras
keras.config.set_backend = lambda name: None  # a Keras whose switch leaves the numpy backend running
from conformance.corpus.loader import load_paths
from conformance.engine.item import run_item
from conformance.plugin import Target
from conformance_keras import KerasAdapter

case = load_paths(['cases']).by_id('onnx-node-split-equal-parts-2d')
result = run_item(KerasAdapter({}), Target('keras', 'torch', 'cpu'), case, 'keras.ops.split', repeat=0)
print(json.dumps([result.status, result.defect, result.message]))
"""


@pytest.mark.slow
def test_an_item_is_refused_loudly_when_keras_runs_another_backend() -> None:
    status, defect, message = in_subprocess(_SWITCH_THAT_DOES_NOT_TAKE)
    assert (status, defect) == ("error", "adapter")
    assert "Keras runs the numpy backend in this worker, not torch" in message


@pytest.mark.slow
@pytest.mark.parametrize("route", ROUTES)
def test_the_reproducer_replays_every_run_with_keras_alone(route: str) -> None:
    case = suite().by_id("runs-new-data-static")
    task = make_task(case, OP)
    snippet = route_calls.reproducer(KerasAdapter({}), task, target(route))
    assert snippet is not None and "conformance" not in snippet
    done = subprocess.run(
        [sys.executable, "-c", f"import base64\nimport numpy as np\n{snippet}"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    expected = []
    for run in task.every_run:
        value = run.request.form.value
        pieces = np.split(
            run.data, list(value) if isinstance(value, tuple) else value, axis=run.request.axis or 0
        )
        expected.append(str([piece.shape for piece in pieces]))
    assert [line for line in done.stdout.splitlines() if line.startswith("[")] == expected
    assert len(expected) > 1


@pytest.mark.slow
@pytest.mark.extra_targets  # its jax and openvino routes are off the default run
def test_every_non_pass_of_every_route_is_a_known_issue_and_workers_switch_backends(tmp_path: Path) -> None:
    """keras.ops.split on all five routes through the workers: green with every failure claimed,
    nothing stale, unsupported only where a route cannot hold the data, and workers that served
    several routes, re-importing Keras for each (their logs say so)."""
    issues = known_issues.shipped("keras", "conformance_keras:KerasAdapter")
    results = raw_run(tmp_path, "keras", ops=(OP,), targets=("keras/*",))
    assert_every_failure_claimed(results, issues)
    per_route = {route: [r for r in results if r.route == route] for route in ROUTES}
    assert len({len(found) for found in per_route.values()}) == 1 and len(per_route["numpy"]) > 300
    assert all(r.status == "pass" for r in per_route["numpy"])
    unsupported = {(r.route, r.params["data"]["dtype"]) for r in results if r.status == "unsupported"}
    assert unsupported == {("jax", kind) for kind in ("int64", "uint64", "float64", "complex128")} | {
        ("openvino", kind) for kind in ("complex64", "complex128")
    }
    logs = "".join(path.read_text() for path in (tmp_path / out_folder.WORKERS).glob("worker-*.log"))
    assert "conformance-keras: Keras re-imported with the" in logs


_ONE_ITEM_WITH_HOME = """
import json, os
from conformance.corpus.loader import load_paths
from conformance.engine.item import run_item
from conformance.plugin import Target
from conformance_keras import KerasAdapter

case = load_paths(['cases']).by_id('onnx-node-split-equal-parts-2d')
result = run_item(KerasAdapter({}), Target('keras', 'numpy', 'cpu'), case, 'keras.ops.split', repeat=0)
print(json.dumps({'status': result.status, 'home': os.environ['KERAS_HOME']}))
"""


@pytest.mark.slow
def test_keras_never_writes_into_the_user_s_home(tmp_path: Path) -> None:
    """Keras writes keras.json into ~/.keras on its first import; the workers give it a folder of
    the suite's, so a run leaves the user's home as it was (and a user's floatx cannot leak in)."""
    found = in_subprocess(_ONE_ITEM_WITH_HOME, home=tmp_path)
    assert found["status"] == "pass"
    assert not (tmp_path / ".keras").exists()
    assert found["home"] == private_folder("keras") and not found["home"].startswith(str(tmp_path))


_RUN_WITH_ZYGOTE = """
import dataclasses, json, sys
from pathlib import Path
from conformance.engine import settings
from conformance.run.planning import RunConfig, plan
from conformance.run.runner import execute

settings.ENGINE = dataclasses.replace(settings.ENGINE, eager_zygote=1)  # a zygote from the start
targets = ('keras/tensorflow/cpu', 'keras/numpy/cpu', 'keras/torch/cpu')
config = RunConfig(adapters=('keras',), targets=targets, repeat=0, jobs=2, out=Path(sys.argv[1]), junit=False)
results = execute(plan(config), config).results
red = [f'{r.route} {r.case}: {r.status}: {r.message[:200]}' for r in results
       if r.status not in ('pass', 'xfail', 'unsupported')]
print(json.dumps({'routes': sorted({r.route for r in results}), 'red': red[:5]}))
"""


@pytest.mark.slow
def test_forked_workers_import_keras_themselves_with_their_route_s_backend(tmp_path: Path) -> None:
    """The zygote imports the frameworks the keras routes declare, never Keras itself (it binds
    its backend when imported): a NumPy-backend Keras imported in the zygote broke keras.ops on
    TensorFlow in every worker forked after, and Keras imported there wrote keras.json into the
    user's home. A run with a zygote from its start leaves the home untouched, and every item's
    verdict is its route's (pass, or a known issue's)."""
    out = tmp_path / "out"
    found = in_subprocess(_RUN_WITH_ZYGOTE, str(out), home=tmp_path)
    assert found == {"routes": ["numpy", "tensorflow", "torch"], "red": []}
    assert (out / out_folder.WORKERS / "zygote.log").exists()
    assert not (tmp_path / ".keras").exists()
