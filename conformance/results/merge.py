"""Merging results files (the shards of a run, runs on several machines or devices) into one.

``conformance merge RESULTS... -o OUT`` is the gather step of a fanned-out run: CI runs
``conformance run --shard I/N`` per adapter on many machines, and one job joins their
``results.json`` files into one results file, JUnit file and report, as if one run had done it
all. The merge is strict where a silent mix would mislead a reader of the certificate:

- files of different case corpora (suite digests) or engine versions are refused;
- a (case, op, target) found in two files with different verdicts (status, expectation,
  outputs, mismatch, known issue...) is refused (``prefer_last`` takes the later file's
  instead, for laying a rerun over a run); the same verdict twice, differing only in timing,
  worker and the backend's message text, is taken from the later file;
- one target described differently by two files (backend version, options) is refused: shards
  run on differently configured machines are two targets, not one.

Results come out in the order one unsharded run gives them (the runner's job order): targets in
the order the files list them, then cases in suite order (their recorded ``file:line``
location against the suite's file list, so the case files need not be at hand), then ops in
catalogue order. The merged ``run`` spans the earliest start to the latest end and lists every
merged run (path, host, command, shard, times), flattening inputs that are merges themselves.
"""

from __future__ import annotations

import datetime
import statistics
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

from conformance import report
from conformance.corpus import catalogue as ops
from conformance.results import document as results_file
from conformance.results import junit
from conformance.results.combined import ReportError, read_documents
from conformance.results.result import JSON, Result

#: Result fields that differ between two executions of the same verdict: measurements, and the
#: backend's own words, which carry process-specific detail (OpenVINO numbers the nodes it names
#: in errors with a per-process counter, Split_79119; a crash quotes its worker's log file).
_INCIDENTAL = frozenset({"timing", "worker", "message"})
#: Run fields kept in the merged run when every merged run agrees on them.
_COMMON_RUN_FIELDS = ("jobs", "timeout_s", "repeat")


class MergeError(Exception):
    """Results files that cannot be merged into one; the message names the files at fault."""


@dataclass(frozen=True)
class Merged:
    """The merged document, and what a reader should know about it."""

    document: JSON
    #: (case, op, target) keys found in more than one file
    duplicates: int = 0
    #: reasons the merge is incomplete: missing shards, interrupted runs
    incomplete: list[str] = field(default_factory=list)


def _target(entry: Mapping[str, Any]) -> str:
    return f"{entry.get('name', entry.get('adapter'))}/{entry['route']}/{entry['device']}"


def _key(result: Mapping[str, Any]) -> str:
    return f"{result['case']}::{result['op']}@{result['adapter']}/{result['route']}/{result['device']}"


def _check_shapes(labels: Sequence[str], documents: Sequence[JSON]) -> None:
    """The fields merging relies on, checked up front so that a broken file is named (the schema
    check of the merged document is thorough but too slow to repeat on every input)."""
    schema = results_file.schema()
    required = {
        "": schema["required"],
        "suite": schema["properties"]["suite"]["required"],
        "run": schema["properties"]["run"]["required"],
    }
    per_result = schema["$defs"]["result"]["required"]
    for label, document in zip(labels, documents, strict=True):
        for part, names in required.items():
            body = document.get(part) if part else document
            missing = [name for name in names if not isinstance(body, dict) or name not in body]
            if missing:
                raise MergeError(f"{label}: {part or 'the file'} lacks {', '.join(missing)}")
        for number, result in enumerate(document["results"]):
            missing = [name for name in per_result if name not in result]
            if missing:
                raise MergeError(f"{label}: result {number} lacks {', '.join(missing)}")


def _check_suites(labels: Sequence[str], documents: Sequence[JSON]) -> None:
    first = documents[0].get("suite", {})
    for label, document in zip(labels[1:], documents[1:], strict=True):
        suite = document.get("suite", {})
        for name, what in (("digest", "case corpora (suite digests)"), ("version", "conformance versions")):
            if suite.get(name) != first.get(name):
                raise MergeError(
                    f"cannot merge results of different {what}: {labels[0]} has {first.get(name)}, "
                    f"{label} has {suite.get(name)}; run them on the same checkout"
                )


def _adapters(labels: Sequence[str], documents: Sequence[JSON]) -> list[JSON]:
    """The union of the files' target descriptions, in first-listed order; conflicts refused."""
    union: dict[str, tuple[str, JSON]] = {}
    for label, document in zip(labels, documents, strict=True):
        for entry in document.get("adapters", []):
            target = _target(entry)
            if target not in union:
                union[target] = (label, entry)
                continue
            first_label, first = union[target]
            for name in ("backend", "version", "options"):
                if first.get(name) != entry.get(name):
                    raise MergeError(
                        f"target {target} differs between {first_label} ({name} {first.get(name)!r}) and "
                        f"{label} ({name} {entry.get(name)!r}); results of differently configured "
                        f"backends are not one run"
                    )
    return [entry for _, entry in union.values()]


