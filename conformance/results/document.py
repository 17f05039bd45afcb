"""The results file (``reports/results.json``), a contract: the only module that reads or writes it.

Readers go through :func:`read_document` or :func:`read`, which check the document first, so a
broken or foreign file is reported once, naming the file and the place in it, never later as a
KeyError. Files are written atomically, so a crash never leaves half a file.
"""

from __future__ import annotations

import gc
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any, TypeAlias, cast

import jsonschema

from conformance import ids
from conformance import schema as schemas
from conformance.errors import EnvironmentFailure, ResultsFileError, UsageError, machine_failure
from conformance.results.findings import findings
from conformance.results.records import (
    SCHEMA_NAME,
    SCHEMA_NAMES,
    ResultRecord,
    ResultsDocument,
    RunInfoRecord,
    SuiteRecord,
    TargetRecord,
)
from conformance.results.result import Result

FILE_NAME = "results.json"


def schema() -> dict[str, Any]:
    """The JSON Schema of the results file."""
    return schemas.load("results")


#: runs of surrogate escapes: the bytes of a name the operating system handed over undecoded
_ESCAPED = re.compile("[\udc80-\udcff]+")


def utf8(text: str) -> bytes:
    """``text`` as UTF-8 for a file, in any locale. Where the locale is not UTF-8 (``LC_ALL=C``),
    Python hands over a path or an argument holding ``ü`` as surrogate escapes of its bytes, which
    UTF-8 cannot encode: those are written as the characters their bytes spell (U+FFFD where they
    spell none), and any other lone surrogate as ``?``. Text without one takes the fast path."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        spelled = _ESCAPED.sub(
            lambda run: run.group().encode("utf-8", "surrogateescape").decode("utf-8", "replace"), text
        )
        return spelled.encode("utf-8", "replace")


def write_atomically(path: Path, text: str | bytes) -> None:
    """Replace ``path`` with ``text`` (bytes: UTF-8 already) in one step. Where it cannot: a
    UsageError for a path that cannot be one (a file where a folder should be), EnvironmentFailure
    where the machine refuses (read-only, full, no permission), as every verb exits on that."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_dir():
            raise UsageError(f"{path}: is a directory; name a file to write")
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as error:
        said = f"{path}: cannot be written: {error.strerror or error}"
        raise (EnvironmentFailure if machine_failure(error) else UsageError)(said) from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(text if isinstance(text, bytes) else utf8(text))
            stream.flush()
            os.fsync(stream.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp makes it private; results are meant to be shared
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def assemble(
    suite: SuiteRecord, run: RunInfoRecord, adapters: list[TargetRecord], records: list[ResultRecord]
) -> ResultsDocument:
    """The document of ``records``, with their findings."""
    return {
        "schema": SCHEMA_NAME,
        "suite": suite,
        "run": run,
        "adapters": adapters,
        "results": records,
        "findings": findings(records),
    }


def write(path: Path, body: Mapping[str, Any]) -> None:
    """Write a results document (or a certificate: the same JSON conventions) atomically."""
    write_atomically(path, encoded(body))


def encoded(body: Mapping[str, Any]) -> bytes:
    """The document as UTF-8, diffable: one top-level key per line, and each element of a
    top-level list (a result, a finding) on a line of its own. No ``indent``, which would make json
    use its slow pure-Python encoder; lines are joined as bytes, since as text one character beyond
    the Basic Multilingual Plane would make the whole string four bytes a character. A NaN or an
    infinity is refused (ValueError), never written as ``NaN``, which is not JSON."""
    encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=False)

    def value(item: Any) -> bytes:
        if isinstance(item, list) and item:
            rows = [b"  " + utf8(encoder.encode(element)) for element in item]
            return b"[\n" + b",\n".join(rows) + b"\n ]"
        return utf8(encoder.encode(item))

    lines = [b" " + utf8(encoder.encode(key)) + b": " + value(item) for key, item in body.items()]
    return b"{\n" + b",\n".join(lines) + b"\n}\n"


@contextmanager
def no_gc() -> Iterator[None]:
    """Cyclic garbage collection paused: the passes that a results file's many small dicts trigger
    cost more than parsing them."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


class _Mismatch(Exception):
    """Where the structure breaks: the path inside the document (built while unwinding) and why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.path: list[str] = []


