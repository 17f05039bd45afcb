"""Reproducers reproduce: each built-in adapter's snippet, run on its own in a fresh interpreter,
prints the output shapes the backend gives, which for these passing items are the reference's."""

from __future__ import annotations

import ast
import base64
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from built_in import off_default_run
from route_calls import snippet

from conformance import reproducers as snippet_pieces
from conformance.corpus.loader import load_paths
from conformance.engine.item import bare_result, make_task
from conformance.oracle.reference import Pieces, SplitRequest, answer
from conformance.plugin import Target
from conformance.run import rerun
from conformance.run.planning import RunConfig, plan
from conformance.run.runner import with_reproducers

CASES = Path(__file__).resolve().parent.parent / "cases"

ITEMS = [
    ("numpy", "numpy", "cpu", "doc-readme-6-into-4", "numpy.array_split"),
    ("torch", "eager", "cpu", "doc-readme-chunk-6-into-4-values", "torch.chunk"),
    ("torch", "export", "cpu", "doc-readme-6-into-4", "torch.tensor_split"),
    ("onnxruntime", "default", "cpu", "doc-vsplit-lengths-1-2-3", "onnx.Split-13"),
    ("openvino", "native", "CPU", "doc-vsplit-lengths-minus1-2", "openvino.VariadicSplit-1"),
    ("openvino", "onnx", "CPU", "doc-split1-num-splits-3", "onnx.Split-18"),
    ("openvino", "pytorch", "CPU", "doc-readme-chunk-6-into-4-values", "torch.chunk"),
    # cases with runs: the snippet builds once and prints one line per run
    ("numpy", "numpy", "cpu", "runs-new-data-static", "numpy.split"),
    ("torch", "eager", "cpu", "runs-dynamic-parts-3", "torch.chunk"),
    ("torch", "export", "cpu", "runs-new-data-static", "torch.tensor_split"),
    ("onnxruntime", "default", "cpu", "runs-new-data-static", "onnx.Split-13"),
    ("openvino", "native", "CPU", "runs-lengths-change", "openvino.VariadicSplit-1"),
    ("openvino", "native", "CPU", "inputs-axis-runtime-vsplit", "openvino.VariadicSplit-1"),
    ("openvino", "onnx", "CPU", "inputs-lengths-runtime-dynamic", "onnx.Split-18"),
    ("openvino", "pytorch", "CPU", "runs-new-data-static", "torch.chunk"),
    ("onnx", "reference", "cpu", "runs-new-data-static", "onnx.Split-13"),
    ("onnx", "shape-inference", "cpu", "doc-vsplit-lengths-1-2-3", "onnx.Split-18"),
    # routes and devices off the default run
    off_default_run("torch", "compile", "cpu", "runs-new-data-static", "torch.chunk"),
    off_default_run("onnxruntime", "torch-onnx", "cpu", "runs-new-data-static", "torch.tensor_split"),
    # complex data through the exporter's real representation, in and out
    off_default_run("onnxruntime", "torch-onnx", "cpu", "dtype-complex64-parts", "torch.tensor_split"),
    off_default_run("openvino", "torch-export", "CPU", "doc-readme-indices-unsorted", "torch.tensor_split"),
    off_default_run(
        "openvino", "native", "HETERO:CPU", "doc-vsplit-lengths-minus1-2", "openvino.VariadicSplit-1"
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize(("adapter", "route", "device", "case_id", "op"), ITEMS)
def test_the_snippet_runs_alone_and_gives_the_reference_shapes(
    tmp_path: Path, adapter: str, route: str, device: str, case_id: str, op: str
) -> None:
    pytest.importorskip(f"conformance_{adapter}")
    case = load_paths([CASES]).by_id(case_id)
    target = Target(adapter, route, device)
    body = snippet(target, make_task(case, op, fill=rerun.snippet_data))
    assert body, f"{adapter}/{route} wrote no reproducer"
    script = tmp_path / "reproduce.py"
    script.write_text(rerun.header(f"{case_id}::{op}", target, "test") + body, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    # one printed list of shapes per run (an exporter may print progress lines of its own)
    lines = [line for line in done.stdout.strip().splitlines() if line.startswith(("[(", "[[", "[]"))]
    printed = [[tuple(shape) for shape in ast.literal_eval(line)] for line in lines]
    expected = []
    for run in case.all_runs:  # a case without runs: one run, one line
        pieces = answer(op, SplitRequest.of_run(case, run)).outcome
        assert isinstance(pieces, Pieces), f"{run.describe()} is not a valid request; pick another item"
        expected.append(list(pieces.shapes(run.data.shape)))
    assert printed == expected


@pytest.mark.slow
@pytest.mark.parametrize(
    ("adapter", "route", "device", "op"),
    [
        ("numpy", "numpy", "cpu", "numpy.array_split"),
        ("openvino", "native", "CPU", "openvino.VariadicSplit-1"),
        ("onnxruntime", "default", "cpu", "onnx.Split-13"),
        ("torch", "eager", "cpu", "torch.split"),
    ],
)
def test_a_multi_gib_item_gets_a_counter_snippet_without_its_data_being_made(
    adapter: str, route: str, device: str, op: str
) -> None:
    """The runner hands reproducers a stand-in for data they would not embed: shape and dtype,
    no memory (strides of zero), and the snippet rebuilds it as a counter of that size."""
    pytest.importorskip(f"conformance_{adapter}")
    case = next(c for c in load_paths([CASES]).cases if c.id.startswith("large-") and op in c.ops)
    task = make_task(case, op, fill=rerun.snippet_data)
    assert task.data.shape == case.data.shape and task.data.nbytes > 2**31
    assert set(task.data.strides) == {0}
    body = snippet(Target(adapter, route, device), task)
    assert body is not None
    ast.parse(rerun.header("x", Target(adapter, route, device), "test") + body)
    assert f"np.arange({task.data.size})" in body


@pytest.mark.parametrize("size", [0, 1, 71, 72, 73, 3000])
def test_an_embedded_model_is_its_base64_in_lines_of_96_characters(size: int) -> None:
    """Cut by slicing, as textwrap cut it (base64 has no spaces to break at): the same text."""
    data = bytes(range(256)) * (size // 256) + bytes(range(size % 256))
    text = snippet_pieces.wrapped_base64(data)
    lines = text.split("\n") if text else []
    assert all(len(line) == 96 for line in lines[:-1]) and all(0 < len(line) <= 96 for line in lines)
    assert base64.b64decode(text) == data
    assert text == "\n".join(textwrap.wrap(base64.b64encode(data).decode("ascii"), 96))


@pytest.mark.slow
def test_data_a_snippet_embeds_is_the_case_fill() -> None:
    case = load_paths([CASES]).by_id("doc-readme-6-into-4")
    small = rerun.snippet_data(case.data)
    assert 0 < small.nbytes <= snippet_pieces.EMBED_LIMIT
    assert small.tobytes() == make_task(case, "numpy.array_split").data.tobytes()


#: Packages of backends and converters: writing reproducers must not import one into the run's
#: parent (TensorFlow's import took 4 s of every run's end, and a parent holding a backend's
#: threads is what the worker isolation exists to avoid).
BACKEND_PACKAGES = (
    "tensorflow",
    "keras",
    "jax",
    "jaxlib",
    "torch",
    "openvino",
    "onnxruntime",
    "tf2onnx",
    "onnx2tf",
    "ai_edge_litert",
    "tflite_runtime",
    "onnxslim",
    "onnxoptimizer",
    "iree",
    "tract",
)

_WRITE_REPRODUCERS = """
import sys
from dataclasses import replace
from pathlib import Path
from conformance.engine.item import bare_result
from conformance.run.planning import RunConfig, plan
from conformance.run.runner import with_reproducers

planned = plan(RunConfig(case_paths=(sys.argv[1],), keyword=sys.argv[2], jobs=1, out=Path(sys.argv[3])))
before = set(sys.modules)
failed = [bare_result(job.case, job.op, job.target, "made up", "fail") for job in planned.jobs]
written = with_reproducers(planned, failed)
print(len({job.target.id for job in planned.jobs}), sum(1 for result in written if result.reproducer))
print("new:", *sorted({name.split(".")[0] for name in set(sys.modules) - before}))
"""


@pytest.mark.slow
def test_writing_every_targets_reproducers_imports_no_backend_into_the_parent(tmp_path: Path) -> None:
    pytest.importorskip("conformance_tensorflow")
    keyword = "inputs-axis-runtime-vsplit or inputs-lengths-runtime-dynamic or runs-new-data-static"
    done = subprocess.run(
        [sys.executable, "-c", _WRITE_REPRODUCERS, str(CASES), keyword, str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    counts, imported = done.stdout.splitlines()
    targets, written = map(int, counts.split())
    assert targets >= 10 and written > targets  # every target of the default run, several items each
    assert imported.startswith("new:") and not set(imported.split()[1:]) & set(BACKEND_PACKAGES)


def test_the_command_writes_into_a_folder_of_its_own_never_the_runs(tmp_path: Path) -> None:
    """Typed as the report shows it, the command once replaced the main job's 34,104 results with
    its one: it carries an ``--out`` of its own, one folder per result (item and target)."""
    (tmp_path / "few.yaml").write_text(
        "defaults: {source: reproducer tests, data: {dtype: float32}}\ncases:\n"
        "  - {id: one.case_1, title: t, data: {shape: [6, 2]}, axis: 0, indices: [2]}\n",
        encoding="utf-8",
    )
    cases = (str(tmp_path / "few.yaml"),)
    config = RunConfig(case_paths=cases, adapters=("fake_adapters:Liar",), out=tmp_path)
    planned = plan(config)
    failed = [bare_result(job.case, job.op, job.target, "made up", "fail") for job in planned.jobs]
    written = with_reproducers(planned, failed)
    commands = [result.reproducer["command"] for result in written if result.reproducer]
    outs = [words[words.index("--out") + 1] for words in map(shlex.split, commands)]
    assert len(commands) == 2 and sorted(outs) == [
        "reports/repro/one.case_1_numpy.array_split_liar_slices_cpu",
        "reports/repro/one.case_1_torch.tensor_split_liar_slices_cpu",
    ]
