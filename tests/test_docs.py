"""The documentation against the code it describes: every rule the reference names and every
document the catalogue cites is in docs/specs.md, every link between the documents resolves, and
every adapter the documents print runs as printed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest
from report_fixtures import corpus
from test_adapter_contract import PYTHON_BLOCK, docstring_example

from conformance.corpus.catalogue import OPS, applicable_ops
from conformance.engine.settings import EngineSettings
from conformance.oracle.answers import answer_for
from conformance.oracle.reference import Rejection

ROOT = Path(__file__).resolve().parent.parent
SPECS = (ROOT / "docs" / "specs.md").read_text(encoding="utf-8")


def test_every_rule_the_reference_names_on_the_corpus_is_documented() -> None:
    rules = {
        reading.outcome.rule
        for case in corpus().cases
        for op in applicable_ops(case)
        for reading in answer_for(op, case).readings
        if isinstance(reading.outcome, Rejection)
    }
    assert len(rules) >= 20
    assert sorted(rule for rule in rules if f"`{rule}`" not in SPECS) == []


def test_every_document_the_catalogue_cites_is_described() -> None:
    names = {entry.document.partition(",")[0] for entry in OPS.values()}
    assert {"onnx-Split", "onnx-Slice"} <= names
    assert sorted(name for name in names if f"| `{name}` |" not in SPECS) == []


#: the README a newcomer reads: what the suite is, set-up, common tasks; details live in docs/
README_LINES = 200

PAGES = [
    ROOT / "README.md",
    ROOT / "cases" / "README.md",
    ROOT / "examples" / "acme-adapter" / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
]
#: a relative link to a Markdown page, with or without an anchor, or an anchor on the same page
LINK = re.compile(r"\]\((?![a-z]+:)([^)#\s]*\.md)?(?:#([^)\s]+))?\)")


def anchors(text: str) -> set[str]:
    """The anchors a page's headings make on GitHub: the heading's text in lower case, punctuation
    dropped, spaces as hyphens, and ``-1``, ``-2`` ... for repeats (GitHub reads no ``{#id}``)."""
    made: set[str] = set()
    fenced = False
    for line in text.splitlines():
        fenced ^= line.startswith("```")
        heading = None if fenced else re.match(r"#{1,6} (.*)$", line)
        if heading is None:
            continue
        slug = re.sub(r"[^\w\- ]", "", heading.group(1).lower()).replace(" ", "-")
        repeat = 0
        while (slug if repeat == 0 else f"{slug}-{repeat}") in made:
            repeat += 1
        made.add(slug if repeat == 0 else f"{slug}-{repeat}")
    return made


def test_the_readme_stays_short() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= README_LINES


def test_links_between_the_documents_resolve() -> None:
    """Every relative link to a page resolves, and so does its anchor (or one on the same page)."""
    broken = []
    for page in PAGES:
        for target, anchor in LINK.findall(page.read_text(encoding="utf-8")):
            linked = page.parent / target if target else page
            if not linked.is_file():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
            elif anchor and anchor not in anchors(linked.read_text(encoding="utf-8")):
                broken.append(f"{page.relative_to(ROOT)} -> {target}#{anchor}")
    assert broken == []


def test_an_anchor_is_made_as_github_makes_it() -> None:
    text = "# Set-up\n## A worked certification: ONNX Runtime's EP\n```\n# not a heading\n```\n## Set-up\n"
    text += "## Exit statuses {#exit-statuses}\n"
    assert anchors(text) == {
        "set-up",
        "a-worked-certification-onnx-runtimes-ep",
        "set-up-1",
        "exit-statuses-exit-statuses",
    }


def test_every_engine_setting_is_in_the_settings_table() -> None:
    """The engine's settings are documented in one place, the table of docs/architecture.md: a
    field added to EngineSettings without its row fails here."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = text.split("## The engine's settings", 1)[1].split("\n## ", 1)[0]
    first_cells = [line.split(" | ")[0] for line in table.splitlines() if line.startswith("| `")]
    rows = {name for cell in first_cells for name in re.findall(r"`(\w+)`", cell)}
    assert [field.name for field in fields(EngineSettings) if field.name not in rows] == []


#: a printed adapter: a class with an info() method
ADAPTER_CLASS = re.compile(r"^class (\w+)\b[^\n]*:\n(?:(?:    .*)?\n)*?    def info\(", re.MULTILINE)


def printed_adapters() -> dict[str, str]:
    """Every adapter the documents print, by where: each Python block of the pages (README.md,
    docs/*.md ...) that holds one, and the example in conformance.plugin's docstring."""
    blocks = {
        f"{page.name}-{n}": block
        for page in PAGES
        for n, block in enumerate(PYTHON_BLOCK.findall(page.read_text(encoding="utf-8")))
        if ADAPTER_CLASS.search(block)
    }
    return {**blocks, "plugin.py-docstring": docstring_example()}


def test_the_documents_print_their_adapters() -> None:
    """The guide's complete adapter and its ONNX one, and the docstring's: one class each."""
    found = {where: ADAPTER_CLASS.findall(source) for where, source in printed_adapters().items()}
    assert len(found) >= 3 and all(len(classes) == 1 for classes in found.values()), found
    assert ["MyOnnxAdapter"] in found.values()


@pytest.mark.slow  # a run of the suite per adapter
@pytest.mark.parametrize("where", printed_adapters())
def test_each_printed_adapter_runs_as_printed(tmp_path: Path, where: str) -> None:
    """Copied into a file as printed and named by import path, as docs/adapters.md shows: the
    suite loads it (its info() and its routes' calls checked), runs it and every result passes."""
    source = printed_adapters()[where]
    (tmp_path / "printed.py").write_text(source, encoding="utf-8")
    (adapter,) = ADAPTER_CLASS.findall(source)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    command = [
        "run",
        "--cases",
        str(ROOT / "cases"),
        "--adapter",
        f"printed:{adapter}",
        "-k",
        "onnx-node-split",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", *command, "--repeat", "0", "--out", "out"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,  # a bound on a hang, not on speed: a few items, one worker
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    document = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    (target,) = document["adapters"]  # one route on one device, as info() says
    assert target["backend"] and target["version"], target
    results = document["results"]
    assert {(result["adapter"], result["route"]) for result in results} == {(target["name"], target["route"])}
    assert len(results) >= 4 and {result["status"] for result in results} == {"pass"}, results
