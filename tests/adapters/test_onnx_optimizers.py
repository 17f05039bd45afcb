"""Routes ``onnxsim``, ``onnxslim``, ``onnxoptimizer`` of the ONNX Runtime adapter: the suite's ONNX
model passed through a graph optimizer, then served by ORT as route ``default`` serves it.

Proves that each tool really runs (the model the session gets is the tool's, and the results
record the tool's version and call), that a route whose tool is missing is unsupported with the
pip extra named, that the reproducers run with nothing but the tool and ORT, and, one run over
every onnx.* item per route, that every failure is claimed by a known issue and none is stale.
"""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from claims import assert_claimed_by, assert_every_failure_claimed, raw_run

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytest.importorskip("conformance_onnxruntime")

from conformance_onnxruntime import OnnxRuntimeAdapter, optimizer_routes  # noqa: E402
from route_calls import snippet  # noqa: E402

from conformance.corpus import catalogue  # noqa: E402
from conformance.corpus.loader import Suite, load_paths  # noqa: E402
from conformance.engine.item import make_task, run_item  # noqa: E402
from conformance.loading import hooks  # noqa: E402
from conformance.models import onnx_graphs  # noqa: E402
from conformance.plugin import Target  # noqa: E402
from conformance.verdict import known_issues  # noqa: E402

CASES = Path(__file__).resolve().parents[2] / "cases"
ROUTES = tuple(optimizer_routes.TOOLS)
_ENTRY_POINT = "conformance_onnxruntime:OnnxRuntimeAdapter"


def _needs(route: str) -> pytest.MarkDecorator:
    return pytest.mark.skipif(not optimizer_routes.installed(route), reason=f"{route} is not installed")


TOOL_ROUTES = [pytest.param(route, marks=_needs(route)) for route in ROUTES]


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_paths([CASES])


@pytest.fixture(scope="module")
def adapter() -> OnnxRuntimeAdapter:
    return OnnxRuntimeAdapter({})


def test_the_routes_record_each_tool(adapter: OnnxRuntimeAdapter) -> None:
    info = adapter.info()
    routes = {route.name: route for route in info.routes}
    # off the default run only where the tool costs more than 20 ms per item
    assert {name: routes[name].default for name in ROUTES} == {
        "onnxsim": False,
        "onnxslim": True,
        "onnxoptimizer": True,
    }
    # every tool takes every ONNX op route default runs, both families
    default_ops = catalogue.match(routes["default"].ops)
    assert {"onnx.Split-18", "onnx.Slice-1", "onnx.Slice-13"} <= set(default_ops)
    assert all(catalogue.match(routes[name].ops) == default_ops for name in ROUTES)
    for name in ROUTES:
        distribution = optimizer_routes.TOOLS[name].distribution
        installed = optimizer_routes.installed(name)
        assert info.options[f"{name}_version"] == (
            metadata.version(distribution) if installed else "not installed"
        )
        assert info.options[f"{name}_call"].startswith(f"{name}.")


@_needs("onnxoptimizer")
def test_onnxoptimizer_runs_the_passes_it_lists_as_fuse_and_elimination(adapter: OnnxRuntimeAdapter) -> None:
    import onnxoptimizer  # type: ignore[import-untyped]

    listed = onnxoptimizer.get_fuse_and_elimination_passes()
    assert "eliminate_nop_split" in listed
    assert adapter.info().options["onnxoptimizer_passes"].split(",") == listed


@pytest.mark.slow
@pytest.mark.parametrize("route", [pytest.param(r, marks=_needs(r)) for r in ("onnxsim", "onnxslim")])
def test_the_session_gets_the_tools_model(adapter: OnnxRuntimeAdapter, suite: Suite, route: str) -> None:
    """The suite's model declares outputs of rank only; both tools infer and write the piece shapes
    (onnxsim also stamps its settings into the model), so their model is not the one they were given."""
    task = make_task(suite.by_id("lengths-one-piece"), "onnx.Split-13")
    target = Target("onnxruntime", route, "cpu")
    build = hooks.of(adapter).route(target).build
    assert build is not None
    built = build(task, target)
    assert built != onnx_graphs.model_bytes(task)
    model = onnx.load_model_from_string(built)
    assert [dim.dim_value for dim in model.graph.output[0].type.tensor_type.shape.dim] == [7, 2]
    if route == "onnxsim":
        assert any(prop.key.startswith("onnxsim.") for prop in model.metadata_props)


@pytest.mark.parametrize("route", ROUTES)
def test_a_route_whose_tool_is_missing_is_unsupported_with_the_extra_named(
    adapter: OnnxRuntimeAdapter, suite: Suite, route: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, route, None)  # Python's own marker of a module that cannot be imported
    result = run_item(
        adapter, Target("onnxruntime", route, "cpu"), suite.by_id("lengths-one-piece"), "onnx.Split-13"
    )
    assert result.status == "unsupported"
    assert f"pip install adapters/onnxruntime[{route}]" in result.message


