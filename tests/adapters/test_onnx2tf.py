"""Route ``onnx2tf`` of the LiteRT adapter: the suite's ONNX model converted by onnx2tf, run by the
LiteRT interpreter.

Proves that onnx2tf really converts (the flatbuffer holds the operators onnx2tf chose, not a
builtin SPLIT the suite could have written itself, and the results record its version and call),
that installing it left the suite's pins alone, how outputs are matched (by the ONNX names where
onnx2tf keeps them, else in the signature's order), that its layout change is judged rather than
undone, that a missing onnx2tf is unsupported with the install named, that the reproducer runs with
onnx2tf and LiteRT alone, and, on ONNX's own node tests (``-k onnx-node``: 64 items of every Split
version and SplitToSequence, both devices, about a second per conversion), that every failure is
claimed by a known issue and none is stale; a Slice doc example passes and two Slice departures stay
claimed. The whole route, 3,459 Split and 436 Slice items per device, takes about two hours per
device at -j 1: it runs in ``nox -s extra_targets``, not here.
"""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from claims import assert_every_failure_claimed, raw_run

pytest.importorskip("ai_edge_litert")
pytest.importorskip("tensorflow")
pytest.importorskip("conformance_litert")

from conformance_litert import LiteRTAdapter, onnx2tf_route
from route_calls import snippet

from conformance.corpus import catalogue
from conformance.corpus.loader import Suite, load_paths
from conformance.engine.item import make_task, run_item
from conformance.loading import hooks
from conformance.models import tflite_models
from conformance.plugin import Target
from conformance.verdict import known_issues

#: off the default run: `nox -s tests` leaves this module out, `-m extra_targets` selects it
pytestmark = pytest.mark.extra_targets

ROOT = Path(__file__).resolve().parents[2]
needs_onnx2tf = pytest.mark.skipif(bool(onnx2tf_route.missing()), reason="onnx2tf is not installed")
XNNPACK = Target("litert", "onnx2tf", "xnnpack")


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_paths([ROOT / "cases"])


@pytest.fixture(scope="module")
def adapter() -> LiteRTAdapter:
    return LiteRTAdapter({})


def _judge(adapter: LiteRTAdapter, suite: Suite, item: str, device: str = "xnnpack") -> tuple[str, str]:
    """The item's status after the shipped known issues, and the claiming entry's id or the message."""
    case_id, op = item.split("::")
    result = run_item(adapter, Target("litert", "onnx2tf", device), suite.by_id(case_id), op, repeat=1)
    judged = known_issues.apply(result, known_issues.shipped("litert", "conformance_litert:LiteRTAdapter"))
    return judged.status, (judged.known_issue or {}).get("id") or judged.message


def test_the_route_records_onnx2tf(adapter: LiteRTAdapter) -> None:
    info = adapter.info()
    route = next(route for route in info.routes if route.name == "onnx2tf")
    assert not route.default
    # every ONNX Split and Slice op, nothing else
    ops = catalogue.match(route.ops)
    assert {"onnx.Slice-1", "onnx.Slice-10", "onnx.Slice-11", "onnx.Slice-13", "onnx.Split-13"} <= set(ops)
    assert all(op.startswith(("onnx.Split", "onnx.Slice-")) for op in ops)
    installed = not onnx2tf_route.missing()
    assert info.options["onnx2tf_version"] == (metadata.version("onnx2tf") if installed else "not installed")
    assert "non_verbose=True, not_use_onnxsim=True" in info.options["onnx2tf_call"]
    assert info.options["onnx2tf_imports"].startswith("tf-keras ")


def _pins() -> dict[str, str]:
    pinned = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        name, equals, version = line.partition("==")
        if equals and not line.startswith("#"):
            pinned[name.strip().lower().replace("_", "-")] = version.strip()
    return pinned


@needs_onnx2tf
@pytest.mark.parametrize("distribution", ["tensorflow-cpu", "onnx", "onnxruntime", "numpy", "ai-edge-litert"])
def test_installing_onnx2tf_left_the_pinned_packages_alone(distribution: str) -> None:
    """onnx2tf 1.29.24 requires numpy 1.26.4, onnx 1.19.1, onnxruntime 1.23.0, tensorflow 2.19.0 and
    ai-edge-litert 2.1.0: installed without its dependencies, none of them replaced the suite's."""
    assert metadata.version(distribution) == _pins()[distribution]
    # nor pulled the GPU wheel, which tf-keras requires by name
    assert "tensorflow" not in {(dist.metadata["Name"] or "").lower() for dist in metadata.distributions()}


@pytest.mark.slow
@needs_onnx2tf
def test_onnx2tf_really_converts(adapter: LiteRTAdapter, suite: Suite) -> None:
    """Unequal constant lengths: onnx2tf writes one strided slice per piece to avoid FlexSplitV (the
    converter makes each a SLICE), a model TensorFlow's converter never makes of a tf.split (it
    emits SPLIT_V)."""
    task = make_task(suite.by_id("onnx-node-split-variable-parts-1d"), "onnx.Split-13")
    build = hooks.of(adapter).route(XNNPACK).build
    assert build is not None
    model = build(task, XNNPACK)
    assert model[4:8] == b"TFL3"  # the flatbuffer's file identifier
    assert tflite_models.operators(model) == ("SLICE", "SLICE")