#: Item types whose arrays are checked in one pass (bool is not an int here, as in JSON).
_SCALAR_ITEMS: dict[object, type] = {"integer": int, "string": str}


@cache
def _resolve(pointer: str) -> Mapping[str, Any]:
    """The schema node a local ``$ref`` (``#/$defs/result/properties/expected``) points at."""
    node: Any = schema()
    for part in pointer.removeprefix("#/").split("/"):
        node = node[part]
    resolved: Mapping[str, Any] = node
    return resolved


#: Raises _Mismatch where a value breaks the structure one schema node declares.
_Checker: TypeAlias = Callable[[Any], None]
#: each node's checker, by the node's identity (the node is kept with it, so its identity is not reused)
_checkers: dict[int, tuple[Mapping[str, Any], _Checker]] = {}


def _checker(node: Mapping[str, Any]) -> _Checker:
    """The check of ``node``, made once per node rather than per value: types, required keys, the
    keys' own schemas, array items, enums and constants, not patterns or bounds (:func:`validate`)."""
    held = _checkers.get(id(node))
    if held is None or held[0] is not node:
        held = _checkers[id(node)] = (node, _make_checker(node))
    return held[1]


def _make_checker(node: Mapping[str, Any]) -> _Checker:
    if "$ref" in node:
        target = _resolve(node["$ref"])
        return lambda value: _checker(target)(value)
    kinds = node.get("type")
    listed = [kinds] if isinstance(kinds, str) else kinds or []
    allowed = tuple(kind for name in listed for kind in _JSON_TYPES[name]) if listed else None
    names = " or ".join(listed)
    bool_allowed = allowed is None or bool in allowed
    has_const, const = "const" in node, node.get("const")
    enum = node.get("enum")
    members = _Members(node)

    def check(value: Any) -> None:
        if allowed is not None and (
            not isinstance(value, allowed) or (not bool_allowed and value.__class__ is bool)
        ):
            raise _Mismatch(f"is a JSON {_json_name(value)}, not {names}")
        if has_const and value != const:
            raise _Mismatch(f"is {value!r}, not {const!r}")
        if enum is not None and value not in enum:
            raise _Mismatch(f"{value!r} is none of {', '.join(map(str, enum))}")
        if members.asks and value.__class__ in (dict, list):
            members.check(value)

    return check


class _Members:
    """What a node asks of an object's keys or an array's items; the children's checks are made on
    the first value (they may refer back to the node)."""

    def __init__(self, node: Mapping[str, Any]) -> None:
        self.node = node
        self.required = tuple(node.get("required", ()))
        items = node.get("items")
        kind = items.get("type") if items is not None else None
        one_kind = items is not None and len(items) == 1 and isinstance(kind, str)
        self.scalar = _SCALAR_ITEMS.get(kind) if one_kind else None
        extra = isinstance(node.get("additionalProperties"), dict)
        self.asks = bool(self.required or node.get("properties") or extra or items is not None)
        self.children: _Children | None = None

    def check(self, value: dict[str, Any] | list[Any]) -> None:
        children = self.children = self.children or _Children(self.node)
        key: str | int = ""
        try:
            if isinstance(value, dict):
                missing = [name for name in self.required if name not in value]
                if missing:
                    raise _Mismatch(f"lacks {', '.join(missing)}")
                for key, types, check in children.properties:
                    if key in value:
                        found = value[key]
                        if types is None or not isinstance(found, types) or found.__class__ is bool:
                            check(found)  # a structure, or a mismatch to describe
                if children.extra is not None:
                    for key in value:
                        children.extra(value[key])
            elif children.items is not None:
                scalar = self.scalar
                if scalar is not None and all(item.__class__ is scalar for item in value):
                    return  # a shape, a list of tags: the common case, checked in one pass
                for key, item in enumerate(value):  # noqa: B007 (the except clause reads key)
                    children.items(item)
        except _Mismatch as mismatch:
            if key != "":
                mismatch.path.append(str(key))
            raise