def _verdict(result: Mapping[str, Any]) -> dict[str, Any]:
    """What was judged: the result without its incidental fields (see _INCIDENTAL)."""
    verdict = {name: value for name, value in result.items() if name not in _INCIDENTAL}
    actual = dict(verdict.get("actual") or {})
    if isinstance(actual.get("raised"), dict):
        actual["raised"] = {key: value for key, value in actual["raised"].items() if key != "message"}
    verdict["actual"] = actual
    return verdict


def _results(
    labels: Sequence[str], documents: Sequence[JSON], prefer_last: bool
) -> tuple[list[tuple[JSON, int]], int]:
    """Each result kept, with the index of the document it comes from; and the duplicate count."""
    by_key: dict[str, tuple[JSON, int]] = {}
    duplicates = 0
    for number, (label, document) in enumerate(zip(labels, documents, strict=True)):
        for result in document.get("results", []):
            key = _key(result)
            if key in by_key:
                duplicates += 1
                first, first_number = by_key[key]
                first_label = labels[first_number]
                if not prefer_last and _verdict(first) != _verdict(result):
                    raise MergeError(
                        f"{key} is in {first_label} ({first['status']}) and in {label} "
                        f"({result['status']}) with different verdicts; pass --prefer-last to take "
                        f"the later file's"
                    )
            by_key[key] = (result, number)
    return list(by_key.values()), duplicates


def _order(
    documents: Sequence[JSON], adapters: Sequence[JSON]
) -> Callable[[tuple[JSON, int]], tuple[Any, ...]]:
    """The sort key giving the runner's job order: target, then case in suite order, then op.

    A case's place in the suite is its file's place in the suite's file list, then its line;
    each result is placed by its own document's list, as files given by another path on another
    machine (same digest) are spelled differently in locations but listed in the same order.
    """
    targets = {_target(entry): rank for rank, entry in enumerate(adapters)}
    files = [
        {name: rank for rank, name in enumerate(document.get("suite", {}).get("files", []))}
        for document in documents
    ]
    catalogue = {op: rank for rank, op in enumerate(ops.OPS)}

    def key(placed: tuple[JSON, int]) -> tuple[Any, ...]:
        result, number = placed
        target = f"{result['adapter']}/{result['route']}/{result['device']}"
        location = str((result.get("params") or {}).get("location", ""))
        name, _, line = location.rpartition(":")
        file_rank = files[number].get(name, len(files[number]))
        return (
            targets.get(target, len(targets)),
            target,  # orders targets no adapters entry describes
            file_rank,
            int(line) if line.isdigit() and file_rank < len(files[number]) else 0,
            result["case"],  # two cases written on one line: by id
            catalogue.get(result["op"], len(catalogue)),
            result["op"],
        )

    return key


def _time(label: str, run: Mapping[str, Any], name: str) -> datetime.datetime:
    try:
        moment = datetime.datetime.fromisoformat(str(run.get(name)))
    except ValueError:
        raise MergeError(f"{label}: run.{name} {run.get(name)!r} is not an ISO 8601 time") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=datetime.timezone.utc)


def _runs(labels: Sequence[str], documents: Sequence[JSON]) -> list[JSON]:
    """One entry per merged run; an input that is itself a merge contributes its own entries."""
    entries: list[JSON] = []
    for label, document in zip(labels, documents, strict=True):
        run = document.get("run", {})
        if run.get("merged"):
            entries.extend(run["merged"])
            continue
        selection = run.get("selection") or {}
        entries.append(
            {
                "path": label,
                "host": run.get("host") or {},
                "python": run.get("python"),
                "command": run.get("command") or [],
                "shard": selection.get("shard"),
                "selection": selection,
                "targets": [_target(entry) for entry in document.get("adapters", [])],
                "start": run.get("start"),
                "end": run.get("end"),
                "wall_s": run.get("wall_s"),
                "interrupted": bool(run.get("interrupted")),
                "results": len(document.get("results", [])),
                "memcpy": run.get("memcpy") or [],
            }
        )
    return entries


def _common(values: Sequence[Any]) -> Any:
    return values[0] if values and all(value == values[0] for value in values) else None


def _host(hosts: Sequence[Mapping[str, Any]]) -> JSON:
    """The machine, or where several: the fields they share and every hostname."""
    if _common(hosts) is not None:
        return dict(hosts[0])
    shared = {name: value for name, value in hosts[0].items() if all(h.get(name) == value for h in hosts)}
    names = sorted({str(h.get("hostname")) for h in hosts})
    return {**shared, "hostname": f"{len(names)} hosts: {', '.join(names)}" if len(names) > 1 else names[0]}


