"""The JAX adapter on a representative slice of the corpus, on both routes and both devices.

Passing items prove the adapter builds what the cases say (the axis left out when omitted, counts as
ints and split points as lists, bfloat16, float16, bool, complex and NaN payloads carried bit for bit);
the 64-bit mode must be on exactly for cpu-x64 items, even when one adapter serves both devices as a
worker does; a deliberately corrupted adapter must fail, proving the comparison is live; JAX's refusals
must be judged as JAX's, never as a defect of the adapter; and every non-pass of the jax.* ops, run
through the workers, must be claimed by a shipped known issue.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from functools import cache
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest
import route_calls
from claims import assert_every_failure_claimed, raw_run
from processes import run_cli

jax = pytest.importorskip("jax")
pytest.importorskip("conformance_jax")

from conformance_jax import JaxAdapter  # noqa: E402

from conformance.corpus.loader import Suite, load_paths  # noqa: E402
from conformance.engine.item import make_task, run_item  # noqa: E402
from conformance.errors import UsageError  # noqa: E402
from conformance.plugin import ENTRY_POINT_GROUP, AdapterInfo, Target, Task  # noqa: E402
from conformance.results.result import Result  # noqa: E402
from conformance.run.planning import RunConfig, plan  # noqa: E402
from conformance.verdict import known_issues  # noqa: E402

#: off the default run: `nox -s tests` leaves this module out, `-m extra_targets` selects it
pytestmark = pytest.mark.extra_targets

ROOT = Path(__file__).resolve().parents[2]
TARGETS = [(route, device) for route in ("eager", "jit") for device in ("cpu", "cpu-x64")]

PASSING = [
    # JAX's pages' examples, each function's own
    "jax-doc-split-9-at-2-7::jax.numpy.split",
    "jax-doc-split-2x4-axis1-into-2::jax.numpy.split",
    "jax-doc-array-split-9-into-4::jax.numpy.array_split",
    "jax-doc-vsplit-1d-into-2::jax.numpy.vsplit",
    "jax-doc-hsplit-2x4-into-2::jax.numpy.hsplit",
    "jax-doc-dsplit-3x1x4-into-2::jax.numpy.dsplit",
    "jax-lax-sizes-2-5-3::jax.lax.split",
    # no axis: the default, 0; a negative axis
    "doc-readme-6-into-4::jax.numpy.array_split",
    "axis-rank3-axisminus3-parts2::jax.numpy.split",
    # element types carried bit for bit: NaN payloads, signalling NaNs, subnormals, signed zeros
    "special-bfloat16-parts::jax.numpy.split",
    "special-float16-indices-axis0::jax.numpy.array_split",
    "special-float32-lengths::jax.lax.split",
    "special-complex64-parts::jax.numpy.split",
    "special-bool-values::jax.lax.split",
    # zero-length pieces, an empty dim, no sizes at all
    "lengths-zero-0-3-4::jax.lax.split",
    "lengths-empty-list-empty-dim::jax.lax.split",
    # requests the spec rejects, refused by JAX: passes
    "dtype-bool-parts-uneven::jax.numpy.split",
    "lengths-sum-one-short::jax.lax.split",
    "axis-rank2-axis2-out-of-range-parts::jax.numpy.array_split",
]


@cache
def suite() -> Suite:
    return load_paths([ROOT / "cases"])


def judge(item: str, route: str, device: str, adapter: JaxAdapter | None = None, repeat: int = 1) -> Result:
    case_id, _, op = item.partition("::")
    target = Target("jax", route, device)
    return run_item(adapter or JaxAdapter({}), target, suite().by_id(case_id), op, repeat=repeat)


@pytest.mark.slow
@pytest.mark.parametrize(("route", "device"), TARGETS)
@pytest.mark.parametrize("item", PASSING)
def test_corpus_item_passes(item: str, route: str, device: str) -> None:
    result = judge(item, route, device)
    assert result.status == "pass", result.message


def _pieces(adapter: JaxAdapter, task: Task, route: str, device: str) -> Sequence[np.ndarray]:
    """One item's phases, as a worker runs them."""
    target = Target("jax", route, device)
    return route_calls.outcome(adapter, task, target)


