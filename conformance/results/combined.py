"""Reading results files and merging several into one view.

Several results files make one report (e.g. one per adapter, or a rerun of a few items laid
over a full run), but only when they ran the same case corpus: their suite digests must match.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from conformance.results.result import JSON


class ReportError(Exception):
    """Input a report cannot be made from (unreadable file, other schema, mixed corpora)."""


@dataclass(frozen=True)
class Merged:
    """Several results documents as one view: one suite, their runs, targets and results.

    ``targets`` are the adapters entries that have results, each with its ``id`` and the index
    of the run (document) it came from. A result whose key (item and target) appears in more
    than one document is taken from the last one, the way a rerun of a few items is laid over
    a full run; ``replaced`` counts those.
    """

    suite: JSON
    runs: list[JSON]
    targets: list[JSON]
    results: list[JSON]
    replaced: int


def target_id(result: Mapping[str, Any]) -> str:
    return f"{result['adapter']}/{result['route']}/{result['device']}"


def merge(documents: Sequence[JSON], names: Sequence[str] | None = None) -> Merged:
    """One view of ``documents``; ReportError when they come from different case corpora."""
    if not documents:
        raise ReportError("no results documents to report on")
    labels = list(names) if names else [f"document {number + 1}" for number in range(len(documents))]
    digests = {str(document.get("suite", {}).get("digest")) for document in documents}
    if len(digests) > 1:
        listing = "; ".join(
            f"{label}: {document.get('suite', {}).get('digest')}"
            for label, document in zip(labels, documents, strict=True)
        )
        raise ReportError(
            "cannot merge results of different case corpora (suite digests differ: "
            f"{listing}); run them on the same cases, or report each on its own"
        )
    by_key: dict[str, JSON] = {}
    targets: dict[str, JSON] = {}
    runs: list[JSON] = []
    replaced = 0
    for number, (label, document) in enumerate(zip(labels, documents, strict=True)):
        runs.append({**document.get("run", {}), "source": label})
        entries = {
            f"{entry['name']}/{entry['route']}/{entry['device']}": entry
            for entry in document.get("adapters", [])
        }
        for result in document.get("results", []):
            tid = target_id(result)
            key = f"{result['case']}::{result['op']}@{tid}"
            replaced += key in by_key
            by_key[key] = result
            entry = entries.get(tid, {"name": result["adapter"], "route": result["route"]})
            targets[tid] = {**entry, "id": tid, "run": number, "device": result["device"]}
    ordered = [targets[tid] for tid in sorted(targets)]
    return Merged(dict(documents[-1].get("suite", {})), runs, ordered, list(by_key.values()), replaced)


@contextmanager
def no_gc() -> Iterator[None]:
    """Cyclic garbage collection paused: a results file is tens of thousands of small dicts, and
    the collection passes their creation triggers cost more than parsing them (3x here)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def read_documents(paths: Iterable[Path]) -> list[JSON]:
    """Parsed results files; ReportError naming the file for anything that is not one."""
    documents = []
    for path in paths:
        try:
            with no_gc():
                body = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise ReportError(f"{path}: cannot read a results file: {error}") from None
        if not isinstance(body, dict) or body.get("schema") != "conformance.results/1":
            got = body.get("schema") if isinstance(body, dict) else type(body).__name__
            raise ReportError(f"{path}: not a results file of schema conformance.results/1 (got {got!r})")
        documents.append(body)
    return documents


def case_texts(suite: Mapping[str, Any], root: Path) -> dict[str, JSON]:
    """Titles and notes of the cases, read from the suite's case files when they are at hand.

    Results files record each case's parameters and source but not its title or note, which are
    what a reader scans for; the files named in the suite are read (relative to ``root``, the
    directory the run was started from) when they exist. Only ids are used to match, and a
    file that is missing or unreadable just leaves its cases untitled.
    """
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    texts: dict[str, JSON] = {}
    for name in suite.get("files", []):
        path = Path(name) if Path(name).is_absolute() else root / name
        try:
            document = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue
        if not isinstance(document, dict):
            continue
        found = document.get("defaults")
        defaults: dict[str, Any] = found if isinstance(found, dict) else {}
        for case in document.get("cases") or []:
            if isinstance(case, dict) and isinstance(case.get("id"), str):
                merged = {**defaults, **case}
                texts[case["id"]] = {
                    key: str(merged[key]) for key in ("title", "note") if merged.get(key) is not None
                }
    return texts
