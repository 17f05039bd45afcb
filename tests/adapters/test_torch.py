"""The PyTorch adapter on a representative slice of the corpus, on both routes.

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
from conformance.engine.item import run_item  # noqa: E402
from conformance.errors import UsageError  # noqa: E402
from conformance.plugin import AdapterInfo, Target  # noqa: E402
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
