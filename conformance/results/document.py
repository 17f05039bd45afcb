"""The results file (``reports/results.json``), a contract: schema "conformance.results/1".

Written atomically (a temporary file renamed over the old one), so a reader never sees half a
file and a crash never destroys the previous one. Its JSON Schema ships in the package.
"""

from __future__ import annotations

import json
import os
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

from conformance.results.result import JSON, Result

SCHEMA = "conformance.results/1"
FILE_NAME = "results.json"


def schema() -> JSON:
    """The JSON Schema of the results file."""
    text = resources.files("conformance").joinpath("schema/results.schema.json").read_text(encoding="utf-8")
    document: JSON = json.loads(text)
    return document


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


def document(suite: JSON, run: JSON, adapters: list[JSON], results: list[Result]) -> JSON:
    return {
        "schema": SCHEMA,
        "suite": suite,
        "run": run,
        "adapters": adapters,
        "results": [result.to_json() for result in results],
    }


def write(path: Path, body: JSON) -> None:
    write_atomically(path, json.dumps(body, indent=1, ensure_ascii=False) + "\n")


def read(path: Path) -> tuple[JSON, list[Result]]:
    """The document and its results; raises ValueError for a file of another schema."""
    body: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    if body.get("schema") != SCHEMA:
        raise ValueError(f"{path}: not a results file of schema {SCHEMA} (got {body.get('schema')!r})")
    return body, [Result.from_json(item) for item in body.get("results", [])]
