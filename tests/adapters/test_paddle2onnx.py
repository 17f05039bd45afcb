"""ONNX Runtime's route paddle2onnx: the Paddle program saved by paddle.jit.save, exported by paddle2onnx
and run by an InferenceSession.

Every item runs in the suite's workers (paddle2onnx aborts the process on programs it cannot convert): a
pass proves the export and the feeds by name, an abort costs one result and is claimed by its known
issue, Paddle's own refusals reach the results as refusals, and the reproducer redoes an abort with
paddle, paddle2onnx and onnxruntime alone.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from claims import assert_every_failure_claimed, raw_run

if importlib.util.find_spec("paddle") is None:  # found, not imported: paddle after TensorFlow segfaults
    pytest.skip("paddle is not installed", allow_module_level=True)
if importlib.util.find_spec("paddle2onnx") is None:  # imports paddle: found, not imported
    pytest.skip("paddle2onnx is not installed", allow_module_level=True)
pytest.importorskip("onnxruntime")

from conformance.plugin import Target
from conformance.results.result import Result
from conformance.verdict import known_issues

#: off the default run: `nox -s tests` leaves this module out, `-m extra_targets` selects it
pytestmark = pytest.mark.extra_targets

TARGET = Target("onnxruntime", "paddle2onnx", "cpu")
ISSUES = known_issues.shipped("onnxruntime", "conformance_onnxruntime:OnnxRuntimeAdapter")
#: The paddle cases whose items the tests below look at (cases/paddle.yaml and the corpus's zero sizes).
KEYWORD = (
    "paddle-doc-split-2-3-minus1 or paddle-doc-hsplit-7x8-at-1-4 or paddle-dtype-bfloat16 or "
    "paddle-axis-tensor-int32 or paddle-sizes-runtime-axis or paddle-dtype-float32 or "
    "lengths-zero-0-0-7 or paddle-count-past-dim or dtype-complex64-parts"
)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Result]:
    """The chosen items on onnxruntime/paddle2onnx/cpu, raw statuses."""
    out = tmp_path_factory.mktemp("paddle2onnx")
    found = raw_run(out, "onnxruntime", ops=("paddle.*",), targets=(TARGET.id,), keyword=KEYWORD, jobs=2)
    return {(r.case, r.op): r for r in found}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("case", "op"),
    [
        ("paddle-doc-split-2-3-minus1", "paddle.split"),  # a -1 size resolved from the static dim
        ("paddle-doc-hsplit-7x8-at-1-4", "paddle.hsplit"),
        ("paddle-dtype-bfloat16", "paddle.split"),  # bfloat16 fed to ORT as an OrtValue
        ("paddle-axis-tensor-int32", "paddle.split"),  # a constant axis Tensor of the program
        ("paddle-dtype-float32", "paddle.dsplit"),
    ],
)
def test_known_passes(results: dict[tuple[str, str], Result], case: str, op: str) -> None:
    result = results[(case, op)]
    assert result.status == "pass", result.message


@pytest.mark.slow
def test_an_abort_costs_one_result_and_is_a_known_issue(results: dict[tuple[str, str], Result]) -> None:
    crashed = results[("lengths-zero-0-0-7", "paddle.split")]
    assert crashed.status == "crash"
    assert "more than 1 -1 in sections" in crashed.message
    claimed = known_issues.apply(crashed, ISSUES)
    assert claimed.status == "xfail" and claimed.known_issue is not None
    assert claimed.known_issue["id"] == "paddle2onnx-zero-size-read-as-minus1"
    # the worker that died took only its item: the runtime axis aborts too, each on its own
    runtime_axis = results[("paddle-sizes-runtime-axis", "paddle.split")]
    assert runtime_axis.status == "crash" and "not a constant tensor" in runtime_axis.message
    assert results[("paddle-dtype-float32", "paddle.split")].status == "pass"


@pytest.mark.slow
def test_paddles_refusal_while_tracing_is_judged(results: dict[tuple[str, str], Result]) -> None:
    """A count past the dim is refused by Paddle before paddle2onnx runs: the spec rejects it, so the
    refusal passes, attributed to the backend rather than the adapter."""
    result = results[("paddle-count-past-dim", "paddle.split")]
    assert result.defect is None and result.status == "pass", result.message
    assert "rejected as the spec requires" in result.message


@pytest.mark.slow
def test_every_failure_is_claimed_by_a_known_issue(results: dict[tuple[str, str], Result]) -> None:
    assert_every_failure_claimed(list(results.values()), ISSUES)


def test_the_route_records_the_converter_and_its_opset() -> None:
    from conformance_onnxruntime.adapter import OnnxRuntimeAdapter

    info = OnnxRuntimeAdapter({}).info()
    route = next(route for route in info.routes if route.name == "paddle2onnx")
    assert route.default is False and route.ops == ("paddle.*",)
    assert info.options["paddle2onnx_version"] == "2.1.0" and info.options["paddle2onnx_opset"] == "21"


@pytest.mark.slow
def test_complex_data_is_handed_over_and_its_refusal_judged(results: dict[tuple[str, str], Result]) -> None:
    """Not declared unsupported: the exported model reaches ORT, which refuses complex tensors while
    loading it; Paddle's page lists no complex type for tensor_split, so the refusal passes."""
    result = results[("dtype-complex64-parts", "paddle.tensor_split")]
    assert result.status == "pass", result.message
    raised = result.actual["raised"]
    assert (raised["phase"], raised["type"], raised["origin"]) == ("compile", "Fail", "backend")
    assert "tensor(complex64)" in raised["message"]


@pytest.mark.slow
def test_the_reproducer_aborts_with_paddle2onnx_alone(tmp_path: Path) -> None:
    """The zero-size finding's snippet, run standalone: paddle2onnx aborts on [0, 0, 7] as in the run."""
    from corpus_items import task_of
    from route_calls import snippet

    code = snippet(TARGET, task_of("lengths-zero-0-0-7::paddle.split"))
    assert code is not None and "paddle2onnx.export(" in code and "opset_version=21" in code
    script = tmp_path / "repro.py"
    script.write_text("import base64\nimport numpy as np\n" + code)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode != 0
    assert "more than 1 -1 in sections" in done.stdout + done.stderr


@pytest.mark.slow
def test_the_reproducer_of_a_pass_prints_its_pieces(tmp_path: Path) -> None:
    from corpus_items import task_of
    from route_calls import snippet

    code = snippet(TARGET, task_of("paddle-doc-split-2-3-minus1::paddle.split"))
    assert code is not None
    script = tmp_path / "repro.py"
    script.write_text("import base64\nimport numpy as np\n" + code)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=True
    )
    assert "[(3, 2, 5), (3, 3, 5), (3, 4, 5)]" in done.stdout
