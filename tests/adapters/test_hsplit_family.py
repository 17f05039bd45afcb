"""NumPy's and PyTorch's hsplit, vsplit and dsplit on every route that runs them (issue 25).

These functions take no axis, so each route must call them without one and let the data's rank
choose it. The selection runs go through the executor's workers, as ``conformance run --op
'*.hsplit' ...`` does, with raw statuses: every non-pass must then be claimed by the adapter's
shipped known issues and no entry may be stale, and the issues found on these ops must be among
the claims (so a fixed backend or a lost entry shows). The reproducers are run alone, in a fresh
interpreter, the way a reader of the report runs them.
"""

from __future__ import annotations

import ast
import dataclasses
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from built_in import off_default_run
from claims import assert_every_failure_claimed, raw_run
from route_calls import snippet

from conformance.corpus import catalogue
from conformance.corpus.case import Form, GraphSpec
from conformance.corpus.loader import load_paths
from conformance.engine.item import make_task
from conformance.loading import registry
from conformance.oracle.reference import Pieces, SplitRequest, answer
from conformance.plugin import AdapterError, Target
from conformance.results.result import Result
from conformance.run import rerun
from conformance.verdict import known_issues

CASES = Path(__file__).resolve().parents[2] / "cases"
NUMPY_OPS = ("numpy.hsplit", "numpy.vsplit", "numpy.dsplit")
TORCH_OPS = ("torch.hsplit", "torch.vsplit", "torch.dsplit")

#: (adapter, target glob, ops, -k selection or None, the known issues these ops must show)
SELECTIONS = [
    pytest.param("numpy", "numpy/numpy/*", NUMPY_OPS, None, {"vsplit-refuses-1d"}, id="numpy"),
    pytest.param(
        "torch",
        "torch/eager/*",
        TORCH_OPS,
        None,
        {"directional-split-index-below-symint-range"},
        id="torch-eager",
        marks=pytest.mark.covered_by_main_job,  # a default-run target: see noxfile.py tests
    ),
    pytest.param(
        "torch",
        "torch/export/*",
        TORCH_OPS,
        None,
        {"directional-split-index-below-symint-range"},
        id="torch-export",
        marks=pytest.mark.extra_targets,  # off the default run
    ),
    pytest.param(
        "torch",
        "torch/compile/*",
        TORCH_OPS,
        "hsplit and (doc or edges)",
        {"directional-split-index-below-symint-range"},
        id="torch-compile",
        marks=pytest.mark.extra_targets,  # off the default run
    ),
    pytest.param(
        "openvino",
        "openvino/pytorch/*",
        TORCH_OPS,
        None,
        {"pytorch-fe-no-directional-split-translator", "torch-directional-split-index-below-symint-range"},
        id="openvino-pytorch",
        marks=pytest.mark.extra_targets,  # off the default run
    ),
    pytest.param(
        "openvino",
        "openvino/torch-export/*",
        TORCH_OPS,
        "hsplit and (doc or edges or int64 or float64)",  # the 64-bit dtypes: where its narrowing shows
        {"torch-directional-split-index-below-symint-range", "cpu-64bit-narrowed"},
        id="openvino-torch-export",
        marks=pytest.mark.extra_targets,  # off the default run
    ),
    pytest.param(
        "onnxruntime",
        "onnxruntime/torch-onnx/*",
        TORCH_OPS,
        "edges",  # each item exports a model (about 0.8 s): the 64-bit edges, where its finding is
        {"torch-onnx-directional-split-index-below-symint-range"},
        id="onnxruntime-torch-onnx",
        marks=pytest.mark.extra_targets,  # off the default run
    ),
]


def _run(tmp_path: Path, adapter: str, target: str, ops: Sequence[str], keyword: str | None) -> list[Result]:
    return raw_run(tmp_path, adapter, ops=ops, targets=(target,), keyword=keyword, jobs=1)


@pytest.mark.slow
@pytest.mark.parametrize(("adapter", "target", "ops", "keyword", "found"), SELECTIONS)
def test_selection_is_green_with_every_failure_claimed(
    tmp_path: Path, adapter: str, target: str, ops: Sequence[str], keyword: str | None, found: set[str]
) -> None:
    pytest.importorskip(f"conformance_{adapter}")
    if adapter != "numpy":
        pytest.importorskip("torch")
    results = _run(tmp_path, adapter, target, ops, keyword)
    assert {result.op for result in results} == set(ops), "every op of the family ran"
    assert sum(result.status == "pass" for result in results) >= 10
    assert not [r.key for r in results if r.defect is not None], "no adapter defect or harness failure"
    issues = known_issues.shipped(adapter, registry.load(adapter).import_path)
    assert_every_failure_claimed(results, issues)
    claimed = {
        judged.known_issue["id"]
        for judged in (known_issues.apply(result, issues) for result in results)
        if judged.status == "xfail" and judged.known_issue is not None
    }
    assert found <= claimed, f"findings on these ops no longer claimed: {sorted(found - claimed)}"


# --- routes claim exactly what they can run ------------------------------------------------------------


