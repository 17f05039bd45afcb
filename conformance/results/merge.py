"""Merging results files (the shards of a run, runs on several machines or devices) into one.

``conformance merge RESULTS... -o OUT`` gathers a fanned-out run (``--shard I/N`` on many
machines). It is strict where a silent mix would mislead a certificate's reader: it refuses files
of different case corpora or engine versions, one result with different verdicts in two files
(unless ``prefer_last``), and one target described differently by two files. Results come out in
the order one unsharded run gives them (:func:`_order`).
"""

from __future__ import annotations

import datetime
import statistics
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from conformance import ids
from conformance.corpus import catalogue
from conformance.errors import MergeError
from conformance.results import document as results_file
from conformance.results import junit
from conformance.results.records import (
    MemcpyRecord,
    MergedRunRecord,
    ResultRecord,
    ResultsDocument,
    RunInfoRecord,
    TargetRecord,
)
from conformance.results.result import Result

#: Result fields that differ between two executions of the same verdict: measurements, and the
#: backend's own words, which carry process-specific detail (node counters, worker log names).
_INCIDENTAL = frozenset({"timing", "worker", "message"})
#: What two files must say alike of one target.
_DESCRIBED: tuple[Literal["backend", "version", "options"], ...] = ("backend", "version", "options")


@dataclass(frozen=True)
class MergeResult:
    """The merged document, and what a reader should know about it."""

    document: ResultsDocument
    #: (case, op, target) keys found in more than one file
    duplicates: int = 0
    #: reasons the merge is incomplete: missing shards, interrupted runs
    incomplete: list[str] = field(default_factory=list)


def _check_suites(labels: Sequence[str], documents: Sequence[ResultsDocument]) -> None:
    first = documents[0]["suite"]
    for label, document in zip(labels[1:], documents[1:], strict=True):
        suite = document["suite"]
        for mine, theirs, what in (
            (suite["digest"], first["digest"], "case corpora (suite digests)"),
            (suite["version"], first["version"], "conformance versions"),
        ):
            if mine != theirs:
                raise MergeError(
                    f"cannot merge results of different {what}: {labels[0]} has {theirs}, "
                    f"{label} has {mine}; run them on the same checkout"
                )


def _adapters(labels: Sequence[str], documents: Sequence[ResultsDocument]) -> list[TargetRecord]:
    """The union of the files' target descriptions, in first-listed order; conflicts refused."""
    union: dict[str, tuple[str, TargetRecord]] = {}
    for label, document in zip(labels, documents, strict=True):
        for entry in document["adapters"]:
            target = ids.record_target(entry)
            if target not in union:
                union[target] = (label, entry)
                continue
            first_label, first = union[target]
            for name in _DESCRIBED:
                mine, theirs = entry[name], first[name]
                if mine != theirs:
                    raise MergeError(
                        f"target {target} differs between {first_label} ({name} {theirs!r}) and "
                        f"{label} ({name} {mine!r}); results of differently configured "
                        f"backends are not one run"
                    )
    return [entry for _, entry in union.values()]


def _judged(result: ResultRecord) -> dict[str, Any]:
    """What was judged: the result without its incidental fields (see _INCIDENTAL)."""
    judged: dict[str, Any] = {name: value for name, value in result.items() if name not in _INCIDENTAL}
    raised = result["actual"].get("raised")
    if raised is not None:
        judged["actual"] = {**result["actual"], "raised": {"phase": raised["phase"], "type": raised["type"]}}
    return judged


def _results(
    labels: Sequence[str], documents: Sequence[ResultsDocument], prefer_last: bool
) -> tuple[list[tuple[ResultRecord, int]], int]:
    """Each result kept, with the index of the document it comes from; and the duplicate count."""
    by_key: dict[str, tuple[ResultRecord, int]] = {}
    duplicates = 0
    for number, (label, document) in enumerate(zip(labels, documents, strict=True)):
        for result in document["results"]:
            key = ids.record_key(result)
            if key in by_key:
                duplicates += 1
                first, first_number = by_key[key]
                first_label = labels[first_number]
                if not prefer_last and _judged(first) != _judged(result):
                    raise MergeError(
                        f"{key} is in {first_label} ({first['status']}) and in {label} "
                        f"({result['status']}) with different verdicts; pass --prefer-last to take "
                        f"the later file's"
                    )
            by_key[key] = (result, number)
    return list(by_key.values()), duplicates


