"""Known issues by meaning: the built-in adapters' entries recognise their bugs on cases written
with new ids (not the corpus's), as they would on a vendor's or another suite's corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("openvino")
pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from conformance.run.planning import RunConfig, plan
from conformance.run.runner import execute

SCRATCH = """\
defaults: {source: scratch cases written for this test}
cases:
  - {id: scratch-int32-into-onnx-split1, title: t, ops: [onnx.Split-1], data: {shape: [4, 2], dtype: int32},
     axis: 0, lengths: [1, 3]}
  - {id: scratch-minus-one-length, title: t, ops: [onnx.Split-13], data: {shape: [5, 2], dtype: float32},
     axis: 0, lengths: [2, -1]}
  - {id: scratch-nine-into-four, title: t, ops: [onnx.Split-18],
     data: {shape: [9, 3], dtype: float32}, axis: 0, parts: 4}
  - {id: scratch-minus-one-overrun, title: t, ops: [openvino.VariadicSplit-1],
     data: {shape: [4], dtype: float32}, axis: 0, lengths: [-1, 5]}
  - {id: scratch-int64-extremes, title: t, ops: [openvino.Split-1],
     data: {shape: [4], dtype: int64, fill: special}, axis: 0, parts: 2}
  - {id: scratch-runtime-lengths-past-int32, title: t, ops: [openvino.VariadicSplit-1],
     data: {shape: [4], dtype: float32}, axis: 0, lengths: [4294967297, 3],
     graph: {inputs: {lengths: runtime}}}
  - {id: scratch-node-drops-an-output, title: t, ops: [onnx.Split-13],
     data: {shape: [4], dtype: float32}, axis: 0, lengths: [1, 3], graph: {declared_outputs: 1}}
"""

#: item -> target -> the known issue that must claim it (the issue's five causes, on new ids)
EXPECTED = {
    "scratch-int32-into-onnx-split1::onnx.Split-1": {"openvino/onnx/CPU": "onnx-type-constraints-unchecked"},
    "scratch-minus-one-length::onnx.Split-13": {"openvino/onnx/CPU": "onnx-minus1-length-as-remainder"},
    "scratch-nine-into-four::onnx.Split-18": {
        "onnxruntime/default/cpu": "split18-num-outputs-last-chunk-zero",
        "openvino/onnx/CPU": "onnx18-uneven-num-outputs",
    },
    "scratch-minus-one-overrun::openvino.VariadicSplit-1": {"openvino/native/CPU": "vsplit-minus1-overrun"},
    "scratch-int64-extremes::openvino.Split-1": {"openvino/native/CPU": "cpu-64bit-narrowed"},
    "scratch-runtime-lengths-past-int32::openvino.VariadicSplit-1": {
        "openvino/native/CPU": "cpu-64bit-runtime-inputs-narrowed"
    },
    "scratch-node-drops-an-output::onnx.Split-13": {"openvino/onnx/CPU": "onnx-declared-outputs-unchecked"},
}


@pytest.mark.slow
def test_the_known_causes_are_recognised_on_new_case_ids(tmp_path: Path) -> None:
    cases = tmp_path / "scratch.yaml"
    cases.write_text(SCRATCH, encoding="utf-8")
    config = RunConfig(
        case_paths=(str(cases),),
        adapters=("onnxruntime", "openvino"),
        targets=("onnxruntime/*", "openvino/onnx/*", "openvino/native/*"),
        repeat=0,
        out=tmp_path / "out",
        junit=False,
    )
    outcome = execute(plan(config), config)
    claimed = {
        (result.item_id, result.target_id): (result.status, (result.known_issue or {}).get("id"))
        for result in outcome.results
    }
    for item, targets in EXPECTED.items():
        for target, issue in targets.items():
            assert claimed[(item, target)] == ("xfail", issue), (item, target, claimed[(item, target)])
    # an entry whose results did not run here is not called stale: only selected-and-passing ones are
    assert outcome.stale == []