@pytest.mark.slow
@pytest.mark.parametrize("route", TOOL_ROUTES)
@pytest.mark.parametrize(
    ("item", "shapes"),
    [
        ("doc-onnx18-10-into-3::onnx.Split-18", "[(4,), (4,), (2,)]"),
        ("sts-doc-with-split-2::onnx.SplitToSequence-11", "[(1, 6), (2, 6)]"),
        ("slice-doc-onnx-example-1::onnx.Slice-13", "[(1, 2)]"),
    ],
)
def test_reproducers_run_with_only_the_tool_and_onnxruntime(
    adapter: OnnxRuntimeAdapter, suite: Suite, tmp_path: Path, route: str, item: str, shapes: str | None
) -> None:
    case_id, op = item.split("::")
    body = snippet(Target("onnxruntime", route, "cpu"), make_task(suite.by_id(case_id), op))
    assert body is not None and f"import {route}\n" in body
    script = tmp_path / "reproducer.py"
    script.write_text("import base64\n\nimport numpy as np\n" + body)
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    printed = done.stdout.strip().splitlines()[-1]
    assert printed.startswith("[(") and (shapes is None or printed == shapes)


@pytest.mark.slow
@pytest.mark.parametrize("route", TOOL_ROUTES)
@pytest.mark.parametrize(
    ("item", "issue"),
    [
        ("slice-doc-onnx-example-1::onnx.Slice-13", None),  # the spec's example
        ("slice-doc-onnx-example-2::onnx.Slice-10", None),
        ("slice-edge-rank-0-nothing-sliced::onnx.Slice-13", "slice-rank-0-refused"),  # ORT's own
    ],
)
def test_slice_items_are_judged_through_the_tool(
    adapter: OnnxRuntimeAdapter, suite: Suite, route: str, item: str, issue: str | None
) -> None:
    """Each tool's model of a Slice node is judged as route default's is: the documents' examples
    pass, and ONNX Runtime's own departure stays claimed by its entry on every tool's route."""
    case_id, op = item.split("::")
    result = run_item(adapter, Target("onnxruntime", route, "cpu"), suite.by_id(case_id), op, repeat=0)
    if issue is None:
        assert result.status == "pass", result.message
        return
    assert_claimed_by(result, known_issues.shipped("onnxruntime", _ENTRY_POINT), issue)


@pytest.mark.slow
@_needs("onnxslim")
@pytest.mark.parametrize(
    ("item", "issue"),
    [
        ("slice-doc-onnx1-example-1::onnx.Slice-1", "onnxslim-opset-below-7-crash"),
        ("slice-edge-nothing-sliced::onnx.Slice-1", "onnxslim-empty-list-attribute-not-exported"),
    ],
)
def test_onnxslims_own_slice_departures_stay_claimed(
    adapter: OnnxRuntimeAdapter, suite: Suite, item: str, issue: str
) -> None:
    """onnxslim refuses valid Slice-1 models that route default runs: its error is judged, and each
    kind is claimed by its own entry."""
    case_id, op = item.split("::")
    default = run_item(adapter, Target("onnxruntime", "default", "cpu"), suite.by_id(case_id), op, repeat=0)
    assert default.status == "pass", default.message
    result = run_item(adapter, Target("onnxruntime", "onnxslim", "cpu"), suite.by_id(case_id), op, repeat=0)
    assert (result.status, result.actual["raised"]["origin"]) == ("error", "backend"), result.message
    assert_claimed_by(result, known_issues.shipped("onnxruntime", _ENTRY_POINT), issue)


@pytest.mark.slow
@pytest.mark.extra_targets  # onnxsim is off the default run: see noxfile.py tests
@pytest.mark.parametrize("route", ["onnxsim"])
def test_every_non_pass_is_a_known_issue_and_no_entry_is_stale(tmp_path: Path, route: str) -> None:
    """onnxsim, off the default run, on a slice: the ONNX backend tests, the documents' examples, the
    invalid requests, the graph options and the rank-0 inputs its known segfault is about (833 of
    3,459 items; 8 of the 13 known issues the whole shows). ``nox -s extra_targets`` holds all of
    its items to the same. onnxslim and onnxoptimizer run in the main job, whose test
    (tests/test_main_job.py) holds them to it whole: green, every failure claimed, nothing stale."""
    issues = known_issues.shipped("onnxruntime", "conformance_onnxruntime:OnnxRuntimeAdapter")
    keyword = "onnx-node or doc or invalid or graph- or rank0 or scalar"
    results = raw_run(
        tmp_path, "onnxruntime", ops=("onnx.*",), targets=(f"onnxruntime/{route}/*",), keyword=keyword
    )
    assert len(results) > 800 and {result.route for result in results} == {route}
    assert_every_failure_claimed(results, issues)