class _Children:
    """The checks of a node's children: properties' (with inline scalar types), other keys', items'."""

    def __init__(self, node: Mapping[str, Any]) -> None:
        given = node.get("properties", {}).items()
        self.properties = [(key, _scalar(child), _checker(child)) for key, child in given]
        extra, items = node.get("additionalProperties"), node.get("items")
        self.extra = _checker(extra) if isinstance(extra, dict) else None
        self.items = _checker(items) if items is not None else None


def _scalar(node: Mapping[str, Any]) -> tuple[type, ...] | None:
    """The types of a node that gives only a scalar type, which most values meet and are checked
    against inline (bool never passes); None for any other node."""
    kinds = node.get("type")
    names = [kinds] if isinstance(kinds, str) else kinds or []
    if not set(node) <= {"type", "description"} or not names or {"object", "array"} & set(names):
        return None
    return tuple(kind for name in names for kind in _JSON_TYPES[name] if kind is not bool)


def _json_name(value: Any) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number")


def _structure_problem(value: Any, node: Mapping[str, Any], whole: str) -> str | None:
    """Where and how ``value`` breaks ``node`` (``whole`` names the top), or None."""
    try:
        _checker(node)(value)
    except _Mismatch as mismatch:
        return f"{'/'.join(reversed(mismatch.path)) or whole} {mismatch.reason}"
    return None


def _problem(body: Any) -> str | None:
    """What keeps ``body`` from being a results document of this schema, or None."""
    if isinstance(body, dict) and body.get("schema") not in SCHEMA_NAMES:
        return f"not a results file of schema {' or '.join(SCHEMA_NAMES)} (got {body.get('schema')!r})"
    return _structure_problem(body, schema(), "the file")


_RESULT: Mapping[str, Any] = {"$ref": "#/$defs/result"}


def result_problem(record: Any) -> str | None:
    """What keeps ``record`` from being one result of the schema (a journal line), or None."""
    try:
        return _structure_problem(record, _RESULT, "the result")
    except RecursionError:
        return "the result is nested too deeply"


def read_document(path: Path) -> ResultsDocument:
    """The results document at ``path``; ResultsFileError naming the file for anything else."""
    try:
        with no_gc():
            body = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ResultsFileError(f"{path}: cannot read a results file: {error.strerror or error}") from None
    except ValueError as error:  # JSON or UTF-8
        raise ResultsFileError(f"{path}: not a results file (not JSON: {error})") from None
    except RecursionError:
        raise ResultsFileError(f"{path}: not a results file (nested too deeply to read)") from None
    try:
        problem = _problem(body)
    except RecursionError:
        problem = "is nested too deeply to be a results file"
    if problem is None:
        problem = _duplicated(body["results"])
    if problem is not None:
        raise ResultsFileError(f"{path}: {problem}")
    return cast(ResultsDocument, body)


def _duplicated(results: Sequence[ResultRecord]) -> str | None:
    """The first result ``results`` hold twice (by :func:`conformance.ids.record_key`, the identity
    ``merge`` matches files' results on), or None. A file holds one result per item and target:
    of two, every reader would keep the one its order favours (a planted fail passed a diff)."""
    seen: dict[str, int] = {}
    for number, result in enumerate(results):
        key = ids.record_key(result)
        if key in seen:
            first = results[seen[key]]
            return (
                f"holds the result {key} twice (results {seen[key] + 1} and {number + 1}, "
                f"{first['status']} and {result['status']}); a results file holds each result once"
            )
        seen[key] = number
    return None


#: the most a results file's entries before its results may take (a few KB in practice)
HEAD_LIMIT = 4 << 20


def read_head(path: Path) -> dict[str, Any] | None:
    """The top-level entries before the results (schema, suite, run, adapters), read line by line as
    :func:`encoded` writes them; None when ``path`` is no such file (a caller then reads it whole)."""
    lines: list[bytes] = []
    size = 0
    try:
        with path.open("rb") as stream:
            if stream.readline().strip() != b"{":
                return None
            for line in stream:
                if line.startswith((b' "results": ', b' "findings": ')):
                    break
                lines.append(line)
                size += len(line)
                if size > HEAD_LIMIT:
                    return None
    except OSError:
        return None
    try:
        head = json.loads(b"{" + b"".join(lines).rstrip().rstrip(b",") + b"}")
    except (ValueError, RecursionError):
        return None
    return head if isinstance(head, dict) and head.get("schema") in SCHEMA_NAMES else None


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
