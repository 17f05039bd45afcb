"""A typo among the values of a repeated selector is refused, as the same typo alone is.

Repeated ``--op``, ``--target``, ``--tag``, ``--item`` and ``--adapter`` select the union of
their values, so a value that matches nothing used to narrow the run silently (exit 0, fewer
items). Each value must now match something on its own; the message names the value and the
closest choices (conformance.run.planning.unmatched, conformance.run.planning.load_adapters).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.cli import main

CASES = """\
defaults:
  {source: typo tests, data: {dtype: float32}, ops: [numpy.split, numpy.array_split, torch.tensor_split]}
cases:
  - {id: item-0, title: t, tags: [uneven], data: {shape: [6, 3]}, axis: 0, indices: [1, 3]}
  - {id: item-1, title: t, tags: [even], data: {shape: [7, 3]}, axis: 0, indices: [2, 4]}
"""

#: per selector: two values that each select something, and one of them mistyped
SELECTORS = {
    "op": (["--op", "numpy.split", "--op", "numpy.array_split"], "numpy.arry_split", "numpy.array_split"),
    "target": (
        ["--target", "numpy/numpy/cpu", "--target", "numpy/emulated/*"],
        "numpy/emulatd/*",
        "numpy/emulated/cpu",
    ),
    "tag": (["--tag", "uneven", "--tag", "even"], "evn", "even"),
    "item": (
        ["--item", "item-0::numpy.split", "--item", "item-1::numpy.split"],
        "itme-1::numpy.split",
        "item-1",
    ),
    "adapter": (["--adapter", "numpy", "--adapter", "fake_adapters:Slicer"], "fake_adapters:Slcer", "Slicer"),
}


@pytest.fixture
def run(tmp_path: Path) -> list[str]:
    (tmp_path / "cases.yaml").write_text(CASES, encoding="utf-8")
    return ["run", "--cases", str(tmp_path / "cases.yaml"), "--out", str(tmp_path / "out"), "--repeat", "0"]


def _with_defaults(selector: str, given: list[str]) -> list[str]:
    """The numpy adapter (quick to load), unless the test is about --adapter itself."""
    return given if selector == "adapter" else ["--adapter", "numpy", *given]


@pytest.mark.parametrize("selector", list(SELECTORS))
def test_a_typo_beside_a_good_value_is_refused_with_a_did_you_mean(
    run: list[str], capsys: pytest.CaptureFixture[str], selector: str
) -> None:
    good, typo, meant = SELECTORS[selector]
    flag = f"--{selector}"
    given = _with_defaults(selector, [*good[:2], flag, typo])
    assert main([*run, *given]) == 2
    err = capsys.readouterr().err
    assert f"{typo!r}" in err and "did you mean" in err and meant in err.partition("did you mean")[2]
    assert not (Path(run[4]) / "results.json").exists()  # refused before anything ran


def test_an_unknown_adapter_name_beside_a_good_one_is_refused_with_a_did_you_mean(
    run: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*run, "--adapter", "numpy", "--adapter", "nmpy"]) == 2
    err = capsys.readouterr().err
    assert "no adapter named 'nmpy' is installed; did you mean numpy?" in err


@pytest.mark.parametrize("selector", list(SELECTORS))
def test_two_good_values_run_the_union(run: list[str], selector: str) -> None:
    good, _, _ = SELECTORS[selector]
    assert main([*run, *_with_defaults(selector, good)]) == 0
    results = json.loads((Path(run[4]) / "results.json").read_text(encoding="utf-8"))["results"]
    values = good[1::2]
    seen = {
        "op": {r["op"] for r in results},
        "target": {f"{r['adapter']}/{r['route']}/{r['device']}" for r in results},
        "tag": {tag for r in results for tag in r["params"]["tags"]},
        "item": {f"{r['case']}::{r['op']}" for r in results},
        "adapter": {r["adapter"] for r in results},
    }[selector]
    assert len(seen) == 2, seen  # each value selected something
    if selector in ("op", "tag", "item"):
        assert seen == set(values)


@pytest.mark.parametrize("selector", ["op", "tag"])
def test_list_refuses_a_typo_beside_a_good_value(
    run: list[str], capsys: pytest.CaptureFixture[str], selector: str
) -> None:
    good, typo, meant = SELECTORS[selector]
    assert main(["list", "--cases", run[2], *good[:2], f"--{selector}", typo]) == 2
    assert meant in capsys.readouterr().err.partition("did you mean")[2]


@pytest.mark.parametrize(
    "typo", [["--op", "numpy.split", "--op", "numpy.splt"], ["--target", "numpy/*", "--target", "nmpy/*"]]
)
def test_explore_refuses_a_typo_beside_a_good_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], typo: list[str]
) -> None:
    given = ["explore", "--adapter", "numpy", *typo, "--max-examples", "1", "--out", str(tmp_path / "out")]
    assert main(given) == 2
    assert f"{typo[-1]!r} matches no" in capsys.readouterr().err