def _order(
    documents: Sequence[ResultsDocument], adapters: Sequence[TargetRecord]
) -> Callable[[tuple[ResultRecord, int]], tuple[Any, ...]]:
    """The sort key giving the runner's job order: target, then case in suite order, then op. A
    case is placed by its file's rank in its own document's ``suite.files``, then its line: the case
    files need not be at hand, and another machine may spell their paths differently."""
    targets = {ids.record_target(entry): rank for rank, entry in enumerate(adapters)}
    files = [
        {name: rank for rank, name in enumerate(document["suite"].get("files", []))} for document in documents
    ]
    op_rank = {op: rank for rank, op in enumerate(catalogue.OPS)}

    def key(placed: tuple[ResultRecord, int]) -> tuple[Any, ...]:
        result, number = placed
        target = ids.record_target(result)
        location = result["params"].get("location", "")
        name, _, line = location.rpartition(":")
        file_rank = files[number].get(name, len(files[number]))
        return (
            targets.get(target, len(targets)),
            target,  # orders targets no adapters entry describes
            file_rank,
            int(line) if line.isdigit() and file_rank < len(files[number]) else 0,
            result["case"],  # two cases written on one line: by id
            op_rank.get(result["op"], len(op_rank)),
            result["op"],
        )

    return key


def _time(label: str, value: str, name: str) -> datetime.datetime:
    try:
        moment = datetime.datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise MergeError(f"{label}: run.{name} {value!r} is not an ISO 8601 time") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=datetime.UTC)


def _runs(labels: Sequence[str], documents: Sequence[ResultsDocument]) -> list[MergedRunRecord]:
    """One entry per merged run; an input that is itself a merge contributes its own entries."""
    entries: list[MergedRunRecord] = []
    for label, document in zip(labels, documents, strict=True):
        run = document["run"]
        if run.get("merged"):
            entries.extend(run.get("merged", []))
            continue
        selection = run.get("selection") or {}
        entries.append(
            {
                "path": label,
                "host": run["host"],
                "python": run["python"],
                "command": run["command"],
                "shard": selection.get("shard"),
                "selection": selection,
                "targets": [ids.record_target(entry) for entry in document["adapters"]],
                "start": run["start"],
                "end": run["end"],
                "wall_s": run.get("wall_s"),
                "interrupted": bool(run.get("interrupted")),
                "results": len(document["results"]),
                "memcpy": run.get("memcpy") or [],
            }
        )
    return entries


def _common(values: Sequence[Any]) -> Any:
    return values[0] if values and all(value == values[0] for value in values) else None


