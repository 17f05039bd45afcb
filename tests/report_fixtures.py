"""Results documents for the report and diff tests, made from the real corpus and reference.

Expected outputs come from the reference (``conformance.engine.item.pending_result``) and wrong
answers from a real execution of the Liar test adapter, so the report is tested on results
shaped exactly like a run's.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

from fake_adapters import Answering, Liar

from conformance.corpus.loader import Suite, load_paths
from conformance.engine.item import pending_result, run_item
from conformance.plugin import Target
from conformance.results.result import JSON, Timing
from conformance.statuses import Status

ROOT = Path(__file__).resolve().parent.parent

HOSTILE = [
    "<script>window.pwned=1</script>",
    '"><img src=x onerror=window.pwned=1>',
    "</script><script>window.pwned=1</script>",
    "line\u2028separator\u2029paragraph",
    "javascript:window.pwned=1",
    "<!--<script>window.pwned=1//",
    "{{constructor.constructor('window.pwned=1')()}}",
]
HOSTILE_ID = "h<script>window.pwned=1</script>"


@cache
def corpus() -> Suite:
    return load_paths([ROOT / "cases"])


def target_of(target: str) -> Target:
    adapter, route, device = target.split("/")
    return Target(adapter, route, device)


def result(
    case_id: str,
    op: str,
    target: str = "numpy/emulated/cpu",
    status: Status = "pass",
    steady: tuple[float, ...] = (0.010, 0.011, 0.012),
    **changes: Any,
) -> JSON:
    """A result of the real case as the reference judges it, answered correctly unless changed."""
    base = pending_result(corpus().by_id(case_id), op, target_of(target))
    expected = base.expected
    if "outputs" in expected:
        actual: JSON = {"outputs": expected["outputs"]}
        message = f"{len(expected['outputs'])} outputs match bit for bit"
    elif "rejected" in expected:
        actual = {"raised": {"phase": "run", "type": "ValueError", "message": "rejected"}}
        message = "rejected as the spec requires"
    else:
        reading = expected["readings"][0]
        actual = {"outputs": reading.get("outputs", [])}
        message = f"matches the reading '{reading['label']}'"
        changes.setdefault("reading", reading["label"])
    if status == "unsupported":
        actual, message = {}, "the adapter cannot express it"
    body = replace(
        base, status=status, message=message, actual=actual, timing=Timing(0.5, 0.25, 0.125, steady)
    ).to_json()
    body.update(changes)
    return body


def liar_result(case_id: str = "indices-rank1", op: str = "numpy.array_split") -> JSON:
    """A real wrong answer (two outputs swapped), judged by the real comparison: a value mismatch."""
    adapter = Liar({"on": "*"})
    found = run_item(adapter, Target("liar", "slices", "cpu"), corpus().by_id(case_id), op)
    body = found.to_json()
    body["reproducer"] = {
        "command": f"conformance run --cases cases/indices.yaml --adapter fake_adapters:Liar "
        f"--target liar/slices/cpu --item {case_id}::{op}",
        "python": "# Reproduces it.\nimport base64\nimport numpy as np\n"
        "data = np.frombuffer(base64.b64decode('''\nAAAAAA==\n'''), dtype=np.float32)\n"
        "print(np.array_split(data, [3, 6]))\n",
    }
    return body


def runs_result() -> JSON:
    """A case with runs, on a backend that keeps its first run's lengths: run 2 decides."""
    found = run_item(
        Answering({"stale": "1"}),
        Target("answering", "graph", "cpu"),
        corpus().by_id("runs-lengths-change"),
        "openvino.VariadicSplit-1",
    )
    return found.to_json()


def document(results: list[JSON], digest: str | None = None, memcpy: list[JSON] | None = None) -> JSON:
    """A results document around ``results``, with an adapters entry for each target."""
    targets = sorted({(r["adapter"], r["route"], r["device"]) for r in results})
    return {
        "schema": "conformance.results/1",
        "suite": {
            "version": "0.1.0",
            "digest": digest or corpus().digest,
            "cases": len(corpus().cases),
            "files": [f"cases/{Path(name).name}" for name in corpus().files],
        },
        "run": {
            "start": "2026-01-01T00:00:00+00:00",
            "end": "2026-01-01T00:01:00+00:00",
            "host": {"hostname": "test-host", "cpus": 2},
            "python": "3.11",
            "command": ["conformance", "run"],
            "jobs": 1,
            "repeat": 3,
            "timeout_s": 120.0,
            "wall_s": 60.0,
            "memcpy": memcpy if memcpy is not None else [{"bytes": 1 << 20, "gbps": 50.0}],
        },
        "adapters": [
            {
                "name": a,
                "route": r,
                "device": d,
                "backend": a,
                "version": "1.2.3",
                "options": {"device": d},
                "description": f"route {r}",
            }
            for a, r, d in targets
        ],
        "results": results,
    }


