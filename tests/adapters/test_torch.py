"""The PyTorch adapter on a representative part of the corpus, Split and Slice ops, on its routes.

Passing items prove the adapter builds what the cases say; a deliberately corrupted adapter must
fail, proving the comparison is live; export's refusals are judged, and only what export cannot be
handed by design (a dynamic dim of size 0 or 1) comes out ``unsupported``.
"""

from __future__ import annotations

import subprocess
import sys
from functools import cache

import pytest
import route_calls
from claims import assert_claimed_by

torch = pytest.importorskip("torch")
conformance_torch = pytest.importorskip("conformance_torch")

from conformance_torch import TorchAdapter  # noqa: E402

from conformance.corpus.loader import Suite, load_paths  # noqa: E402
from conformance.engine.item import make_task, run_item  # noqa: E402
from conformance.errors import UsageError  # noqa: E402
from conformance.plugin import AdapterInfo, Target  # noqa: E402
from conformance.results.result import Result  # noqa: E402
from conformance.verdict import known_issues  # noqa: E402

ISSUES = known_issues.shipped("torch", "conformance_torch:TorchAdapter")

ITEMS = [
    # documented facts and examples
    "doc-readme-torch-split-size-last-smaller::torch.split",
    "doc-readme-torch-split-list-zero-entry::torch.split",
    "doc-readme-chunk-6-into-4-values::torch.chunk",
    "doc-readme-tensor-split-sections::torch.tensor_split",
    "doc-readme-indices-unsorted::torch.tensor_split",
    "doc-vsplit-lengths-1-2-3::torch.split",
    "doc-onnx11-negative-axis::torch.chunk",
    # -1 is no length for torch.split: a rejection, judged as a pass
    "doc-vsplit-lengths-minus1-2::torch.split",
    # dtypes, special bit patterns
    "dtype-bfloat16-lengths::torch.split",
    "special-bfloat16-parts::torch.tensor_split",
    "special-float32-indices-axis0::torch.tensor_split",
    "dtype-complex64-random-parts::torch.chunk",
    "dtype-uint64-size::torch.split",
    # dynamic data shape
    "graph-dynamic-size::torch.split",
    "graph-dynamic-parts-uneven::torch.chunk",
    # invalid requests torch must refuse
    "invalid-torch-split-sum::torch.split",
    "invalid-chunk-sections-zero::torch.chunk",
    "invalid-all-rank0-int32-indices::torch.tensor_split",
    # an ambiguous case: passes on a reading
    "ambig-torch-split-size2-empty-dim::torch.split",
]


@cache
def suite() -> Suite:
    return load_paths(["cases"])


@pytest.mark.slow
@pytest.mark.parametrize("route", ["eager", "export"])
@pytest.mark.parametrize("item", ITEMS)
def test_corpus_item_passes(route: str, item: str) -> None:
    case_id, _, op = item.partition("::")
    result = run_item(TorchAdapter({}), Target("torch", route, "cpu"), suite().by_id(case_id), op, repeat=1)
    assert result.status == "pass", result.message


#: Slice items every route answers as the reference does: narrow's page examples, a selection tuple
#: with an omitted bound and a step, and narrow on a dynamic dim run at three more shapes.
SLICE_ITEMS = [
    "slice-doc-narrow-dim0::torch.narrow",
    "slice-doc-narrow-dim1::torch.narrow",
    "slice-doc-torch-view-slicing::torch.Tensor.__getitem__",
    "slice-sizes-dynamic-runs::torch.narrow",
]
ROUTES = ["eager", "export", "compile"]


def run_on(route: str, item: str) -> Result:
    case_id, _, op = item.partition("::")
    return run_item(TorchAdapter({}), Target("torch", route, "cpu"), suite().by_id(case_id), op, repeat=0)


@pytest.mark.slow
@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("item", SLICE_ITEMS)
def test_slice_item_passes(route: str, item: str) -> None:
    result = run_on(route, item)
    assert result.status == "pass", result.message


@pytest.mark.slow
@pytest.mark.parametrize("route", ROUTES)
def test_a_negative_step_is_refused_by_torch_and_judged_by_that_reading(route: str) -> None:
    """The reference reads a negative step two ways (refused, as PyTorch's maintainers state, or
    reversed as NumPy does): torch's own refusal must be what passes, not some other error."""
    result = run_on(route, "slice-doc-numpy-omitted-negative-step::torch.Tensor.__getitem__")
    assert (result.status, result.reading) == ("pass", "negative steps refused"), result.message
    raised = result.actual["raised"]
    assert raised["origin"] == "backend" and "step must be greater than zero" in raised["message"]


@pytest.mark.slow
@pytest.mark.parametrize("route", ["eager", "compile"])
def test_a_fed_start_is_a_tensor_input_of_one_module_on_every_run(route: str) -> None:
    """Runs 2 to 5 feed new starts to the module built for run 1; the start of 5 is refused."""
    result = run_on(route, "slice-sizes-runs-start::torch.narrow")
    assert result.status == "pass", result.message
    assert len(result.runs) == 5


