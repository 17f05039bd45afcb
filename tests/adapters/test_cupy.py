"""The CuPy adapter and the cupy.* ops, on machines with and without a CUDA device.

Without one (every CPU machine, CuPy not installed or not seeing a device), the adapter must load,
list its route and device, and answer every item ``unsupported`` with a reason that says what was
checked, and no default run may include it. The ops' references must answer as NumPy's texts do on
every item both can express. The adapter's own code (the call as the case states it, the pieces
copied back, its reproducer) is run here against a NumPy stand-in for CuPy, which also shows the
shipped known issue claiming the one departure NumPy and CuPy share. Where a CUDA device is present,
real items run through CuPy (``benchmarks/gpu_check.sh`` runs that test on a GPU machine).
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from functools import cache
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
import route_calls
from corpus_items import suite

pytest.importorskip("conformance_cupy")

from conformance_cupy import CupyAdapter
from conformance_cupy import adapter as cupy_adapter

from conformance.corpus import catalogue
from conformance.corpus.selection import select
from conformance.engine.item import make_task, run_item
from conformance.oracle.reference import SplitRequest, answer
from conformance.plugin import ENTRY_POINT_GROUP, Target
from conformance.results import document as results_file
from conformance.run.planning import RunConfig, plan
from conformance.verdict import known_issues

#: off the default run: `nox -s tests` leaves this module out, `-m extra_targets` selects it
pytestmark = pytest.mark.extra_targets

#: what the GPU check brought back (tests/data)
DATA = Path(__file__).resolve().parent.parent / "data"

ROOT = Path(__file__).resolve().parents[2]
TARGET = Target("cupy", "cupy", "cuda")
NAMES = ("split", "array_split", "hsplit", "vsplit", "dsplit")
OPS = tuple(f"cupy.{name}" for name in NAMES)


@cache
def cuda_device() -> bool:
    """Whether CuPy sees a CUDA device here, asked in a fresh interpreter (a CUDA context in the test
    process would outlive the test)."""
    probe = "import cupy\nprint(cupy.cuda.runtime.getDeviceCount())\n"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, check=False
    )
    return done.returncode == 0 and done.stdout.strip() not in ("", "0")


@pytest.fixture
def fresh_check() -> Iterator[None]:
    """The device check is made once per process: forget it around a test that changes its answer."""
    cupy_adapter.device_problem.cache_clear()
    yield
    cupy_adapter.device_problem.cache_clear()


def stand_in(count: Callable[[], int] = lambda: 1) -> SimpleNamespace:
    """NumPy dressed as CuPy: the five functions, the transfers, and the CUDA runtime's device count."""
    runtime = SimpleNamespace(getDeviceCount=count)
    functions = {name: getattr(np, name) for name in (*NAMES, "zeros")}
    cuda = SimpleNamespace(runtime=runtime)
    return SimpleNamespace(asarray=np.asarray, asnumpy=np.asarray, cuda=cuda, **functions)


def _missing() -> Any:
    raise ModuleNotFoundError("No module named 'cupy'")


def _no_driver() -> int:
    raise RuntimeError("cudaErrorInsufficientDriver: CUDA driver version is insufficient")


@pytest.mark.usefixtures("fresh_check")
@pytest.mark.parametrize(
    ("cupy", "reason"),
    [
        (_missing, "no CUDA device: CuPy cannot be imported (ModuleNotFoundError: No module named 'cupy')"),
        (
            lambda: stand_in(_no_driver),
            "no CUDA device: cupy.cuda.runtime.getDeviceCount() raised RuntimeError: "
            "cudaErrorInsufficientDriver",
        ),
        (lambda: stand_in(lambda: 0), "no CUDA device: cupy.cuda.runtime.getDeviceCount() found none"),
    ],
)
def test_without_a_device_every_item_is_unsupported_saying_what_was_checked(
    cupy: Any, reason: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cupy_adapter, "_cupy", cupy)
    result = run_item(CupyAdapter({}), TARGET, suite().by_id("hsplit-rank2-parts-2"), "cupy.hsplit", repeat=0)
    assert result.status == "unsupported" and result.message.startswith(reason), result.message
    route_calls.prepare(CupyAdapter({}), TARGET)  # nothing to warm, and nothing raised


