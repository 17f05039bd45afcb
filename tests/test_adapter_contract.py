"""The adapter contract as the guide states it: its examples run as printed, the minimal adapter
certifies, hooks are checked when an adapter is loaded, and an adapter's own defect is never a
verdict on its backend (no known issue claims it; its own JUnit type and exit status)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import figures
import numpy as np
import pytest
from fake_adapters import Slicer
from report_fixtures import corpus

from conformance import plugin
from conformance.engine.item import run_item
from conformance.errors import PluginError, UsageError
from conformance.loading import hooks, registry
from conformance.plugin import AdapterInfo, AdapterOptions, Route, Target, Task
from conformance.results import junit
from conformance.verdict import known_issues

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "adapters.md"
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
TARGET = Target("slicer", "slices", "cpu")


def guide_examples() -> list[str]:
    return PYTHON_BLOCK.findall(GUIDE.read_text(encoding="utf-8"))


def docstring_example() -> str:
    """The adapter in conformance.plugin's docstring: the indented block after its "::"."""
    doc = plugin.__doc__ or ""
    block = doc.split("runnable as is, whose backend is NumPy's own split functions::\n", 1)[1]
    return textwrap.dedent(block)


def test_the_guide_has_its_examples() -> None:
    assert len(guide_examples()) >= 4


@pytest.mark.parametrize("number", range(len(guide_examples())))
def test_each_python_example_of_the_guide_runs(number: int) -> None:
    """Each block is complete as printed (its own imports): executing it raises nothing."""
    exec(
        compile(guide_examples()[number], f"{GUIDE}:example-{number}", "exec"),
        {"__name__": f"example{number}"},
    )


def test_the_plugin_docstring_example_is_an_adapter_that_loads_and_passes() -> None:
    namespace: dict[str, Any] = {"__name__": "docstring_example"}
    exec("from collections.abc import Callable, Mapping, Sequence\nimport numpy\n", namespace)
    exec("from conformance.plugin import AdapterInfo, AdapterOptions, Route, Target, Task\n", namespace)
    exec(compile(docstring_example(), "conformance/plugin.py:docstring", "exec"), namespace)
    adapter = namespace["NumpySplit"]({})
    checked = hooks.check("docstring example", adapter, adapter.info())
    route = checked.routes["eager"]
    assert (route.support, route.compile, route.reproducer, route.prepare) == (None,) * 4
    case = corpus().by_id("onnx-node-split-1d-uneven-split")
    result = run_item(adapter, Target("npsplit", "eager", "cpu"), case, "numpy.array_split", repeat=0)
    assert result.status == "pass", result.message


def minimal_adapter() -> str:
    """The guide's first example: the whole adapter a newcomer copies."""
    return guide_examples()[0]


def test_the_minimal_adapter_is_at_most_40_lines_with_its_route_and_reproducer() -> None:
    source = minimal_adapter()
    assert len(source.strip().splitlines()) <= 40
    assert re.findall(r"^    def (\w+)", source, re.MULTILINE) == ["__init__", "info"]
    assert {"build", "run", "reproducer"} <= set(re.findall(r"^def (\w+)", source, re.MULTILINE))


def test_the_guide_lists_at_most_ten_concepts_and_names_every_public_name() -> None:
    """The concept list opens the guide: at most ten numbered concepts, then the optional extras,
    and every public name of conformance.plugin a vendor writes appears in one or the other."""
    text = GUIDE.read_text(encoding="utf-8")
    section = text.split("## What a vendor meets", 1)[1].split("\n## ", 1)[0]
    concepts = re.findall(r"^(\d+)\. ", section, re.MULTILINE)
    assert concepts == [str(n) for n in range(1, len(concepts) + 1)] and 5 <= len(concepts) <= 10
    vendor_names = set(plugin.__all__) - {"ENTRY_POINT_GROUP", "Judged"}
    assert [name for name in sorted(vendor_names) if f"`{name}" not in section] == []


