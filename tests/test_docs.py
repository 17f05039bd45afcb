"""The documentation against the code it describes: every rule the reference names and every
document the catalogue cites is in docs/specs.md, and every link between the documents resolves."""

from __future__ import annotations

import re
from pathlib import Path

from report_fixtures import corpus

from conformance.corpus.catalogue import OPS, applicable_ops
from conformance.oracle.reference import Rejection, SplitRequest, answer

ROOT = Path(__file__).resolve().parent.parent
SPECS = (ROOT / "docs" / "specs.md").read_text(encoding="utf-8")


def test_every_rule_the_reference_names_on_the_corpus_is_documented() -> None:
    rules = {
        reading.outcome.rule
        for case in corpus().cases
        for op in applicable_ops(case)
        for reading in answer(op, SplitRequest.of(case)).readings
        if isinstance(reading.outcome, Rejection)
    }
    assert len(rules) >= 20
    assert sorted(rule for rule in rules if f"`{rule}`" not in SPECS) == []


def test_every_document_the_catalogue_cites_is_described() -> None:
    names = {entry.document.partition(",")[0] for entry in OPS.values()}
    assert len(names) == 31
    assert sorted(name for name in names if f"| `{name}` |" not in SPECS) == []


def test_links_between_the_documents_resolve() -> None:
    pages = [ROOT / "README.md", ROOT / "cases" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    broken = []
    for page in pages:
        for target in re.findall(r"\]\(([^)#:]+\.md)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if not (page.parent / target).is_file():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert broken == []