def mixed_document() -> JSON:
    """Two targets, every interesting status, the "6 into 4" request under four ops, a real mismatch."""
    six = "doc-readme-6-into-4"
    results = [
        result(six, "torch.chunk", "torch/eager/cpu"),
        result(six, "torch.tensor_split", "torch/eager/cpu"),
        result(six, "numpy.array_split", "numpy/emulated/cpu"),
        result(six, "numpy.split", "numpy/emulated/cpu"),
        result(six, "onnx.Split-18", "numpy/emulated/cpu"),
        result(six, "torch.chunk", "numpy/emulated/cpu"),
        result(
            six,
            "torch.tensor_split",
            "numpy/emulated/cpu",
            status="fail",
            message="wrong pieces",
            actual={"outputs": [{"shape": [3], "dtype": "float32"}, {"shape": [3], "dtype": "float32"}]},
        ),
        result("indices-rank1", "numpy.array_split", "torch/eager/cpu", status="unsupported"),
        result(
            "indices-rank1",
            "torch.tensor_split",
            "torch/eager/cpu",
            status="xfail",
            known_issue={"id": "k1", "reason": "known", "link": "https://example.org/1", "source": "k.yaml"},
        ),
        result("indices-rank1", "numpy.split", "numpy/emulated/cpu", status="error", message="raised"),
        liar_result(),
    ]
    return document(results)


def hostile_document() -> JSON:
    """A document whose every free-text field is an attack, and hostile titles and notes for it."""
    payload = " | ".join(HOSTILE)
    base = liar_result()
    hostile = copy.deepcopy(base)
    hostile["case"] = HOSTILE_ID
    hostile["message"] = payload
    hostile["params"]["source"] = payload
    hostile["params"]["title"] = payload
    hostile["params"]["note"] = payload
    hostile["params"]["location"] = payload
    hostile["params"]["tags"] = ["<b>tag</b>", "edge"]
    hostile["mismatch"]["message"] = payload
    hostile["mismatch"]["first"][0]["expected"] = payload
    hostile["reproducer"] = {"command": payload, "python": payload + "'''" + payload}
    hostile["known_issue"] = {
        "id": payload,
        "reason": payload,
        "link": "javascript:window.pwned=1",
        "source": payload,
    }
    hostile["actual"] = {"raised": {"phase": payload, "type": payload, "message": payload}}
    hostile["reading"] = payload
    hostile["adapter"] = "liar<img src=x onerror=window.pwned=1>"
    document_ = document([base, hostile])
    document_["run"]["host"]["hostname"] = payload
    document_["run"]["command"] = [payload]
    document_["adapters"][0]["options"] = {"x": payload}
    document_["adapters"][0]["description"] = payload
    document_["results"][0]["params"]["title"] = payload
    return document_


#: Targets as many and as long as a run with labels and OpenVINO's virtual devices gives.
WIDE_TARGETS = [
    *(f"openvino@2025.4.1-18932/{route}/{device}" for route in ("native", "onnx", "pytorch") for device in
      ("CPU", "HETERO:CPU", "MULTI:CPU", "AUTO")),
    "onnxruntime@1.23.2/default/cpu", "onnxruntime@1.23.2/torch-onnx/cpu", "onnx/shape-inference/cpu",
    "onnx/reference/cpu", "torch/eager/cpu", "torch/export/cpu", "torch/compile/cpu", "numpy/emulated/cpu",
]  # fmt: skip
#: A case id with nowhere to break a line, as a generated corpus can have.
LONG_ID = "explore_onnx_split_18_lengths_runtime_axis_negative_dim_" + "x" * 90
#: A backend message as long and as unbroken as OpenVINO's.
LONG_MESSAGE = (
    "Exception from src/inference/src/cpp/core.cpp:112:\nException from "
    "/home/jenkins/agent/workspace/private-ci/ie/build-linux-ubuntu22/b/repos/openvino/src/plugins/intel_cpu/"
    "src/nodes/split.cpp:293:[CPU] Split node with name 'Split_1234567890_with_a_very_long_generated_name' "
    "has incorrect input dimensions: " + "[2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]" * 4
)


def wide_document(red: bool = True) -> JSON:
    """A report as wide as real ones get: 20 targets with long ids, a case id with nowhere to break,
    long backend messages and known-issue links, and, when ``red``, every kind of finding: an
    unexplained failure, adapter defects and a harness failure (``defect``), beside known issues."""
    six = "doc-readme-6-into-4"
    results: list[JSON] = []
    for number, target in enumerate(WIDE_TARGETS):
        results += [result(six, op, target) for op in ("torch.chunk", "numpy.array_split", "onnx.Split-18")]
        issue = {
            "id": f"long-known-issue-{number % 7}-on-every-device",
            "reason": "the backend accepts what the spec rejects; " + LONG_MESSAGE[:120],
            "link": "https://github.com/openvinotoolkit/openvino/issues/" + "9" * 60,
            "source": "adapters/openvino/conformance_openvino/known_issues.yaml",
        }
        results.append(
            result("indices-rank1", "torch.tensor_split", target, status="xfail", known_issue=issue,
                   message=f"known issue {issue['id']}: {LONG_MESSAGE}")
        )  # fmt: skip
        results.append(result("indices-rank1", "numpy.split", target, status="unsupported"))
    long_case = result("indices-rank1", "numpy.array_split", WIDE_TARGETS[0])
    long_case["case"] = LONG_ID
    long_case["params"]["title"] = "a title " + "without_any_space_" * 12
    results.append(long_case)
    if red:
        results.append(
            result(six, "torch.tensor_split", WIDE_TARGETS[1], status="fail", message=LONG_MESSAGE)
        )
        for target in WIDE_TARGETS[2:4]:
            results.append(
                result(six, "torch.tensor_split", target, status="error", defect="adapter",
                       message="adapter defect: KeyError: 'axis' in conformance_openvino/graphs.py")
            )  # fmt: skip
        results.append(
            result(six, "torch.tensor_split", WIDE_TARGETS[5], status="error", defect="harness",
                   message="the harness failed on the item: RuntimeError: reference crashed")
        )  # fmt: skip
    return document(results)
