"""The contract between the report's Python and its scripts, and the shape of its code.

- the compact arrays' fields are named once (conformance/report/layout.py) and the scripts use
  them by name: no ``row[2]`` anywhere, and no name the data does not define;
- the address's keys are listed once (conformance/report/urlkeys.py): the scripts read exactly
  those, and docs/report.md documents exactly those;
- no function of conformance/report is over 80 lines.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from report_fixtures import ROOT, document, mixed_document, runs_result
from test_report import embedded

from conformance import report
from conformance.report import layout, page, urlkeys

REPORT = ROOT / "conformance" / "report"
SCRIPTS = {name: (REPORT / "assets" / name).read_text(encoding="utf-8") for name in page.SCRIPTS}
#: The scripts' code, their comments left out.
ALL_SCRIPTS = re.sub(r"(?m)^\s*//.*$|\s//.*$", "", "\n".join(SCRIPTS.values()))
#: The constants through which the scripts read each array (core.js binds them from D.fields).
ACCESSORS = {
    "RES_AT": "res",
    "ITEM_AT": "items",
    "TIME_AT": "timing",
    "DECIDED_AT": "decided",
    "RUN_AT": "runs",
}
MAX_FUNCTION_LINES = 80


def test_the_data_names_every_field_of_its_arrays() -> None:
    data = embedded(report.render([mixed_document()]))
    assert data["fields"] == layout.fields()
    res, items = data["fields"]["res"], data["fields"]["items"]
    assert all(len(row) == len(res) for row in data["res"]) and all(
        len(item) == len(items) for item in data["items"]
    )
    timed = [row[res["timing"]] for row in data["res"] if row[res["timing"]]]
    assert timed and all(len(timing) == len(layout.TIMING) for timing in timed)
    runs = embedded(report.render([document([runs_result()])]))
    extra = runs["extra"][runs["res"][0][res["extra"]]]
    assert len(extra["re"]) == len(layout.DECIDED) and all(len(run) == len(layout.RUN) for run in extra["ru"])


def test_pack_takes_every_field_by_name_and_nothing_else() -> None:
    assert layout.pack(layout.DECIDED, expected_text=4, expected=3) == [3, 4]
    with pytest.raises(ValueError, match="are not"):
        layout.pack(layout.DECIDED, expected=3)
    with pytest.raises(ValueError, match="are not"):
        layout.pack(layout.DECIDED, expected=3, expected_text=4, extra=5)


def test_the_scripts_read_the_arrays_by_name_only() -> None:
    positional = re.findall(r"\b(?:row|item|run|t|extra\.re|RES\[\w+\]|ITEMS\[\w+\])\[\d+\]", ALL_SCRIPTS)
    assert positional == []
    for constant, array in ACCESSORS.items():
        assert f"const {constant} = D.fields.{array};" in SCRIPTS["core.js"]
        names = set(re.findall(rf"\b{constant}\.(\w+)", ALL_SCRIPTS))
        assert names, constant
        assert names <= set(layout.ARRAYS[array]), (constant, names - set(layout.ARRAYS[array]))


def _documented_keys() -> list[str]:
    text = (ROOT / "docs" / "report.md").read_text(encoding="utf-8")
    section = text[text.index("## The address") :]
    return re.findall(r"^\| `(\w+)` \|", section, re.M)


def test_the_documented_keys_are_exactly_the_keys_of_the_address() -> None:
    assert _documented_keys() == list(urlkeys.KEYS)


def test_the_scripts_read_exactly_the_keys_of_the_address() -> None:
    core = SCRIPTS["core.js"]
    # the address is read in one place, key by key from the list the data carries
    assert "const KEYS = D.keys;" in core and "const DIMENSIONS = D.filters;" in core
    assert re.findall(r"params\.get\(([^)]*)\)", ALL_SCRIPTS) == ["key"]
    data = embedded(report.render([mixed_document()]))
    assert data["keys"] == list(urlkeys.KEYS) and data["filters"] == list(urlkeys.FILTERS)
    # every key the scripts name: properties of the view state, and keys of the states they write
    named = set(re.findall(r"(?<![\w.])(?:state|s)\.(\w+)", ALL_SCRIPTS))
    for literal in re.findall(r"(?:setState|hashOf)\(\{(.*?)\}\)", ALL_SCRIPTS, re.S):
        named |= set(re.findall(r"(?:^|,)\s*(\w+):", literal))
    assert named <= set(urlkeys.KEYS), named - set(urlkeys.KEYS)
    # and every key is read: by name, or as one of the filters the scripts loop over
    assert set(urlkeys.KEYS) <= named | set(urlkeys.FILTERS)


def _long_functions(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{path.relative_to(ROOT)}:{node.lineno} {node.name}: {node.end_lineno - node.lineno + 1} lines"
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]


def test_no_function_of_the_report_is_over_80_lines() -> None:
    modules = sorted(REPORT.rglob("*.py"))
    assert len(modules) > 10
    assert [found for module in modules for found in _long_functions(module)] == []