def _host(hosts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The machine, or where several: the fields they share and every hostname."""
    if _common(hosts) is not None:
        return dict(hosts[0])
    shared = {name: value for name, value in hosts[0].items() if all(h.get(name) == value for h in hosts)}
    names = sorted({str(h.get("hostname")) for h in hosts})
    return {**shared, "hostname": f"{len(names)} hosts: {', '.join(names)}" if len(names) > 1 else names[0]}


def _memcpy(entries: Sequence[MergedRunRecord]) -> list[MemcpyRecord]:
    """Per buffer size, the median of the runs' memory-copy baselines."""
    speeds: dict[int, list[float]] = defaultdict(list)
    for entry in entries:
        for measured in entry.get("memcpy") or []:
            speeds[int(measured["bytes"])].append(float(measured["gbps"]))
    return [
        {"bytes": size, "gbps": round(statistics.median(gbps), 3)} for size, gbps in sorted(speeds.items())
    ]


def _merged_run(
    labels: Sequence[str], documents: Sequence[ResultsDocument], command: Sequence[str]
) -> RunInfoRecord:
    runs = [document["run"] for document in documents]
    starts = [_time(label, run["start"], "start") for label, run in zip(labels, runs, strict=True)]
    ends = [_time(label, run["end"], "end") for label, run in zip(labels, runs, strict=True)]
    entries = _runs(labels, documents)
    selections = [_unsharded(entry) for entry in entries]
    body: RunInfoRecord = {
        "start": runs[starts.index(min(starts))]["start"],
        "end": runs[ends.index(max(ends))]["end"],
        "host": _host([entry.get("host", {}) for entry in entries]),
        "python": ", ".join(sorted({str(entry.get("python") or "?") for entry in entries})),
        "command": list(command),
        # added up: the runs' cost, which the start-to-end span of parallel shards hides
        "wall_s": round(sum(float(entry.get("wall_s") or 0) for entry in entries), 3),
        "interrupted": any(entry.get("interrupted") for entry in entries),
        "selection": {**(_common(selections) or {}), "shard": None},
        "memcpy": _memcpy(entries),
        "merged": entries,
    }
    shared: tuple[Literal["jobs", "timeout_s", "repeat"], ...] = ("jobs", "timeout_s", "repeat")
    for name in shared:
        value = _common([run.get(name) for run in runs])
        if value is not None:
            body[name] = value
    return body


def _unsharded(entry: MergedRunRecord) -> dict[str, Any]:
    """A merged run's selection but for its shard."""
    return {k: v for k, v in (entry.get("selection") or {}).items() if k != "shard"}


def _incomplete(entries: Sequence[MergedRunRecord]) -> list[str]:
    """Missing shards (per group of runs with the same targets and selection) and interrupted runs."""
    problems = [
        f"{entry.get('path')} was interrupted: some of its results are missing"
        for entry in entries
        if entry.get("interrupted")
    ]
    groups: dict[tuple[str, ...], dict[int, set[int]]] = defaultdict(lambda: defaultdict(set))
    for entry in entries:
        shard = entry.get("shard")
        if not shard:
            continue
        part, _, whole = str(shard).partition("/")
        group = (repr(sorted(_unsharded(entry).items())), *entry.get("targets", []))
        groups[group][int(whole)].add(int(part))
    for group, counts in groups.items():
        for count, present in counts.items():
            missing = sorted(set(range(1, count + 1)) - present)
            if missing:
                where = ", ".join(group[1:]) or "no targets"
                shards = ", ".join(f"{index}/{count}" for index in missing)
                problems.append(f"shard {shards} of the run on {where} is missing")
    return problems


def merge(
    documents: Sequence[ResultsDocument],
    labels: Sequence[str] | None = None,
    prefer_last: bool = False,
    command: Sequence[str] = (),
) -> MergeResult:
    """One results document from ``documents`` (parsed results files, labelled by ``labels``)."""
    if not documents:
        raise MergeError("no results files to merge")
    names = list(labels) if labels else [f"document {number + 1}" for number in range(len(documents))]
    _check_suites(names, documents)
    adapters = _adapters(names, documents)
    placed, duplicates = _results(names, documents, prefer_last)
    results = [result for result, _ in sorted(placed, key=_order(documents, adapters))]
    run = _merged_run(names, documents, command)
    document = results_file.assemble(documents[0]["suite"], run, adapters, results)
    return MergeResult(document, duplicates, _incomplete(run.get("merged", [])))


def results(merged: MergeResult) -> list[Result]:
    """The merged results as :class:`Result` objects (for JUnit and the console summary)."""
    return [Result.from_json(body) for body in merged.document["results"]]


def write(
    paths: Sequence[Path], out_dir: Path, prefer_last: bool = False, command: Sequence[str] = ()
) -> tuple[MergeResult, list[Path]]:
    """Merge the results files at ``paths`` into ``out_dir``'s results.json and junit.xml."""
    documents = results_file.read_documents(paths)
    merged = merge(documents, [str(path) for path in paths], prefer_last, command)
    results_file.validate(merged.document, "the merged document")
    out = out_dir / results_file.FILE_NAME
    if any(out.resolve() == Path(path).resolve() for path in paths):
        raise MergeError(f"{out} is one of the files being merged; choose another output directory")
    results_file.write(out, merged.document)
    junit.write(out_dir / junit.FILE_NAME, results(merged))
    return merged, [out, out_dir / junit.FILE_NAME]