@pytest.mark.slow
@pytest.mark.parametrize("route", ["eager", "jit"])
def test_x64_mode_is_on_exactly_for_cpu_x64_items_of_one_adapter(route: str) -> None:
    """One adapter serving both devices in turn, as a worker does: int64 values past 32 bits keep their
    type and value on cpu-x64, and are wrapped to int32 on cpu, every time; the mode does not leak."""
    task = make_task(suite().by_id("jax-int64-past-int32-lengths"), "jax.lax.split")
    adapter = JaxAdapter({})
    for device in ("cpu-x64", "cpu", "cpu-x64", "cpu"):
        pieces = _pieces(adapter, task, route, device)
        joined = np.concatenate(pieces)
        if device == "cpu-x64":
            assert [piece.dtype for piece in pieces] == [np.dtype(np.int64)] * 2
            assert joined.tolist() == task.data.tolist()
        else:
            assert [piece.dtype for piece in pieces] == [np.dtype(np.int32)] * 2
            assert joined.tolist() == task.data.astype(np.int32).tolist()  # 2^40 + 5 is 5
            assert joined.tolist() != task.data.tolist()
        assert jax.numpy.asarray(np.zeros(1, np.int64)).dtype == np.int32  # off again outside an item


@pytest.mark.parametrize(("route", "device"), TARGETS)
def test_prepare_warms_jax_in_the_target_s_mode_and_leaves_the_default(route: str, device: str) -> None:
    route_calls.prepare(JaxAdapter({}), Target("jax", route, device))
    assert jax.config.jax_platforms == "cpu"
    assert jax.numpy.asarray(np.zeros(1, np.int64)).dtype == np.int32


def test_a_narrowed_piece_is_a_dtype_failure_claimed_by_the_32_bit_known_issue() -> None:
    result = judge("jax-float64-not-float32-parts::jax.numpy.split", "eager", "cpu")
    assert result.status == "fail" and result.mismatch is not None and result.mismatch["what"] == "dtype"
    claimed = known_issues.apply(result, known_issues.shipped("jax", "conformance_jax:JaxAdapter"))
    assert claimed.status == "xfail"
    assert (claimed.known_issue or {}).get("id") == "x32-mode-narrows-64-bit-data"
    assert judge("jax-float64-not-float32-parts::jax.numpy.split", "eager", "cpu-x64").status == "pass"


class SwappingAdapter(JaxAdapter):
    """Returns the first two pieces in the wrong order."""

    def info(self) -> AdapterInfo:
        return route_calls.tampered(super().info(), route_calls.swap_first_two)


class SignFlippingAdapter(JaxAdapter):
    """Flips the sign bit of one element: -0.0 for 0.0 is a wrong result for a data move."""

    def info(self) -> AdapterInfo:
        return route_calls.tampered(super().info(), route_calls.flip_sign_bit)


@pytest.mark.parametrize("broken", [SwappingAdapter, SignFlippingAdapter])
@pytest.mark.parametrize(("route", "device"), TARGETS)
def test_wrong_outputs_fail(broken: type[JaxAdapter], route: str, device: str) -> None:
    result = judge("special-float32-lengths::jax.lax.split", route, device, broken({}), repeat=0)
    assert result.status == "fail", result.message


def _raised(result: Result) -> tuple[str, str, str] | None:
    """Who raised the result's exception, in which phase, and its type."""
    raised = result.actual.get("raised")
    return None if raised is None else (raised["origin"], raised["phase"], raised["type"])


@pytest.mark.parametrize(("route", "phase"), [("eager", "run"), ("jit", "build")])
def test_a_refusal_of_a_valid_request_is_an_error_of_jax_not_a_defect(route: str, phase: str) -> None:
    """jnp.split refuses a negative split point NumPy's text slices (known issue): JAX's own error,
    raised by the call eagerly and while tracing under jit."""
    result = judge("indices-negative::jax.numpy.split", route, "cpu-x64")
    assert result.status == "error" and result.defect is None, result.message
    assert _raised(result) == ("backend", phase, "ValueError")


@pytest.mark.parametrize(
    ("item", "raised_type"),
    [
        ("graph-runtime-axis-split1::jax.numpy.split", "ConcretizationTypeError"),
        ("graph-runtime-lengths::jax.lax.split", "TypeError"),
    ],
)
def test_a_split_value_fed_at_run_time_is_traced_and_refused_by_jax(item: str, raised_type: str) -> None:
    result = judge(item, "jit", "cpu")
    assert result.status == "error" and result.defect is None, result.message
    assert _raised(result) == ("backend", "build", raised_type)
    claimed = known_issues.apply(result, known_issues.shipped("jax", "conformance_jax:JaxAdapter"))
    assert (claimed.known_issue or {}).get("id") == "jit-split-value-must-be-static"


