"""The results file (``reports/results.json``), a contract: schema "conformance.results/1".

This module is the only one that reads or writes it; every consumer (the report, merge, diff,
the version comparison, certification) reads through :func:`read_document` or :func:`read`,
which check the document before anyone looks inside it, so a broken or foreign file is
reported once, naming the file and the place in it, and never surfaces later as a KeyError.
The document's Python shape is :class:`conformance.results.records.ResultsDocument`; its JSON
Schema ships in the package (:func:`schema`).

Files are written atomically (a temporary file renamed over the old one), so a reader never
sees half a file and a crash never destroys the previous one.
"""

from __future__ import annotations

import gc
import json
import os
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import jsonschema

from conformance import schema as schemas
from conformance.errors import ResultsFileError
from conformance.results.records import (
    SCHEMA_NAME,
    ResultsDocument,
    RunRecord,
    SuiteRecord,
    TargetRecord,
)
from conformance.results.result import Result
from conformance.statuses import STATUSES

SCHEMA = SCHEMA_NAME
FILE_NAME = "results.json"


def schema() -> dict[str, Any]:
    """The JSON Schema of the results file."""
    return schemas.load("results")


def write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` in one step."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp makes it private; results are meant to be shared
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def build(
    suite: SuiteRecord, run: RunRecord, adapters: list[TargetRecord], results: Sequence[Result]
) -> ResultsDocument:
    """The document of one run."""
    return {
        "schema": SCHEMA,
        "suite": suite,
        "run": run,
        "adapters": adapters,
        "results": [result.to_json() for result in results],
    }


def write(path: Path, body: Mapping[str, Any]) -> None:
    """Write a results document (or a certificate: the same JSON conventions) atomically."""
    write_atomically(path, json.dumps(body, indent=1, ensure_ascii=False) + "\n")


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


def _problem(body: Any) -> str | None:
    """What keeps ``body`` from being a results document, checked key by key where readers rely on
    it (the full JSON Schema check, :func:`validate`, is thorough but too slow for every read)."""
    if not isinstance(body, dict):
        return f"the file holds a JSON {type(body).__name__}, not an object"
    if body.get("schema") != SCHEMA:
        return f"not a results file of schema {SCHEMA} (got {body.get('schema')!r})"
    spec = schema()
    for part, names in (
        ("", spec["required"]),
        ("suite", spec["properties"]["suite"]["required"]),
        ("run", spec["properties"]["run"]["required"]),
    ):
        value = body.get(part) if part else body
        if not isinstance(value, dict):
            return f"{part} is not an object"
        missing = [name for name in names if name not in value]
        if missing:
            return f"{part or 'the file'} lacks {', '.join(missing)}"
    for name in ("adapters", "results"):
        if not isinstance(body[name], list) or not all(isinstance(entry, dict) for entry in body[name]):
            return f"{name} is not a list of objects"
    per_target = spec["properties"]["adapters"]["items"]["required"]
    for number, entry in enumerate(body["adapters"]):
        missing = [name for name in per_target if name not in entry]
        if missing:
            return f"adapters/{number} lacks {', '.join(missing)}"
    per_result = spec["$defs"]["result"]["required"]
    for number, result in enumerate(body["results"]):
        missing = [name for name in per_result if name not in result]
        if missing:
            return f"results/{number} lacks {', '.join(missing)}"
        if result["status"] not in STATUSES:
            return f"results/{number}/status {result['status']!r} is none of {', '.join(STATUSES)}"
        for name in ("params", "expected", "actual", "timing"):
            if not isinstance(result[name], dict):
                return f"results/{number}/{name} is not an object"
    return None


def read_document(path: Path) -> ResultsDocument:
    """The results document at ``path``; ResultsFileError naming the file for anything else."""
    try:
        with no_gc():
            body = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ResultsFileError(f"{path}: cannot read a results file: {error.strerror or error}") from None
    except ValueError as error:  # JSON or UTF-8
        raise ResultsFileError(f"{path}: not a results file (not JSON: {error})") from None
    problem = _problem(body)
    if problem is not None:
        raise ResultsFileError(f"{path}: {problem}")
    return cast(ResultsDocument, body)


def read_documents(paths: Sequence[Path]) -> list[ResultsDocument]:
    return [read_document(Path(path)) for path in paths]


def read(path: Path) -> tuple[ResultsDocument, list[Result]]:
    """The document and its results as :class:`Result` objects."""
    body = read_document(path)
    try:
        return body, [Result.from_json(item) for item in body["results"]]
    except (KeyError, TypeError, ValueError) as error:
        raise ResultsFileError(f"{path}: a result cannot be read ({type(error).__name__}: {error})") from None


def validate(document: Mapping[str, Any], label: str = "the document") -> None:
    """ResultsFileError unless ``document`` satisfies the results file's JSON Schema in full."""
    validator = jsonschema.Draft202012Validator(schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        raise ResultsFileError(f"{label} does not fit the results schema at {where}: {error.message}")
