"""The ExecuTorch adapter: the torch split and slice modules exported, lowered and run by ExecuTorch's
runtime.

One raw run through real workers (the backends never run in this process) of a few items: a
documented example passes bit for bit, so do torch.narrow's and basic slicing's, narrow with a
tensor start stays refused by torch.export (export-narrow-tensor-start), a program exported with
dynamic dims returns the wrong pieces at a later run's shape (the finding
dynamic-program-drops-piece-guards), XNNPACK alone fails to lower a slice starting below minus the
dim (xnnpack-slice-start-below-minus-dim), export's refusal of lengths on a dynamic dim is judged
(export-lengths-pin-dynamic-dim), what cannot be handed over is unsupported with its reason, and the
shipped known issues claim every failure of the run. The reproducers of a split and of a slice are
run in a subprocess with torch and ExecuTorch alone."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import corpus_items
import pytest
from claims import assert_claimed_by, assert_every_failure_claimed, raw_run

if importlib.util.find_spec("executorch") is None:  # found, not imported: backends stay out of this process
    pytest.skip("executorch is not installed", allow_module_level=True)
pytest.importorskip("conformance_executorch")

from conformance_executorch import ExecuTorchAdapter
from conformance_executorch.adapter import ROUTE

from conformance.corpus import catalogue
from conformance.errors import UsageError
from conformance.plugin import Target
from conformance.results.result import Result
from conformance.verdict import known_issues

#: off the default run: `nox -s tests` leaves this module out, `-m extra_targets` selects it
pytestmark = pytest.mark.extra_targets

ISSUES = known_issues.shipped("executorch", "conformance_executorch:ExecuTorchAdapter")
#: chunk(x, 4) exported at 8 rows with dynamic dims, then run at 6 rows (torch: 3 pieces) and 12
FEWER_PIECES = "runs-dynamic-parts-4-fewer-pieces::torch.chunk"
#: tensor_split(x, [-2^32, 3]) of 6 rows: XNNPACK claims the slice and cannot serialize its start
START_BELOW_DIM = "edges-indices-minus-2-32::torch.tensor_split"
#: the documented examples of torch.narrow and of basic slicing (x[:, 2:, 1:7:2] of 2x4x8)
SLICE_EXAMPLES = (
    "slice-doc-narrow-dim1::torch.narrow",
    "slice-doc-torch-view-slicing::torch.Tensor.__getitem__",
)
#: narrow(x, -1, torch.tensor(-1), 1), narrow's own example: torch.export cannot trace the tensor start
TENSOR_START = "slice-doc-narrow-tensor-start::torch.narrow"
ITEMS = (
    *SLICE_EXAMPLES,
    TENSOR_START,
    "doc-readme-chunk-rows::torch.chunk",
    FEWER_PIECES,
    START_BELOW_DIM,
    "runs-dynamic-lengths-fixed::torch.split",
    "large-indices-past-2-31::torch.tensor_split",
)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Result]:
    keyword = " or ".join(item.split("::")[0] for item in ITEMS)
    done = raw_run(
        tmp_path_factory.mktemp("executorch"), "executorch", targets=["executorch/edge/*"], keyword=keyword
    )
    return {f"{r.case}::{r.op}::{r.device}": r for r in done if f"{r.case}::{r.op}" in ITEMS}


@pytest.mark.slow
@pytest.mark.parametrize("device", ["portable", "xnnpack"])
def test_a_documented_example_passes_bit_for_bit(results: dict[str, Result], device: str) -> None:
    result = results[f"doc-readme-chunk-rows::torch.chunk::{device}"]
    assert result.status == "pass", result.message


@pytest.mark.slow
@pytest.mark.parametrize("device", ["portable", "xnnpack"])
@pytest.mark.parametrize("item", SLICE_EXAMPLES)
def test_the_slice_ops_documented_examples_pass_bit_for_bit(
    results: dict[str, Result], item: str, device: str
) -> None:
    result = results[f"{item}::{device}"]
    assert result.status == "pass", result.message


@pytest.mark.slow
@pytest.mark.parametrize("device", ["portable", "xnnpack"])
def test_narrow_with_a_tensor_start_stays_refused_by_export_and_claimed(
    results: dict[str, Result], device: str
) -> None:
    result = results[f"{TENSOR_START}::{device}"]
    assert (result.status, result.defect) == ("error", None), result.message
    assert result.actual["raised"]["phase"] == "build"
    assert_claimed_by(result, ISSUES, "export-narrow-tensor-start")


@pytest.mark.slow
@pytest.mark.parametrize("device", ["portable", "xnnpack"])
def test_a_dynamic_program_returns_the_example_s_piece_count(results: dict[str, Result], device: str) -> None:
    result = results[f"{FEWER_PIECES}::{device}"]
    assert (result.status, result.defect) == ("fail", None), result.message
    assert "run 2 (shape [6, 2]): expected 3 outputs, got 4" in result.message
    assert_claimed_by(result, ISSUES, "dynamic-program-drops-piece-guards")


@pytest.mark.slow
def test_xnnpack_alone_fails_to_lower_a_slice_starting_below_minus_the_dim(
    results: dict[str, Result],
) -> None:
    assert results[f"{START_BELOW_DIM}::portable"].status == "pass"
    result = results[f"{START_BELOW_DIM}::xnnpack"]
    assert (result.status, result.defect) == ("error", None), result.message
    assert "CalledProcessError" in result.message
    assert_claimed_by(result, ISSUES, "xnnpack-slice-start-below-minus-dim")


@pytest.mark.slow
def test_what_cannot_be_handed_over_is_unsupported_with_the_reason(results: dict[str, Result]) -> None:
    result = results["large-indices-past-2-31::torch.tensor_split::portable"]
    assert result.status == "unsupported" and "schema/program.fbs" in result.message, result.message


@pytest.mark.slow
@pytest.mark.parametrize("device", ["portable", "xnnpack"])
def test_valid_lengths_on_a_dynamic_dim_are_refused_by_export_and_claimed(
    results: dict[str, Result], device: str
) -> None:
    """The dim is exported Dim.DYNAMIC as the case declares it: torch.export's constraint violation
    is its own answer, an error its known issue claims, not an adapter's up-front refusal."""
    result = results[f"runs-dynamic-lengths-fixed::torch.split::{device}"]
    assert (result.status, result.defect) == ("error", None), result.message
    raised = result.actual["raised"]
    assert (raised["type"], raised["origin"], raised["phase"]) == ("UserError", "backend", "build")
    assert "Constraints violated" in raised["message"]
    assert_claimed_by(result, ISSUES, "export-lengths-pin-dynamic-dim")