def test_eager_calls_have_no_graph_and_pass_with_the_value_fed_at_run_time() -> None:
    assert judge("graph-runtime-lengths::jax.lax.split", "eager", "cpu").status == "pass"


@pytest.mark.slow
@pytest.mark.parametrize(("route", "device"), TARGETS)
def test_the_reproducer_runs_with_jax_alone(route: str, device: str) -> None:
    task = make_task(suite().by_id("jax-float64-not-float32-lengths"), "jax.lax.split")
    snippet = route_calls.reproducer(JaxAdapter({}), task, Target("jax", route, device))
    assert snippet is not None and "conformance" not in snippet
    done = subprocess.run(
        [sys.executable, "-c", f"import base64\nimport numpy as np\n{snippet}"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    dtype = "float64" if device == "cpu-x64" else "float32"
    assert done.stdout.splitlines()[-1] == f"[((1,), '{dtype}'), ((0,), '{dtype}'), ((5,), '{dtype}')]"


@pytest.mark.parametrize(("device", "x64"), [("gpu", False), ("gpu-x64", True)])
def test_a_gpu_reproducer_makes_jax_s_first_gpu_the_default_device(device: str, x64: bool) -> None:
    """Not run here (no GPU): the snippet must ask for the GPU rather than pin JAX to the CPU."""
    task = make_task(suite().by_id("jax-float64-not-float32-lengths"), "jax.lax.split")
    snippet = route_calls.reproducer(JaxAdapter({}), task, Target("jax", "jit", device)) or ""
    assert 'jax.config.update("jax_default_device", jax.devices("gpu")[0])' in snippet
    assert f'jax.config.update("jax_enable_x64", {x64})' in snippet and "jax_platforms" not in snippet


@pytest.mark.slow
def test_a_traced_reproducer_shows_jax_s_refusal() -> None:
    task = make_task(suite().by_id("graph-runtime-axis-split1"), "jax.numpy.split")
    snippet = route_calls.reproducer(JaxAdapter({}), task, Target("jax", "jit", "cpu"))
    assert snippet is not None
    done = subprocess.run(
        [sys.executable, "-c", f"import base64\nimport numpy as np\n{snippet}"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode != 0 and "ConcretizationTypeError" in done.stderr


def test_string_data_is_unsupported_with_the_reason() -> None:
    case = suite().by_id("dtype-string-lengths")
    task = make_task(case, "torch.split")  # no jax.* op takes strings: the catalogue leaves them out
    answer = route_calls.support(JaxAdapter({}), task, Target("jax", "eager", "cpu"))
    assert answer is not None and "no string element type" in answer.reason


def test_the_entry_point_loads_the_adapter_and_info_reports_the_installed_jax() -> None:
    (entry,) = [e for e in metadata.entry_points(group=ENTRY_POINT_GROUP) if e.name == "jax"]
    assert entry.load() is JaxAdapter
    info = JaxAdapter({}).info()
    assert (info.name, info.backend, info.version) == ("jax", "jax", jax.__version__)
    assert [(route.name, route.default) for route in info.routes] == [("eager", False), ("jit", False)]
    assert info.devices == ("cpu", "cpu-x64")
    assert info.options == {"device": "cpu,cpu-x64", "jaxlib": metadata.version("jaxlib")}
    assert JaxAdapter({"device": "cpu-x64"}).info().devices == ("cpu-x64",)


def test_the_routes_run_only_when_a_target_selects_them() -> None:
    """Both routes cost more than a default route may (docs/performance.md): a run must ask for them."""
    cases = (str(ROOT / "cases" / "jax.yaml"),)
    assert plan(RunConfig(case_paths=cases, adapters=("jax", "numpy"), ops=("jax.*",))).jobs == []
    chosen = plan(RunConfig(case_paths=cases, adapters=("jax",), targets=("jax/eager/*",))).jobs
    assert {job.target.id for job in chosen} == {"jax/eager/cpu", "jax/eager/cpu-x64"}


def test_info_does_not_import_jax_in_the_run_s_process() -> None:
    code = (
        "import sys\nfrom conformance_jax import JaxAdapter\nJaxAdapter({}).info()\n"
        "print('jax' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize(
    ("options", "complaint"), [({"device": "tpu"}, "unknown device"), ({"x64": "1"}, "unknown option")]
)
def test_bad_options_are_refused_at_construction(options: dict[str, str], complaint: str) -> None:
    with pytest.raises(UsageError, match=complaint):
        JaxAdapter(options)


@cache
def jax_has_a_gpu() -> bool:
    """Whether JAX finds a GPU backend here, asked in a fresh interpreter: this process's JAX has
    started its CPU backend alone already, and starting a GPU client in a test process would hold
    the device's memory for the session."""
    probe = "import jax\ntry:\n    jax.devices('gpu')\nexcept RuntimeError:\n    print('none')\n"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, check=True
    )
    return done.stdout.strip() != "none"


def test_the_gpu_devices_are_offered_beside_the_default_cpu_ones() -> None:
    """`conformance adapters` lists them; a run without the option still judges the CPU alone."""
    info = JaxAdapter({}).info()
    assert info.devices == ("cpu", "cpu-x64") and info.other_devices == ("gpu", "gpu-x64")
    assert JaxAdapter({"device": "cpu-x64"}).info().other_devices == ("cpu", "gpu", "gpu-x64")


@pytest.mark.slow  # seconds: subprocesses or imported backends
@pytest.mark.parametrize("device", ["gpu", "cpu,gpu-x64"])
def test_a_gpu_device_is_a_usage_error_at_load_where_jax_has_no_gpu_backend(
    device: str, tmp_path: Path
) -> None:
    """Like any unknown device: exit 2 before anything runs, saying why (not every item unsupported)."""
    if jax_has_a_gpu():
        pytest.skip("JAX has a GPU backend on this machine: the gpu devices are accepted here")
    out = str(tmp_path / "out")
    done = run_cli(ROOT, "run", "--adapter", "jax", "--option", f"jax.device={device}",
                   "--target", "jax/eager/*", "-k", "jax-doc", "--out", out)  # fmt: skip
    assert done.returncode == 2, done.stderr
    gpus = device.removeprefix("cpu,")
    assert f"jax device {gpus}: JAX {jax.__version__} has no GPU backend here" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "out" / "results.json").exists()


#: Run in an interpreter whose JAX has two CPU devices, the second standing in for the GPU: one adapter
#: alternates the devices item by item, as a worker does; a variant that leaves the device context out
#: must be caught by the placement check (an adapter defect, never a verdict).
TWO_DEVICES = """
import jax
from conformance_jax import JaxAdapter, adapter, calls
from conformance.corpus.loader import load_paths
from conformance.plugin import Target
from conformance.engine.item import run_item

first, second = jax.devices("cpu")
calls.device = lambda name: second if name.startswith("gpu") else first


class Unplaced(JaxAdapter):
    def _on(self, device):
        return jax.enable_x64(calls.x64(device))


case = load_paths([CASES]).by_id("jax-int64-past-int32-lengths")
one = JaxAdapter({})
turns = [(one, "gpu-x64"), (one, "cpu"), (one, "gpu"), (one, "cpu-x64"), (Unplaced({}), "gpu-x64")]
for made, device in turns:
    for route in ("eager", "jit"):
        result = run_item(made, Target("jax", route, device), case, "jax.lax.split", repeat=0)
        print(type(made).__name__, route, device, result.status, result.defect, result.message[:160])
"""


def test_each_item_runs_on_its_target_s_device_and_a_stray_piece_is_an_adapter_defect(tmp_path: Path) -> None:
    code = TWO_DEVICES.replace("CASES", repr(str(ROOT / "cases" / "jax.yaml")))
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=2"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False, env=env
    )
    assert done.returncode == 0, done.stderr
    lines = [line.split(" ", 5) for line in done.stdout.splitlines()]
    # 64-bit data: x64 devices pass, the 32-bit ones narrow it (a dtype failure, JAX's known issue)
    expected = {"gpu-x64": "pass", "cpu": "fail", "gpu": "fail", "cpu-x64": "pass"}
    assert [tuple(line[:5]) for line in lines[:8]] == [
        ("JaxAdapter", route, device, expected[device], "None")
        for device in ("gpu-x64", "cpu", "gpu", "cpu-x64")
        for route in ("eager", "jit")
    ]
    for made, _route, device, status, defect, message in lines[8:]:
        assert (made, device, status, defect) == ("Unplaced", "gpu-x64", "error", "adapter")
        assert "pieces of a gpu-x64 item are on cpu:0, not on cpu:1" in message


GPU_TARGETS = [(route, device) for route in ("eager", "jit") for device in ("gpu", "gpu-x64")]


@pytest.mark.slow
def test_the_gpu_devices_give_the_cpu_s_verdicts_where_jax_has_a_gpu(tmp_path: Path) -> None:
    """On a machine with a JAX GPU backend: JAX's pages' examples and its 64-bit cases on both routes,
    every item's verdict on gpu (gpu-x64) the one on cpu (cpu-x64), every piece on the GPU (the run
    would report a piece elsewhere as the adapter's defect)."""
    if not jax_has_a_gpu():
        pytest.skip("no JAX GPU backend on this machine (benchmarks/gpu_check.sh runs this on one)")
    out = tmp_path / "out"
    done = run_cli(ROOT, "run", "--adapter", "jax", "--target", "jax/*", "--option",
                   "jax.device=cpu,cpu-x64,gpu,gpu-x64", "-k", "jax-", "-j", "2", "--out", str(out),
                   timeout=600)  # fmt: skip
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))["results"]
    verdicts = {(r["case"], r["op"], r["route"], r["device"]): r["status"] for r in results}
    assert {(route, device) for _, _, route, device in verdicts} == set(TARGETS + GPU_TARGETS), done.stderr
    assert not [r for r in results if r.get("defect")], done.stderr
    for (case, op, route, device), status in verdicts.items():
        if device.startswith("gpu"):
            twin = verdicts[case, op, route, device.replace("gpu", "cpu")]
            assert status == twin, (case, op, route, device)


