"""Several results documents seen as one set, as the report and the version comparison read them.

They must come from the same case corpus (suite digest). ``conformance merge``, which writes a
new results file, is stricter: :mod:`conformance.results.merge`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NotRequired, TypedDict

from conformance import ids
from conformance.errors import ResultsFileError
from conformance.results.records import ResultRecord, ResultsDocument, RunInfoRecord, SuiteRecord


class SourcedRun(RunInfoRecord):
    """A document's run, with the label (file name) of the document it came from."""

    source: str


class CombinedTarget(TypedDict):
    """A target that has results: its description, its id and the run (document index) it came from."""

    id: str
    run: int
    name: str
    route: str
    device: str
    backend: NotRequired[str]
    version: NotRequired[str]
    options: NotRequired[dict[str, str]]
    description: NotRequired[str]


@dataclass(frozen=True)
class CombinedResults:
    """Several results documents as one view: one suite, their runs, targets and results. A result
    in several documents is taken from the last, the way a rerun of a few items is laid over a full
    run (``replaced`` counts those)."""

    suite: SuiteRecord
    runs: list[SourcedRun]
    targets: list[CombinedTarget]
    results: list[ResultRecord]
    replaced: int
    #: the document (index into ``runs``) each result came from, in the order of ``results``
    origins: list[int] = field(default_factory=list)


def combine(documents: Sequence[ResultsDocument], names: Sequence[str] | None = None) -> CombinedResults:
    """One view of ``documents``; ResultsFileError when they come from different case corpora."""
    if not documents:
        raise ResultsFileError("no results documents to report on")
    labels = list(names) if names else [f"document {number + 1}" for number in range(len(documents))]
    digests = {document["suite"]["digest"] for document in documents}
    if len(digests) > 1:
        listing = "; ".join(
            f"{label}: {document['suite']['digest']}"
            for label, document in zip(labels, documents, strict=True)
        )
        raise ResultsFileError(
            "cannot combine results of different case corpora (suite digests differ: "
            f"{listing}); run them on the same cases, or report each on its own"
        )
    by_key: dict[str, ResultRecord] = {}
    origins: dict[str, int] = {}
    targets: dict[str, CombinedTarget] = {}
    runs: list[SourcedRun] = []
    replaced = 0
    for number, (label, document) in enumerate(zip(labels, documents, strict=True)):
        runs.append(SourcedRun(**document["run"], source=label))
        entries = {ids.record_target(entry): entry for entry in document["adapters"]}
        for result in document["results"]:
            tid = ids.record_target(result)
            key = ids.result_key(ids.record_item(result), tid)
            replaced += key in by_key
            by_key[key] = result
            origins[key] = number
            target = CombinedTarget(
                id=tid, run=number, name=result["adapter"], route=result["route"], device=result["device"]
            )
            described = entries.get(tid)
            if described is not None:
                target["backend"] = described["backend"]
                target["version"] = described["version"]
                target["options"] = described["options"]
                if "description" in described:
                    target["description"] = described["description"]
            targets[tid] = target
    ordered = [targets[tid] for tid in sorted(targets)]
    results = list(by_key.values())
    return CombinedResults(documents[-1]["suite"], runs, ordered, results, replaced, list(origins.values()))