@pytest.mark.slow
@needs_onnx2tf
@pytest.mark.parametrize("device", ["xnnpack", "builtin"])
@pytest.mark.parametrize(
    "item",
    [
        # unequal lengths: one layer per piece, the ONNX output names kept and matched
        "onnx-node-split-variable-parts-2d::onnx.Split-13",
        # a count: one tf.split layer, its outputs renamed output_2, output_2_1, ...: signature order
        "onnx-node-split-equal-parts-2d::onnx.Split-18",
        # ten pieces of one tf.split: output_9, output_9_1 ... output_9_9, in the signature's order
        "count-10-into-10::onnx.Split-13",
    ],
)
def test_outputs_are_matched_by_name_or_in_the_signature_order(
    adapter: LiteRTAdapter, suite: Suite, item: str, device: str
) -> None:
    assert _judge(adapter, suite, item, device)[0] == "pass"


@pytest.mark.slow
@needs_onnx2tf
def test_string_pieces_come_back_as_the_suite_holds_strings(adapter: LiteRTAdapter, suite: Suite) -> None:
    """LiteRT returns strings as UTF-8 bytes; the route hands them on as ``str`` (non-ASCII and
    trailing spaces included), so a string split onnx2tf converts to slices passes."""
    assert _judge(adapter, suite, "dtype-string-lengths::onnx.Split-13")[0] == "pass"


@pytest.mark.slow
@needs_onnx2tf
def test_eleven_pieces_of_one_layer_come_back_out_of_order(adapter: LiteRTAdapter, suite: Suite) -> None:
    """Sixteen pieces of one tf.split (Split-11's attribute sizes) are listed output_15, output_15_1,
    output_15_10, ...: piece 10 arrives third, a finding claimed by its known issue."""
    assert _judge(adapter, suite, "lengths-sixteen-ones::onnx.Split-11") == (
        "xfail",
        "onnx2tf-split-outputs-renamed-out-of-order",
    )


@pytest.mark.slow
@needs_onnx2tf
@pytest.mark.parametrize("op", ["onnx.Slice-1", "onnx.Slice-13"])
def test_a_slice_doc_example_passes(adapter: LiteRTAdapter, suite: Suite, op: str) -> None:
    """The ONNX page's example 1 (Slice-1's, without steps): axes listed, bounds in range."""
    assert _judge(adapter, suite, f"slice-doc-onnx1-example-1::{op}")[0] == "pass"


@pytest.mark.slow
@needs_onnx2tf
@pytest.mark.parametrize(
    ("item", "issue"),
    [
        # the page's example 2 without axes: end -1 becomes end_mask, both rows come back
        ("slice-doc-onnx-example-2::onnx.Slice-13", "onnx2tf-slice-negative-bounds-without-axes"),
        # steps given, axes left out by an empty name: onnx2tf looks the name '' up
        ("slice-edge-step-minus-3::onnx.Slice-10", "onnx2tf-slice-empty-axes-name-keyerror"),
    ],
)
def test_a_known_slice_departure_stays_an_expected_failure(
    adapter: LiteRTAdapter, suite: Suite, item: str, issue: str
) -> None:
    assert _judge(adapter, suite, item) == ("xfail", issue)


@needs_onnx2tf
def test_the_layout_change_is_judged_not_undone(adapter: LiteRTAdapter, suite: Suite) -> None:
    """A rank-4 input becomes NHWC: the data fed as ONNX declares it is refused by the interpreter,
    a finding claimed by its known issue, never transposed back by the route."""
    assert _judge(adapter, suite, "doc-split1-num-splits-3::onnx.Split-13") == ("xfail", "onnx2tf-nhwc-rank4")


def test_a_missing_onnx2tf_is_unsupported_with_the_install_named(
    adapter: LiteRTAdapter, suite: Suite, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(
        sys.modules, "onnx2tf", None
    )  # Python's own marker of a module that cannot be imported
    result = run_item(adapter, XNNPACK, suite.by_id("onnx-node-split-equal-parts-1d"), "onnx.Split-13")
    assert result.status == "unsupported"
    assert "pip install -c constraints.txt --no-deps onnx2tf==1.29.24" in result.message


@pytest.mark.slow
@needs_onnx2tf
@pytest.mark.parametrize(
    ("item", "printed"),
    [
        ("onnx-node-split-variable-parts-2d::onnx.Split-13", "[[2, 2], [2, 4]]"),
        ("onnx-node-split-equal-parts-1d::onnx.Split-18", "[[2], [2], [2]]"),
    ],
)
def test_the_reproducer_runs_with_onnx2tf_and_litert_alone(
    adapter: LiteRTAdapter, suite: Suite, tmp_path: Path, item: str, printed: str
) -> None:
    case_id, op = item.split("::")
    body = snippet(XNNPACK, make_task(suite.by_id(case_id), op))
    assert body is not None and "onnx2tf.convert(" in body and "import tensorflow" not in body
    script = tmp_path / "reproducer.py"
    script.write_text("import base64\n\nimport numpy as np\n" + body)
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == printed


@pytest.mark.slow
@needs_onnx2tf
def test_every_non_pass_of_the_onnx_node_tests_is_a_known_issue_and_no_entry_is_stale(tmp_path: Path) -> None:
    """ONNX's node tests through onnx2tf, on the slice where its failures are: split sizes given
    at run time, Split-18's uneven pieces, SplitToSequence, and the 1-D cases (passes among them).
    All 34 failures of the 128 items are in these 74 (the other 54 pass: 0.3 s each, a
    conversion), 12 s of worker time instead of 31; `nox -s extra_targets` runs the whole corpus
    on the xnnpack device."""
    issues = known_issues.shipped("litert", "conformance_litert:LiteRTAdapter")
    keyword = "onnx-node and (runtime or uneven or 1d or SplitToSequence)"
    results = raw_run(tmp_path, "litert", ops=("onnx.*",), targets=("litert/onnx2tf/*",), keyword=keyword)
    assert len(results) == 74 and {result.route for result in results} == {"onnx2tf"}
    assert sum(result.status != "pass" for result in results) == 34  # the slice holds every failure
    assert_every_failure_claimed(results, issues)