SCRATCH = """\
defaults: {source: scratch cases written for this test, data: {dtype: float32}}
cases:
  - {id: scratch-point-past-end, title: t, ops: [jax.numpy.array_split], data: {shape: [5, 2]}, axis: 0,
     indices: [1, 9]}
  - {id: scratch-uint64-sizes, title: t, ops: [jax.lax.split], data: {shape: [5], dtype: uint64},
     lengths: [4, 1]}
  - {id: scratch-traced-count, title: t, ops: [jax.numpy.vsplit], data: {shape: [4, 2]}, parts: 2,
     graph: {inputs: runtime}}
"""

#: item -> the known issue that must claim it on each target (None: the item passes there)
BY_MEANING = {
    "scratch-point-past-end::jax.numpy.array_split": dict.fromkeys(TARGETS, "jnp-split-points-not-slices"),
    "scratch-uint64-sizes::jax.lax.split": {
        target: "x32-mode-narrows-64-bit-data" if target[1] == "cpu" else None for target in TARGETS
    },
    "scratch-traced-count::jax.numpy.vsplit": {
        target: "jit-split-value-must-be-static" if target[0] == "jit" else None for target in TARGETS
    },
}


def test_the_known_causes_are_recognised_on_new_case_ids(tmp_path: Path) -> None:
    (tmp_path / "scratch.yaml").write_text(SCRATCH, encoding="utf-8")
    scratch = load_paths([tmp_path / "scratch.yaml"])
    issues = known_issues.shipped("jax", "conformance_jax:JaxAdapter")
    found = {}
    for item, expected in BY_MEANING.items():
        case_id, _, op = item.partition("::")
        for route, device in expected:
            result = run_item(
                JaxAdapter({}), Target("jax", route, device), scratch.by_id(case_id), op, repeat=0
            )
            claimed = known_issues.apply(result, issues)
            found[item, (route, device)] = (
                (claimed.known_issue or {}).get("id") if claimed.status == "xfail" else None
            )
            assert claimed.status in ("pass", "xfail"), claimed.message
    assert found == {
        (item, target): issue for item, targets in BY_MEANING.items() for target, issue in targets.items()
    }


@pytest.mark.slow
def test_every_non_pass_of_the_jax_ops_is_a_known_issue_and_no_entry_is_stale(tmp_path: Path) -> None:
    """The jax.* ops through the workers, both routes and devices, raw statuses, on a slice: JAX's own
    cases, the documents' examples and the invalid requests (1,012 of 5,268 items, 26 s of the 310 s
    of worker time the whole took; the slice holds every known issue of the adapter). JAX is off the
    default run: ``nox -s extra_targets`` holds all of its items to the same, and fails on any it
    leaves red."""
    results = raw_run(tmp_path, "jax", ops=("jax.*",), targets=("jax/*",), keyword="jax- or doc or invalid")
    assert len(results) > 900
    assert {(r.route, r.device) for r in results} == set(TARGETS)
    assert_every_failure_claimed(results, known_issues.shipped("jax", "conformance_jax:JaxAdapter"))