@pytest.mark.slow
@pytest.mark.parametrize(
    ("route", "item", "issue"),
    [
        ("eager", "slice-edge-step-int64-max::torch.Tensor.__getitem__", "slice-step-length-overflows"),
        (
            "compile",
            "slice-edge-step-int64-max::torch.Tensor.__getitem__",
            "compile-slice-step-length-overflows",
        ),
        ("export", "slice-graph-dynamic-clamped::torch.Tensor.__getitem__", "export-guards-slice-clamping"),
        ("export", "slice-doc-narrow-tensor-start::torch.narrow", "export-narrow-tensor-start"),
        ("compile", "slice-sizes-runtime-start-int32::torch.narrow", "compile-narrow-small-int-start"),
    ],
)
def test_a_known_slice_departure_stays_claimed_by_its_entry(route: str, item: str, issue: str) -> None:
    assert_claimed_by(run_on(route, item), ISSUES, issue)


def test_the_eager_slice_reproducer_feeds_each_runs_start() -> None:
    task = make_task(suite().by_id("slice-sizes-runs-start"), "torch.narrow")
    snippet = route_calls.reproducer(TorchAdapter({}), task, Target("torch", "eager", "cpu"))
    assert snippet is not None and "conformance" not in snippet
    done = subprocess.run(
        [sys.executable, "-c", f"import base64\nimport numpy as np\n{snippet}"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    # starts 0, 2 and -1 give one element each; narrow refuses the start of 5 on a dim of 5
    assert [line for line in done.stdout.splitlines() if line.startswith("[")] == ["[(1,)]"] * 3
    assert "start (5) + length (1) exceeds dimension size (5)" in done.stderr


class SwappingAdapter(TorchAdapter):
    """Returns the first two pieces in the wrong order."""

    def info(self) -> AdapterInfo:
        return route_calls.tampered(super().info(), route_calls.swap_first_two)


class BitFlippingAdapter(TorchAdapter):
    """Flips the sign bit of one element: -0.0 for 0.0 is a wrong result for a data move."""

    def info(self) -> AdapterInfo:
        return route_calls.tampered(super().info(), route_calls.flip_sign_bit)


@pytest.mark.parametrize("broken", [SwappingAdapter, BitFlippingAdapter])
def test_wrong_outputs_fail(broken: type[TorchAdapter]) -> None:
    case = suite().by_id("special-float32-lengths")
    result = run_item(broken({}), Target("torch", "eager", "cpu"), case, "torch.split", repeat=0)
    assert result.status == "fail", result.message


class LowBitFlippingAdapter(TorchAdapter):
    """Flips the lowest bit of the first byte of the output, whatever its dtype."""

    def info(self) -> AdapterInfo:
        return route_calls.tampered(super().info(), route_calls.flip_low_bit)


@pytest.mark.parametrize(
    "item", ["slice-doc-narrow-dim1::torch.narrow", "slice-doc-torch-view-slicing::torch.Tensor.__getitem__"]
)
def test_a_wrong_slice_fails(item: str) -> None:
    case_id, _, op = item.partition("::")
    result = run_item(
        LowBitFlippingAdapter({}), Target("torch", "eager", "cpu"), suite().by_id(case_id), op, repeat=0
    )
    assert result.status == "fail", result.message


def test_an_unavailable_or_unknown_device_is_refused_at_load() -> None:
    """A run where every item is unsupported would read green: the device option is refused."""
    if torch.cuda.is_available():
        pytest.skip("this torch build has CUDA")
    with pytest.raises(UsageError, match="'cuda' is not available"):
        TorchAdapter({"device": "cuda"})
    with pytest.raises(UsageError, match="does not know the device 'gpu'"):
        TorchAdapter({"device": "gpu"})


def test_export_of_valid_lengths_on_a_dynamic_dim_is_refused_by_export_and_claimed() -> None:
    """The dim is exported Dim.DYNAMIC as the case declares it: torch.export's constraint violation
    is its own answer, an error its known issue claims, not an adapter's up-front refusal."""
    case = suite().by_id("graph-dynamic-lengths")
    result = run_item(TorchAdapter({}), Target("torch", "export", "cpu"), case, "torch.split", repeat=0)
    assert (result.status, result.defect) == ("error", None), result.message
    raised = result.actual["raised"]
    assert (raised["type"], raised["origin"], raised["phase"]) == ("UserError", "backend", "build")
    assert "Constraints violated" in raised["message"]
    assert_claimed_by(result, ISSUES, "export-lengths-pin-dynamic-dim")


def test_export_of_lengths_that_miss_a_dynamic_dim_is_refused_as_the_spec_requires() -> None:
    case = suite().by_id("graph-dynamic-lengths-impossible")
    result = run_item(TorchAdapter({}), Target("torch", "export", "cpu"), case, "torch.split", repeat=0)
    assert result.status == "pass", result.message
    assert result.actual["raised"]["origin"] == "backend"


def test_the_runs_own_process_plans_a_cpu_run_without_importing_torch() -> None:
    """The run's process loads every adapter to plan; torch's import (seconds) belongs in workers."""
    probe = "import sys, conformance_torch as t; t.TorchAdapter({}).info(); print('torch' in sys.modules)"
    assert (
        subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
        == "False\n"
    )


def test_info_reports_the_installed_torch() -> None:
    info = TorchAdapter({"device": "cpu"}).info()
    assert (info.name, info.backend, info.version) == ("torch", "torch", torch.__version__)
    assert [(route.name, route.default) for route in info.routes] == [
        ("eager", True),
        ("export", False),
        ("compile", False),
    ]
    assert info.devices == ("cpu",)


def test_unknown_options_are_refused() -> None:
    with pytest.raises(UsageError, match="unknown option"):
        TorchAdapter({"devcie": "cpu"})
