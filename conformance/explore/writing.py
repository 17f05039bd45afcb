"""The case files of an exploration's findings: one case per distinct smallest request, ready to
be reviewed and moved into the corpus.

Each file is checked as the corpus would check it (the loader's schema and rules, the audit of
expectations) before this module returns, so what it writes can be committed as it is. A finding
whose request the corpus already holds is not written again: the summary names that case.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from conformance.corpus.loader import load_paths
from conformance.explore import generated
from conformance.explore.search import Finding
from conformance.oracle.corpus_check import check_corpus
from conformance.oracle.reference import Rejection, SplitRequest, answer


def _tags(finding: Finding) -> list[str]:
    tags = []
    if isinstance(answer(finding.op, SplitRequest.of(finding.case)).outcome, Rejection):
        tags.append("invalid")
    if finding.case.graph.data_shape == "dynamic":
        tags.append("dynamic")
    if finding.case.runs:
        tags.append("runs")
    return tags


def _said(finding: Finding) -> str:
    """One line: where it was found and what the backend did."""
    result = finding.result
    known = f" (known issue {result.known_issue['id']})" if result.known_issue else ""
    message = result.message.split("\n", 1)[0]
    return f"{finding.target}: {result.status}{known}: {message}"


def file_name(seed: int, op: str) -> str:
    return f"explore-seed-{seed}-{op.lower().replace('.', '-')}.yaml"


def write(findings: Sequence[Finding], in_corpus: dict[int, str], directory: Path, seed: int) -> list[Path]:
    """Write the findings not in the corpus, a file per op; the files written."""
    by_op: dict[str, dict[str, dict[str, Any]]] = {}
    for index, finding in enumerate(findings):
        if index in in_corpus:
            continue
        cases = by_op.setdefault(finding.op, {})
        document = generated.full_document(finding.op, finding.document, seed, _tags(finding))
        entry = cases.setdefault(document["id"], {**document, "note": ""})
        said = _said(finding) + ("" if finding.shrunk else " (not fully shrunk: the time ran out)")
        entry["note"] = f"{entry['note']}\n{said}".strip()
    directory.mkdir(parents=True, exist_ok=True)
    today = datetime.date.today().isoformat()
    written = []
    for op, cases in by_op.items():
        path = directory / file_name(seed, op)
        header = (
            f"# Findings of `conformance explore --seed {seed} --op {op}` ({today}), each shrunk to a\n"
            "# smallest request. Review each case (is the reference right? is it a backend's bug?), then\n"
            "# move it into cases/ and record the backend's departure as a known issue with its link.\n"
        )
        path.write_text(generated.dump(list(cases.values()), header), encoding="utf-8")
        written.append(path)
    if written:
        defects = check_corpus(load_paths(written).cases)  # raises CaseFileErrors if a file is broken
        if defects:
            raise AssertionError(f"explore wrote cases the corpus audit refuses: {defects[0]}")
    return written