def test_the_minimal_adapter_uses_the_concepts_a_complete_adapter_needs() -> None:
    """The guide's first example is complete with a reproducer: options, info(), a route with its
    build, run, reproducer and imports, and the task's request."""
    source = minimal_adapter()
    needed = ("AdapterOptions.parse(", "AdapterInfo(", "Route(", "reproducer=", "imports=", "task.request")
    assert [word for word in needed if word not in source] == []


@pytest.mark.slow
def test_the_minimal_adapter_is_certified(tmp_path: Path) -> None:
    (tmp_path / "npsplit.py").write_text(minimal_adapter(), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    out = tmp_path / "certificate"
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "certify", "--adapter", "npsplit:NumpySplit",
         "--profile", "numpy-split", "--out", str(out), "-j", "2"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    body = json.loads((out / "certificate.json").read_text())
    assert body["certified"] is True


class ThreeMethods:
    """Only what the protocol requires: a route with build and run, no support, no compile."""

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = AdapterOptions.parse(options, devices=("cpu",))

    def info(self) -> AdapterInfo:
        routes = (Route("slices", ("numpy.array_split",), "slicing", **self._calls()),)
        return AdapterInfo(
            "three", "numpy", np.__version__, routes, self.options.devices, self.options.resolved
        )

    def _calls(self) -> dict[str, Any]:
        return {"build": self._build, "run": self._run}

    def _build(self, task: Task, target: Target) -> tuple[int, ...]:
        return tuple(task.request.form.values)

    def _run(self, model: tuple[int, ...], task: Task) -> Sequence[np.ndarray]:
        axis = 0 if task.request.axis is None else task.request.axis
        return np.array_split(task.data, list(model), axis=axis)


class OldPrepare(ThreeMethods):
    def prepare(self, target: Target) -> None:
        """An adapter-level prepare (routes carry it): never called, which the loader must say."""


class MisSignedPrepare(ThreeMethods):
    def _calls(self) -> dict[str, Any]:
        return {**super()._calls(), "prepare": self._prepare}

    def _prepare(self) -> None:  # lacks the target
        pass


class MisSigned(ThreeMethods):
    def _calls(self) -> dict[str, Any]:
        return {**super()._calls(), "reproducer": self._reproducer}

    def _reproducer(self, task: Task) -> str:  # lacks the target
        return ""


class NotCallableHook(ThreeMethods):
    def _calls(self) -> dict[str, Any]:
        return {**super()._calls(), "compile": "identity"}


class Helpers(ThreeMethods):
    def describe(self) -> str:
        """A public helper whose name is like no hook's is fine."""
        return "three methods"


def test_a_three_method_adapter_loads_and_its_items_pass() -> None:
    loaded = registry.load(f"{__name__}:ThreeMethods")
    route = loaded.hooks.routes["slices"]
    assert route.support is None and route.compile is None
    case = corpus().by_id("opinfo-tensor-split-indices-1-2-3")
    result = run_item(loaded.hooks, Target("three", "slices", "cpu"), case, "numpy.array_split", repeat=1)
    assert result.status == "pass", result.message


@pytest.mark.parametrize(
    ("adapter", "message"),
    [
        (OldPrepare, r"'test_adapter_contract:OldPrepare'.*method 'prepare'.*Route\(\.\.\., prepare="),
        (
            MisSignedPrepare,
            r"'test_adapter_contract:MisSignedPrepare'.*route 'slices': its prepare\(\) "
            r"cannot be called as prepare\(target\)",
        ),
        (
            MisSigned,
            r"'test_adapter_contract:MisSigned'.*its reproducer\(task\) "
            r"cannot be called as reproducer\(task, target\)",
        ),
        (
            NotCallableHook,
            r"'test_adapter_contract:NotCallableHook'.*"
            r"route 'slices': compile is a str, not a call compile\(model, target\)",
        ),
    ],
)
def test_a_wrong_hook_fails_the_load_naming_adapter_and_method(adapter: type, message: str) -> None:
    with pytest.raises(PluginError, match=message):
        registry.load(f"{__name__}:{adapter.__name__}")


def test_a_helper_unlike_any_hook_is_allowed() -> None:
    assert registry.load(f"{__name__}:Helpers").info.name == "three"


def test_options_refuse_unknown_keys_and_devices() -> None:
    with pytest.raises(UsageError, match=r"unknown option\(s\) devise; known: device"):
        AdapterOptions.parse({"devise": "cpu"}, devices=("cpu",))
    with pytest.raises(UsageError, match=r"unknown device\(s\) gpu; this adapter has: cpu, npu"):
        AdapterOptions.parse({"device": "cpu,gpu"}, devices=("cpu", "npu"))
    parsed = AdapterOptions.parse(
        {"device": "cuda:1", "level": "2"}, devices=("cpu",), known={"level"}, any_device=True
    )
    assert parsed.devices == ("cuda:1",) and parsed.resolved == {"device": "cuda:1", "level": "2"}
    assert AdapterOptions.parse({}, devices=("cpu", "npu")).devices == ("cpu",)


class Clumsy(Slicer):
    """Its own code fails while building: a KeyError of its table, not the backend's refusal."""

    def _build(self, task: Task, target: Target) -> tuple[int, ...]:
        return {"other": (1,)}[task.op]


def defect_result() -> Any:
    case = corpus().by_id("opinfo-tensor-split-indices-1-2-3")
    return run_item(Clumsy({}), TARGET, case, "numpy.array_split", repeat=0)


def test_the_adapters_own_exception_is_a_defect_no_known_issue_claims() -> None:
    result = defect_result()
    assert (result.status, result.defect) == ("error", "adapter")
    entry = known_issues.parse(
        "known_issues:\n  - {id: k, ops: 'numpy.*', reason: r, link: 'https://example.org/1'}\n",
        "inline",
        "slicer",
    )
    assert known_issues.apply(result, entry) == result
    # the same error as the backend's refusal is what the entry does claim
    assert known_issues.apply(replace(result, defect=None), entry).status == "xfail"


def test_junit_names_a_defect_apart(tmp_path: Path) -> None:
    result = defect_result()
    junit.write(tmp_path / "junit.xml", [result])
    root = ElementTree.parse(tmp_path / "junit.xml").getroot()
    assert root.find(".//error").get("type") == "adapter-defect"  # type: ignore[union-attr]
    counts = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert counts == {"adapter-defects": "1", "harness-failures": "0"}


@pytest.mark.slow
def test_a_run_with_an_adapter_defect_exits_3(tmp_path: Path) -> None:
    """Neither green (0) nor a backend finding (1): the adapter is broken, and CI should say so."""
    from conformance.cli import main

    item = ["--item", "opinfo-tensor-split-indices-1-2-3::numpy.array_split"]
    assert main(["run", "--adapter", f"{__name__}:Clumsy", *item, "--out", str(tmp_path / "clumsy")]) == 3
    assert main(["run", "--adapter", "fake_adapters:Slicer", *item, "--out", str(tmp_path / "slicer")]) == 0


def test_the_readme_states_the_minimal_adapters_length() -> None:
    assert figures.stated("adapter-lines") == len(minimal_adapter().strip().splitlines())


@pytest.mark.slow
def test_a_run_that_judged_nothing_is_not_green(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every result unsupported (the slicer takes split points only; this item is a count) proves
    nothing about the backend: exit 1, and the reason on stderr."""
    from conformance.cli import main

    item = ["--item", "onnx-node-split-1d-uneven-split::numpy.array_split"]
    assert main(["run", "--adapter", "fake_adapters:Slicer", *item, "--out", str(tmp_path / "run")]) == 1
    err = capsys.readouterr().err
    assert "nothing was judged: all 1 results are unsupported (1 x split points only)" in err