@pytest.mark.slow
def test_the_known_issues_claim_every_failure_of_the_run(results: dict[str, Result]) -> None:
    assert len(results) == 2 * len(ITEMS)
    assert_every_failure_claimed(list(results.values()), ISSUES)


def _reproduce(item: str) -> subprocess.CompletedProcess[str]:
    """The portable route's reproducer of ``item``, run in a fresh interpreter that imports nothing
    of the suite."""
    assert ROUTE.reproducer is not None
    snippet = ROUTE.reproducer(corpus_items.task_of(item), Target("executorch", "edge", "portable"))
    assert snippet is not None and "conformance" not in snippet
    return subprocess.run(
        [sys.executable, "-c", f"import base64\nimport numpy as np\n{snippet}"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=Path(__file__).parent,
    )


def _printed(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stdout.splitlines() if line.startswith("[")]


@pytest.mark.slow
def test_the_reproducer_runs_with_torch_and_executorch_alone() -> None:
    done = _reproduce(FEWER_PIECES)
    # the second run has 6 rows, which torch.chunk cuts into 3 pieces; the third is past the plan
    assert _printed(done)[:2] == ["[(2, 2), (2, 2), (2, 2), (2, 2)]", "[(2, 2), (2, 2), (2, 2), (0, 2)]"], (
        done.stderr
    )
    assert "Attempted to resize a bounded tensor" in done.stderr


@pytest.mark.slow
def test_a_slice_reproducer_runs_with_torch_and_executorch_alone() -> None:
    done = _reproduce("slice-doc-torch-view-slicing::torch.Tensor.__getitem__")
    assert _printed(done) == ["[(2, 2, 3)]"], done.stderr


def test_info_names_executorch_its_exporter_and_the_edge_route() -> None:
    info = ExecuTorchAdapter({}).info()
    assert (info.name, info.backend, info.devices) == ("executorch", "executorch", ("portable", "xnnpack"))
    assert [(route.name, route.default) for route in info.routes] == [("edge", False)]
    # every torch op of the catalogue: the split ops and the Slice ops torch.narrow and x[a:b:c]
    assert catalogue.match(info.routes[0].ops) == [op for op in catalogue.OPS if op.startswith("torch.")]
    assert {"torch.narrow", "torch.Tensor.__getitem__"} <= set(catalogue.match(info.routes[0].ops))
    assert info.options["exporter"].startswith("torch ")
    assert ExecuTorchAdapter({"device": "xnnpack"}).info().devices == ("xnnpack",)


@pytest.mark.parametrize(
    ("options", "complaint"), [({"device": "cuda"}, "unknown device"), ({"x": "1"}, "unknown option")]
)
def test_bad_options_are_refused_at_construction(options: dict[str, str], complaint: str) -> None:
    with pytest.raises(UsageError, match=complaint):
        ExecuTorchAdapter(options)