def test_the_adapter_loads_without_cupy_and_lists_its_route_and_device() -> None:
    (entry,) = [e for e in metadata.entry_points(group=ENTRY_POINT_GROUP) if e.name == "cupy"]
    assert entry.load() is CupyAdapter
    info = CupyAdapter({}).info()
    assert (info.name, info.devices, info.options) == ("cupy", ("cuda",), {"device": "cuda"})
    assert info.backend.startswith("cupy") and info.version
    assert [(route.name, route.default, catalogue.match(route.ops)) for route in info.routes] == [
        ("cupy", False, list(OPS))
    ]


@pytest.mark.slow  # seconds: subprocesses or imported backends
def test_no_default_run_includes_the_route_and_a_target_glob_selects_it() -> None:
    """A CPU machine's default run is what it was: the cupy route runs only when named."""
    assert plan(RunConfig(adapters=("cupy", "numpy"), ops=("cupy.*",))).jobs == []
    chosen = plan(RunConfig(adapters=("cupy",), targets=("cupy/*",), keyword="hsplit-rank2")).jobs
    assert {job.target.id for job in chosen} == {"cupy/cupy/cuda"} and len(chosen) >= 6


def test_loading_the_adapter_imports_no_cupy() -> None:
    code = (
        "import sys\nfrom conformance_cupy import CupyAdapter\nCupyAdapter({}).info()\n"
        "print('cupy' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "False"


def _outcome(op: str, request: SplitRequest) -> object:
    """An answer without its wording: the pieces, or the rule a rejection names."""
    outcome = answer(op, request).outcome
    return getattr(outcome, "rule", outcome)


@pytest.mark.parametrize("name", NAMES)
def test_the_references_answer_as_numpy_s_texts_on_every_item_both_express(name: str) -> None:
    """One piece of code (numpy_namesakes) judges both: same pieces, same rules, on the corpus; the
    rejections name CuPy's function and the text it follows."""
    cases = {case.id: case for case in suite().cases}
    items = select(suite().cases, (f"cupy.{name}", f"numpy.{name}"))
    ours = {item.case.id for item in items if item.op == f"cupy.{name}"}
    theirs = {item.case.id for item in items if item.op == f"numpy.{name}"}
    both = sorted(ours & theirs)
    assert len(both) > 90 and len(ours - theirs) <= 15, sorted(ours - theirs)  # numpy's include strings
    for case_id in both:
        request = SplitRequest.of(cases[case_id])
        assert _outcome(f"cupy.{name}", request) == _outcome(f"numpy.{name}", request), case_id
    rejected = [answer(f"cupy.{name}", SplitRequest.of(cases[c])).outcome for c in both]
    reasons = [getattr(outcome, "reason", "") for outcome in rejected if hasattr(outcome, "rule")]
    assert reasons and all(f"cupy.{name} (numpy.{name}'s text)" in reason for reason in reasons)


def test_the_catalogue_and_specs_describe_the_ops() -> None:
    specs = (ROOT / "docs" / "specs.md").read_text(encoding="utf-8")
    for op in OPS:
        entry = catalogue.get(op)
        assert entry.document == f"cupy-{op}" and "string" not in entry.dtypes and not entry.graph_options
        assert entry.takes_axis == (op in ("cupy.split", "cupy.array_split"))
        page = f"https://docs.cupy.dev/en/stable/reference/generated/{op}.html"
        assert f"### cupy-{op}\n\n- Page: <{page}>" in specs


@pytest.fixture
def numpy_as_cupy(monkeypatch: pytest.MonkeyPatch, fresh_check: None) -> None:
    monkeypatch.setattr(cupy_adapter, "_cupy", stand_in)


@pytest.mark.usefixtures("numpy_as_cupy")
def test_the_adapter_s_calls_on_a_numpy_stand_in_pass_or_meet_the_known_issue() -> None:
    """Every cupy.* item but the large ones, through the adapter's code with NumPy in CuPy's place: the
    request reaches the function as the case states it (no axis for hsplit and its kin, split points
    as a list, counts as ints), every dtype comes back bit for bit, and the only failures are NumPy's
    vsplit refusing 1-D data, which CuPy's vsplit shares and the shipped entry claims."""
    issues = known_issues.shipped("cupy", "conformance_cupy:CupyAdapter")
    items = [item for item in select(suite().cases, ("cupy.*",)) if "large" not in item.case.tags]
    claimed: set[str] = set()
    for item in items:
        result = known_issues.apply(run_item(CupyAdapter({}), TARGET, item.case, item.op, repeat=0), issues)
        assert result.status in ("pass", "xfail"), f"{item.id}: {result.status}: {result.message}"
        if result.status == "xfail":
            claimed.add((result.known_issue or {}).get("id", ""))
    assert len(items) > 900 and claimed == {"cupy-vsplit-refuses-1d"}


@pytest.mark.usefixtures("numpy_as_cupy")
def test_the_reproducer_uses_cupy_alone(tmp_path: Path) -> None:
    """The snippet, run where `cupy` is the stand-in, prints the pieces' shapes of every run."""
    (tmp_path / "cupy.py").write_text(
        "import numpy as np\nasarray = np.asarray\nsplit, array_split = np.split, np.array_split\n"
        "hsplit, vsplit, dsplit = np.hsplit, np.vsplit, np.dsplit\n",
        encoding="utf-8",
    )
    task = make_task(suite().by_id("hsplit-rank2-parts-2"), "cupy.hsplit")
    snippet = route_calls.reproducer(CupyAdapter({}), task, TARGET)
    assert snippet is not None and "conformance" not in snippet
    assert "cupy.hsplit(cupy.asarray(data), 2)" in snippet
    done = subprocess.run(
        [sys.executable, "-c", f"import base64\nimport numpy as np\n{snippet}"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == str([piece.shape for piece in np.hsplit(task.data, 2)])


def test_the_known_issues_claim_every_departure_the_gpu_check_found_and_no_pass(tmp_path: Path) -> None:
    """The raw results (--no-known-issues) of the whole corpus through cupy-cuda13x 14.2.0 on an
    NVIDIA H200 (docs/gpu.md, the GPU check): each departure is claimed by an entry, and no result
    that passed is selected (it would turn xpass)."""
    raw = tmp_path / "results.json"
    with gzip.open(DATA / "cupy-14.2-h200-raw.json.gz", "rt", encoding="utf-8") as packed:
        raw.write_text(packed.read(), encoding="utf-8")
    _, results = results_file.read(raw)
    by_target = known_issues.ByTarget(known_issues.shipped("cupy", "conformance_cupy:CupyAdapter"))
    judged = [by_target.apply(result) for result in results]
    assert len(judged) == 1011 and {result.status for result in judged} == {"pass", "xfail"}
    claimed = Counter(result.known_issue["id"] for result in judged if result.known_issue)
    assert sum(claimed.values()) == sum(result.status != "pass" for result in results) == 57
    assert len(claimed) == 4  # every entry selects something: none is stale


@pytest.mark.slow
def test_real_items_run_through_cupy_where_a_cuda_device_is_present(tmp_path: Path) -> None:
    """On a GPU machine: the hsplit family's cases and the documents' examples through CuPy in
    workers, nothing unsupported, no adapter defect, every failure claimed or listed."""
    if not cuda_device():
        pytest.skip("no CUDA device for CuPy here (CuPy not installed, or it sees none)")
    out = tmp_path / "out"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "conformance.cli",
            "run",
            "--adapter",
            "cupy",
            "--target",
            "cupy/*",
            "-k",
            "hsplit or doc",
            "-j",
            "2",
            "--out",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))["results"]
    statuses = {r["status"] for r in results}
    assert len(results) > 200 and "unsupported" not in statuses, done.stderr[-2000:]
    assert not [r for r in results if r.get("defect")]
    assert statuses <= {"pass", "xfail", "fail", "error"} and "pass" in statuses