def _memcpy(entries: Sequence[JSON]) -> list[JSON]:
    """Per buffer size, the median of the runs' memory-copy baselines."""
    speeds: dict[int, list[float]] = defaultdict(list)
    for entry in entries:
        for measured in entry.get("memcpy") or []:
            speeds[int(measured["bytes"])].append(float(measured["gbps"]))
    return [
        {"bytes": size, "gbps": round(statistics.median(gbps), 3)} for size, gbps in sorted(speeds.items())
    ]


def _run(labels: Sequence[str], documents: Sequence[JSON], command: Sequence[str]) -> JSON:
    runs = [document.get("run", {}) for document in documents]
    starts = [_time(label, run, "start") for label, run in zip(labels, runs, strict=True)]
    ends = [_time(label, run, "end") for label, run in zip(labels, runs, strict=True)]
    entries = _runs(labels, documents)
    selections = [
        {k: v for k, v in (entry.get("selection") or {}).items() if k != "shard"} for entry in entries
    ]
    body: JSON = {
        "start": runs[starts.index(min(starts))]["start"],
        "end": runs[ends.index(max(ends))]["end"],
        "host": _host([entry["host"] for entry in entries]),
        "python": ", ".join(sorted({str(entry.get("python") or "?") for entry in entries})),
        "command": list(command),
        # the merged runs' wall times added up: their cost, which the start-to-end span of
        # parallel shards hides
        "wall_s": round(sum(float(entry.get("wall_s") or 0) for entry in entries), 3),
        "interrupted": any(entry["interrupted"] for entry in entries),
        "selection": {**(_common(selections) or {}), "shard": None},
        "memcpy": _memcpy(entries),
        "merged": entries,
    }
    for name in _COMMON_RUN_FIELDS:
        value = _common([run.get(name) for run in runs])
        if value is not None:
            body[name] = value
    return body


def _incomplete(entries: Sequence[JSON]) -> list[str]:
    """Missing shards (per group of runs with the same targets and selection) and interrupted runs."""
    problems = [
        f"{entry['path']} was interrupted: some of its results are missing"
        for entry in entries
        if entry["interrupted"]
    ]
    groups: dict[tuple[str, ...], dict[int, set[int]]] = defaultdict(lambda: defaultdict(set))
    for entry in entries:
        shard = entry.get("shard")
        if not shard:
            continue
        part, _, whole = str(shard).partition("/")
        selection = {k: v for k, v in (entry.get("selection") or {}).items() if k != "shard"}
        group = (repr(sorted(selection.items())), *entry.get("targets", []))
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
    documents: Sequence[JSON],
    labels: Sequence[str] | None = None,
    prefer_last: bool = False,
    command: Sequence[str] = (),
) -> Merged:
    """One results document from ``documents`` (parsed results files, labelled by ``labels``)."""
    if not documents:
        raise MergeError("no results files to merge")
    names = list(labels) if labels else [f"document {number + 1}" for number in range(len(documents))]
    _check_shapes(names, documents)
    _check_suites(names, documents)
    adapters = _adapters(names, documents)
    placed, duplicates = _results(names, documents, prefer_last)
    results = [result for result, _ in sorted(placed, key=_order(documents, adapters))]
    suite = dict(documents[0]["suite"])
    run = _run(names, documents, command)
    document = {
        "schema": results_file.SCHEMA,
        "suite": suite,
        "run": run,
        "adapters": adapters,
        "results": results,
    }
    return Merged(document, duplicates, _incomplete(run["merged"]))


def results(merged: Merged) -> list[Result]:
    """The merged results as :class:`Result` objects (for JUnit and the console summary)."""
    return [Result.from_json(body) for body in merged.document["results"]]


def validate(document: JSON, label: str = "the merged document") -> None:
    """MergeError unless ``document`` satisfies the results file's JSON Schema."""
    validator = jsonschema.Draft202012Validator(results_file.schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        raise MergeError(f"{label} does not fit the results schema at {where}: {error.message}")


def write(
    paths: Sequence[Path], out_dir: Path, prefer_last: bool = False, command: Sequence[str] = ()
) -> tuple[Merged, list[Path]]:
    """Merge the results files at ``paths`` into ``out_dir``: results.json, junit.xml, index.html."""
    try:
        documents = read_documents(paths)
    except ReportError as error:
        raise MergeError(str(error)) from None
    merged = merge(documents, [str(path) for path in paths], prefer_last, command)
    validate(merged.document)
    out = out_dir / results_file.FILE_NAME
    if any(out.resolve() == Path(path).resolve() for path in paths):
        raise MergeError(f"{out} is one of the files being merged; choose another output directory")
    results_file.write(out, merged.document)
    junit.write(out_dir / "junit.xml", results(merged))
    try:
        page = report.write([out], out_dir / "index.html")
    except ReportError as error:
        raise MergeError(f"{out} is written, but not its report: {error}") from None
    return merged, [out, out_dir / "junit.xml", page]
