"""The case files of an exploration's findings, ready to be reviewed and moved into the corpus.

Each case is checked by the loader and the corpus audit first, and one either would refuse is
reported instead. A finding whose request the corpus holds is not written: the summary names it.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from conformance.corpus.loader import CaseFileErrors, load_text
from conformance.errors import UsageError
from conformance.explore import generated
from conformance.explore.search import ShrunkDisagreement
from conformance.oracle.answers import answer_for
from conformance.oracle.corpus_check import case_defects
from conformance.oracle.reference import Rejection


def _tags(finding: ShrunkDisagreement) -> list[str]:
    tags = []
    spec_answer = answer_for(finding.op, finding.case)
    if spec_answer.ambiguous:
        tags.append("ambiguous")  # the corpus audit asks open points to say so
    elif isinstance(spec_answer.outcome, Rejection):
        tags.append("invalid")
    if finding.case.graph.data_shape == "dynamic":
        tags.append("dynamic")
    if finding.case.runs:
        tags.append("runs")
    return tags


def file_name(seed: int, op: str) -> str:
    return f"explore-seed-{seed}-{op.lower().replace('.', '-')}.yaml"


#: how every file :func:`write` writes begins: what lets it replace its own files and no other
HEADER_START = "# Findings of `conformance explore"


def check(directory: Path, seed: int) -> None:
    """Refuse (UsageError), before any exploring, a ``--write`` folder where this seed's files
    would replace files the suite did not write; any other file there is left alone."""
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"--write {directory}: is a file, not a folder")
    for path in sorted(directory.glob(file_name(seed, "*"))) if directory.is_dir() else []:
        with path.open("rb") as stream:
            ours = stream.read(len(HEADER_START)) == HEADER_START.encode()
        if not ours:
            raise UsageError(
                f"--write {directory}: {path.name} exists and was not written by `conformance explore`; "
                "give another folder or move the file"
            )


def _refusal(document: dict[str, Any]) -> str | None:
    """Why the loader or the corpus audit would refuse the case, or None."""
    try:
        (case,) = load_text(generated.dump([document]), document["id"])
    except CaseFileErrors as errors:
        return str(errors)
    defects = case_defects(case)
    return defects[0] if defects else None


def write(
    findings: Sequence[ShrunkDisagreement], in_corpus: dict[int, str], directory: Path, seed: int
) -> tuple[list[Path], list[str]]:
    """Write the findings not in the corpus, a file per op. Returns the files written and why each
    case the loader or the audit would refuse was left out."""
    by_op: dict[str, dict[str, dict[str, Any]]] = {}
    for index, finding in enumerate(findings):
        if index in in_corpus:
            continue
        cases = by_op.setdefault(finding.op, {})
        document = generated.full_document(finding.op, finding.document, seed, _tags(finding))
        entry = cases.setdefault(document["id"], {**document, "note": ""})
        result = finding.result
        said = f"{finding.target}: {result.status}: {result.message.split(chr(10), 1)[0]}"
        said += "" if finding.shrunk else " (not fully shrunk: the time ran out)"
        entry["note"] = f"{entry['note']}\n{said}".strip()
    directory.mkdir(parents=True, exist_ok=True)
    today = datetime.date.today().isoformat()
    written, refused = [], []
    for op, cases in by_op.items():
        kept = []
        for document in cases.values():
            why = _refusal(document)
            if why is None:
                kept.append(document)
            else:
                refused.append(f"{document['id']}: not written: {why}")
        if not kept:
            continue
        path = directory / file_name(seed, op)
        header = (
            f"{HEADER_START} --seed {seed} --op {op}` ({today}), each shrunk to a\n"
            "# smallest request. Review each case (is the reference right? is it a backend's bug?), then\n"
            "# move it into cases/ and record the backend's departure as a known issue with its link.\n"
        )
        path.write_text(generated.dump(kept, header), encoding="utf-8")
        written.append(path)
    return written, refused