def test_the_emulation_is_routed_only_the_ops_it_has_rules_for() -> None:
    """The numpy adapter's emulation is an independent reading of some texts, not of the new ops'."""
    pytest.importorskip("conformance_numpy")
    from conformance_numpy import adapter, emulation

    (emulated,) = [route for route in adapter.ROUTES if route.name == "emulated"]
    matched = catalogue.match(emulated.ops)
    assert "torch.split" in matched and "onnx.Split-18" in matched and "openvino.Split-1" in matched
    for op in (*TORCH_OPS, "onnx.SplitToSequence-11", "numpy.split", "jax.lax.split"):
        if op in catalogue.OPS:
            assert op not in matched
    with pytest.raises(ValueError, match=r"no rules for torch\.hsplit"):
        emulation.emulate(
            np.zeros((2, 4)),
            op="torch.hsplit",
            axis=None,
            form=Form("parts", 2),
            graph=GraphSpec(),
            dtype="float32",
        )


def test_the_numpy_route_runs_every_numpy_op() -> None:
    pytest.importorskip("conformance_numpy")
    from conformance_numpy import adapter

    (route,) = [route for route in adapter.ROUTES if route.name == "numpy"]
    assert set(catalogue.match(route.ops)) >= {"numpy.split", "numpy.array_split", *NUMPY_OPS}


def test_the_acme_route_claims_only_the_ops_it_has_kernels_for() -> None:
    acme = pytest.importorskip("acme_conformance.adapter")
    route = acme.ROUTE
    assert catalogue.match(route.ops) == [op for op in catalogue.OPS if op in acme.KERNELS]
    assert len(acme.KERNELS) == 5


def test_numpy_refuses_to_hand_an_axis_to_a_function_without_one() -> None:
    """The catalogue never gives these ops an axis; a task that does is the suite's defect."""
    pytest.importorskip("conformance_numpy")
    case = load_paths([CASES / "hsplit.yaml"]).by_id("hsplit-rank3-parts-2")
    task = make_task(case, "numpy.vsplit")
    assert task.request.axis is None
    target = Target("numpy", "numpy", "cpu")
    build = registry.load("numpy").hooks.route(target).build
    assert build is not None
    assert build(task, target).kwargs == {}
    with_axis = dataclasses.replace(task, request=dataclasses.replace(task.request, axis=0))
    with pytest.raises(AdapterError, match="takes no axis"):
        build(with_axis, target)


# --- reproducers, run alone ---------------------------------------------------------------------------

REPRODUCED = [
    ("numpy", "numpy", "cpu", "hsplit-doc-1d-into-2", "numpy.hsplit"),
    ("numpy", "numpy", "cpu", "hsplit-indices-unsorted", "numpy.vsplit"),
    ("torch", "eager", "cpu", "hsplit-doc-dsplit-2x2x4-at-3-6", "torch.dsplit"),
    ("torch", "export", "cpu", "hsplit-rank3-indices-1-3", "torch.hsplit"),
    off_default_run("torch", "compile", "cpu", "hsplit-doc-vsplit-4x4-into-2", "torch.vsplit"),
    off_default_run("openvino", "torch-export", "CPU", "hsplit-doc-4x4-at-3-6", "torch.hsplit"),
    off_default_run("onnxruntime", "torch-onnx", "cpu", "hsplit-rank3-parts-2", "torch.dsplit"),
]


def _reproduce(
    tmp_path: Path, adapter: str, route: str, device: str, case_id: str, op: str
) -> subprocess.CompletedProcess[str]:
    pytest.importorskip(f"conformance_{adapter}")
    case = load_paths([CASES / "hsplit.yaml"]).by_id(case_id)
    target = Target(adapter, route, device)
    body = snippet(target, make_task(case, op, fill=rerun.snippet_data))
    assert body, f"{adapter}/{route} wrote no reproducer"
    assert ", dim=" not in body and ", axis=" not in body, "the call states no axis"
    script = tmp_path / "reproduce.py"
    script.write_text(rerun.header(f"{case_id}::{op}", target, "test") + body, encoding="utf-8")
    return subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.mark.slow
@pytest.mark.parametrize(("adapter", "route", "device", "case_id", "op"), REPRODUCED)
def test_the_reproducer_prints_the_reference_shapes(
    tmp_path: Path, adapter: str, route: str, device: str, case_id: str, op: str
) -> None:
    done = _reproduce(tmp_path, adapter, route, device, case_id, op)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith(("[(", "[]"))]
    printed = [[tuple(shape) for shape in ast.literal_eval(line)] for line in lines]
    case = load_paths([CASES / "hsplit.yaml"]).by_id(case_id)
    pieces = answer(op, SplitRequest.of_run(case, case.all_runs[0])).outcome
    assert isinstance(pieces, Pieces)
    assert printed == [list(pieces.shapes(case.data.shape))]


@pytest.mark.slow
def test_the_openvino_pytorch_reproducer_shows_the_missing_translator(tmp_path: Path) -> None:
    """On the route where conversion fails, the snippet fails the same way, naming the aten op."""
    pytest.importorskip("torch")
    done = _reproduce(tmp_path, "openvino", "pytorch", "CPU", "hsplit-doc-4x4-into-2", "torch.hsplit")
    assert done.returncode != 0
    assert "aten::hsplit" in done.stderr
