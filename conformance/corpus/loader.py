"""Loading case files into :class:`~conformance.corpus.case.Case` objects, or saying exactly what is wrong.

Case files are edited by hand, so every error names the file, the line and the case, and a run
reports every problem of every file at once. Values are kept as written: an axis of 7 on a rank-2
tensor is a legitimate test input, and rejecting it is the reference's job.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import math
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from conformance.corpus import catalogue, fill, slice_keys
from conformance.corpus.case import (
    FORM_KINDS,
    Case,
    CaseRun,
    DataSpec,
    Expect,
    Form,
    GraphSpec,
    InputPlacement,
    Location,
    OutputExpect,
    Request,
    SplitArguments,
)
from conformance.corpus.case_schema import schema_problems
from conformance.corpus.yaml_source import YamlDocument, YamlPath, read_yaml
from conformance.errors import CorpusError

_NESTED = ("data", "graph", "expect")


class CaseFileError(CorpusError):
    """One problem in one case file, located as precisely as the file allows."""

    def __init__(self, file: str, line: int | None, message: str, case_id: str | None = None) -> None:
        super().__init__(file, line, message, case_id)
        self.file = file
        self.line = line
        self.message = message
        self.case_id = case_id

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        case = f" case {self.case_id!r}:" if self.case_id else ""
        return f"{where}:{case} {self.message}"


class CaseFileErrors(CorpusError):
    """Every problem found while loading, so that one run shows them all."""

    def __init__(self, errors: list[CaseFileError]) -> None:
        super().__init__(errors)
        self.errors = errors

    def __str__(self) -> str:
        count = f"{len(self.errors)} error{'s' if len(self.errors) != 1 else ''} in case files"
        return "\n".join([*(str(error) for error in self.errors), count])


@dataclass(frozen=True)
class Suite:
    """The loaded cases and a digest of the files they came from, so two runs can tell whether they
    used the same corpus; ``case_digests`` tells it case by case (:func:`case_digest`, by id; empty
    for a suite not loaded from files), so ``run --resume`` after an edit reruns only changed cases."""

    cases: tuple[Case, ...]
    files: tuple[str, ...]
    digest: str
    case_digests: Mapping[str, str] = field(default_factory=dict)

    @cached_property
    def _by_id(self) -> dict[str, Case]:
        return {case.id: case for case in self.cases}

    def by_id(self, case_id: str) -> Case:
        """The case with this id; KeyError (with close matches) when there is none."""
        try:
            return self._by_id[case_id]
        except KeyError:
            close = difflib.get_close_matches(case_id, list(self._by_id), n=3)
            hint = f" (did you mean {', '.join(map(repr, close))}?)" if close else ""
            raise KeyError(f"no case {case_id!r}{hint}") from None


def load_file(path: Path | str) -> list[Case]:
    """The cases of one file; raises CaseFileErrors listing every problem in it."""
    return list(load_paths([path]).cases)


def load_text(text: str, file: str) -> list[Case]:
    """The cases of a YAML document held in memory (``conformance explore``'s requests), named
    ``file`` in errors; raises CaseFileErrors like :func:`load_paths`."""
    document = _parse(file, text.encode("utf-8"))
    if isinstance(document, CaseFileError):
        raise CaseFileErrors([document])
    loaded = _FileLoader(file, document, {})
    if loaded.errors:
        raise CaseFileErrors(loaded.errors)
    return loaded.cases


def load_paths(paths: Iterable[Path | str]) -> Suite:
    """The cases of every file named and every ``*.yaml`` / ``*.yml`` under each directory, in the
    order given and sorted path order (never the file system's); ids unique across all files.
    Raises CaseFileErrors after reading every file."""
    errors: list[CaseFileError] = []
    seen_ids: dict[str, Location] = {}
    seen_files: set[Path] = set()
    cases: list[Case] = []
    files: list[str] = []
    digest_items: list[tuple[str, bytes]] = []
    case_digests: dict[str, str] = {}
    for given in paths:
        for file, relative in _expand(Path(given), errors):
            if file.resolve() in seen_files:
                continue
            seen_files.add(file.resolve())
            display = file.as_posix()
            files.append(display)
            try:
                content = file.read_bytes()
            except OSError as exc:
                errors.append(CaseFileError(display, None, f"cannot read: {exc.strerror or exc}"))
                continue
            digest_items.append((relative, content))
            document = _parse(display, content)
            if isinstance(document, CaseFileError):
                errors.append(document)
                continue
            loaded = _FileLoader(display, document, seen_ids)
            cases.extend(loaded.cases)
            case_digests.update(loaded.digests)
            errors.extend(loaded.errors)
    if errors:
        raise CaseFileErrors(errors)
    return Suite(tuple(cases), tuple(files), _digest(digest_items), case_digests)


#: Directories under a case directory that hold other YAML: certification profiles (``cases/profiles/``).
NOT_CASE_DIRECTORIES = frozenset({"profiles"})


def _expand(path: Path, errors: list[CaseFileError]) -> Iterator[tuple[Path, str]]:
    """The case files a path names, each with its path relative to the root given (for the digest)."""
    if path.is_dir():
        unreadable: list[str] = []
        found = sorted(
            (
                p
                for p in _walk(path, unreadable)
                if p.suffix in (".yaml", ".yml")
                and p.is_file()
                and not NOT_CASE_DIRECTORIES.intersection(p.relative_to(path).parts[:-1])
            ),
            key=lambda p: p.relative_to(path).as_posix(),
        )
        for where in unreadable:
            errors.append(CaseFileError(where, None, "cannot read this directory (permission denied?)"))
        if not found and not unreadable:
            errors.append(
                CaseFileError(path.as_posix(), None, "no *.yaml or *.yml case files in this directory")
            )
        for file in found:
            yield file, file.relative_to(path).as_posix()
    elif path.exists():
        yield path, path.name
    else:
        errors.append(CaseFileError(path.as_posix(), None, "no such file or directory"))


def _walk(root: Path, unreadable: list[str]) -> Iterator[Path]:
    """Every file under ``root``; a directory that cannot be listed goes to ``unreadable``
    (``Path.rglob`` would skip it silently, making a permission problem look like an empty corpus)."""
    for directory, _, files in os.walk(root, onerror=lambda error: unreadable.append(str(error.filename))):
        for name in files:
            yield Path(directory) / name


def _digest(items: list[tuple[str, bytes]]) -> str:
    """sha256 over the sorted (relative path, content) pairs, each part length-prefixed."""
    digest = hashlib.sha256()
    for name, content in sorted(items):
        encoded = name.encode()
        for part in (encoded, content):
            digest.update(len(part).to_bytes(8, "big"))
            digest.update(part)
    return f"sha256:{digest.hexdigest()}"


def case_digest(merged: Mapping[str, Any]) -> str:
    """A digest of one merged case (:func:`_merge`): of its content, not its text, so comments,
    style and key order change nothing, nor does anything else its file gains."""
    text = json.dumps(merged, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _parse(file: str, content: bytes) -> YamlDocument | CaseFileError:
    """The file's YAML document, or the one error that stops it from being read at all."""
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as exc:
        return CaseFileError(file, content[: exc.start].count(b"\n") + 1, f"not UTF-8 text ({exc.reason})")
    try:
        document = read_yaml(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        context = ""
        if exc.context:
            start = exc.context_mark
            started = f" started at line {start.line + 1}" if start is not None and start is not mark else ""
            context = f" ({exc.context}{started})"
        line = mark.line + 1 if mark is not None else None
        return CaseFileError(file, line, f"YAML error: {exc.problem}{context}")
    except yaml.YAMLError as exc:  # a ReaderError (a character YAML forbids) has a position, no mark
        position = getattr(exc, "position", None)
        line = text[:position].count("\n") + 1 if isinstance(position, int) else None
        return CaseFileError(file, line, f"YAML error: {exc}")
    if document.data is None:
        return CaseFileError(file, 1, "the file is empty: expected a mapping with 'cases:'")
    if not isinstance(document.data, dict):
        kind = type(document.data).__name__
        return CaseFileError(file, document.line(()), f"expected a mapping with 'cases:', got a {kind}")
    return document


class _FileLoader:
    """Loads one parsed file's cases and collects its errors (never raises for a problem in the file).
    Cases the schema found broken are not built; every other case is, so its problems show too."""

    def __init__(self, file: str, document: YamlDocument, seen_ids: dict[str, Location]) -> None:
        self.file = file
        self.errors: list[CaseFileError] = []
        self.cases: list[Case] = []
        self.digests: dict[str, str] = {}
        self._doc = document
        self._seen_ids = seen_ids
        self._load(document.data)
        self.errors.sort(key=lambda error: error.line or 0)

    def _load(self, data: dict[Any, Any]) -> None:
        for duplicate in self._doc.duplicates:
            message = f"key {duplicate.key!r} given twice (first at line {duplicate.first_line})"
            self._error(duplicate.path, message, line=duplicate.line)
        blocked: set[int | None] = set()  # cases the schema found broken; None: the whole file
        for problem in schema_problems(data):
            self._error(problem.path, problem.message, key=problem.at_key)
            blocked.add(_case_index(problem.path))
        raw_cases = data.get("cases")
        if not isinstance(raw_cases, list):
            return
        defaults = data.get("defaults") or {}
        for index, raw in enumerate(raw_cases):
            if not isinstance(raw, dict):
                continue
            if isinstance(raw.get("id"), str):
                self._check_unique(raw["id"], index)
            if None in blocked or index in blocked:
                continue
            merged = _merge(defaults, raw)
            digest = case_digest(merged)  # before the builder reads it
            case = _CaseBuilder(self, index, merged).build()
            if case is not None:
                self.cases.append(case)
                self.digests[case.id] = digest

    def _check_unique(self, case_id: str, index: int) -> None:
        here = Location(self.file, self.line(("cases", index)) or 0)
        first = self._seen_ids.get(case_id)
        if first is None:
            self._seen_ids[case_id] = here
        else:
            self._error(("cases", index, "id"), f"duplicate id {case_id!r} (first defined at {first})")

    def line(self, path: YamlPath, *, key: bool = False) -> int | None:
        """The line of a path; a case's key missing from the case is looked up in defaults."""
        lines = self._doc.lines
        if path not in lines and len(path) > 2 and path[0] == "cases":
            from_defaults = ("defaults", *path[2:])
            if from_defaults in lines:
                return self._doc.line(from_defaults, key=key)
        return self._doc.line(path, key=key)

    def _error(self, path: YamlPath, message: str, *, key: bool = False, line: int | None = None) -> None:
        index = _case_index(path)
        case_id = None
        if index is not None:
            raw = self._doc.data["cases"][index]
            found = raw.get("id") if isinstance(raw, dict) else None
            case_id = found if isinstance(found, str) else None
        where = line if line is not None else self.line(path, key=key)
        self.errors.append(CaseFileError(self.file, where, message, case_id))


def _form_value(value: int | list[int]) -> int | tuple[int, ...]:
    """A form's value as the case model holds it: lists become tuples."""
    return tuple(value) if isinstance(value, list) else value


def _split_run_problems(
    raw: Mapping[str, Any], request: SplitArguments, graph: GraphSpec
) -> list[tuple[str, str]]:
    """Why a run's Split keys cannot change the built model, as (key, message)."""
    problems = []
    if "axis" in raw and not graph.runtime("axis"):
        problems.append(
            (
                "axis",
                "the axis is a constant of the model; feed it with graph.inputs: runtime or {axis: runtime}",
            )
        )
    form = request.form
    for kind in FORM_KINDS:
        if kind not in raw:
            continue
        if kind != form.kind:
            problems.append(
                (kind, f"the case asks for '{form.kind}'; a run changes its values, not its form")
            )
        elif not graph.runtime("lengths"):
            problems.append(
                (
                    kind,
                    f"the {kind} are constants of the model; feed them with graph.inputs: runtime "
                    "or {lengths: runtime}",
                )
            )
        elif isinstance(form.value, tuple) and len(raw[kind]) != len(form.value):
            problems.append(
                (
                    kind,
                    f"{len(raw[kind])} values where the case gives {len(form.value)}: "
                    "the count fixes the model's outputs",
                )
            )
    return problems


def _run_request(raw: Mapping[str, Any], request: Request) -> Request:
    """The case's request with a run's new values."""
    if not isinstance(request, SplitArguments):
        return slice_keys.run_arguments(raw, request)
    form = request.form
    run_form = Form(form.kind, _form_value(raw[form.kind])) if form.kind in raw else form
    return SplitArguments(raw.get("axis", request.axis), run_form)


def _case_index(path: YamlPath) -> int | None:
    """The index of the case a path lies in, or None when it is outside every case."""
    if len(path) >= 2 and path[0] == "cases" and isinstance(path[1], int) and not isinstance(path[1], bool):
        return path[1]
    return None


def _merge(defaults: Mapping[str, Any], case: Mapping[str, Any]) -> dict[str, Any]:
    """A case with its file's defaults: the case's keys win, data/graph/expect merge key by key.
    The form and the fill are each one choice over several keys, so a case's choice replaces the
    default's whole (a case's ``parts`` drops a default ``lengths``)."""
    merged = dict(defaults)
    # a case of one family drops the other's request keys; within Slice, ends and sizes are one choice
    if any(kind in case for kind in FORM_KINDS) or slice_keys.is_slice(case):
        for kind in FORM_KINDS:
            merged.pop(kind, None)
    if any(kind in case for kind in FORM_KINDS):
        for key in slice_keys.SLICE_KEYS:
            merged.pop(key, None)
    if "ends" in case or "sizes" in case:
        merged.pop("ends", None)
        merged.pop("sizes", None)
    for key, value in case.items():
        default = merged.get(key)
        if key in _NESTED and isinstance(default, dict) and isinstance(value, dict):
            inner = dict(default)
            if key == "data" and ("fill" in value or "values" in value):
                inner.pop("fill", None)
                inner.pop("values", None)
            merged[key] = {**inner, **value}
        else:
            merged[key] = value
    return merged


class _CaseBuilder:
    """Turns one schema-valid merged case into a Case, reporting what the schema cannot check."""

    def __init__(self, owner: _FileLoader, index: int, case: dict[str, Any]) -> None:
        self._owner = owner
        self._index = index
        self._case = case
        self._ok = True

    def _error(self, subpath: YamlPath, message: str) -> None:
        self._ok = False
        self._owner._error(("cases", self._index, *subpath), message)

    def build(self) -> Case | None:
        case = self._case
        tags = tuple(case.get("tags", ()))
        if "ambiguous" in tags and not case.get("note"):
            self._error(
                ("tags",), "tag 'ambiguous' needs a 'note': why the spec admits two readings, and a link"
            )
        patterns = case.get("ops")
        for position, pattern in enumerate(patterns or ()):
            if not catalogue.match([pattern]):
                known = list(catalogue.OPS)
                close = difflib.get_close_matches(pattern, known, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else f"; known ops: {', '.join(known)}"
                self._error(("ops", position), f"ops entry {pattern!r} matches no op{hint}")
        data = self._data(case["data"])
        expect = self._expect(case["expect"]) if "expect" in case else None
        if not self._ok or data is None:
            return None
        graph_options = dict(case.get("graph", {}))
        if isinstance(graph_options.get("axis_shape"), list):
            graph_options["axis_shape"] = "[1]"
        if isinstance(graph_options.get("inputs"), dict):
            graph_options["inputs"] = InputPlacement(**graph_options["inputs"])
        graph = GraphSpec(**graph_options)
        request = self._request(case, graph)
        runs = tuple(
            run
            for number, raw in enumerate(case.get("runs", ()), start=2)
            if (run := self._case_run(number, raw, data, request, graph)) is not None
        )
        if not self._ok:
            return None
        return Case(
            id=case["id"],
            title=case["title"],
            source=case["source"],
            data=data,
            request=request,
            location=Location(self._owner.file, self._owner.line(("cases", self._index)) or 0),
            tags=tags,
            ops=tuple(patterns) if patterns is not None else None,
            graph=graph,
            expect=expect,
            note=case.get("note"),
            runs=runs,
        )

    def _request(self, case: dict[str, Any], graph: GraphSpec) -> Request:
        """The case's request, in its family's terms (the schema let exactly one family's keys in)."""
        if slice_keys.is_slice(case):
            arguments = slice_keys.slice_arguments(case)
            for key, message in slice_keys.form_problems(arguments):
                self._error((key,), message)
            return arguments
        kind = next(kind for kind in FORM_KINDS if kind in case)
        form = Form(kind, _form_value(case[kind]))
        self._check_omitted_split(form, graph)
        return SplitArguments(case.get("axis"), form)

    def _check_omitted_split(self, form: Form, graph: GraphSpec) -> None:
        """``split_input: omitted`` means the op's default split of 1, with no split value to feed."""
        if graph.split_input != "omitted":
            return
        if form.kind != "size" or form.value != 1:
            self._error(
                ("graph", "split_input"),
                f"split_input: omitted means the op's default split of 1: write size: 1 (not {form})",
            )
        elif graph.runtime("lengths"):
            self._error(
                ("graph", "split_input"),
                "split_input: omitted leaves no split input to feed at run time (graph.inputs places it)",
            )

    def _data(self, data: dict[str, Any], where: YamlPath = ("data",)) -> DataSpec | None:
        shape = tuple(data["shape"])
        values = data.get("values")
        fill_kind = data.get("fill", "values" if "values" in data else "arange")
        name = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in where).lstrip(".")
        if "values" in data and fill_kind != "values":
            self._error(
                (*where, "fill"), f"'values' given with fill: {fill_kind} (values imply fill: values)"
            )
            return None
        if fill_kind == "values" and "values" not in data:
            self._error((*where, "fill"), "fill: values needs a 'values' list")
            return None
        if fill_kind == "values":
            _, problems = fill.flatten_values(data["dtype"], values, math.prod(shape))
            for path, message in problems:
                self._error((*where, "values", *path), f"{name}.values: {message}")
            if problems:
                return None
        return DataSpec(shape, data["dtype"], fill_kind, data.get("seed", 0), values)

    def _case_run(
        self, number: int, raw: dict[str, Any], data: DataSpec, request: Request, graph: GraphSpec
    ) -> CaseRun | None:
        """One ``runs:`` entry resolved against the case, or None after reporting why it cannot be.
        A run changes only what the built model leaves open: a dynamic shape (not its rank), and the
        values of inputs fed at run time (not their count, which fixes the model's outputs)."""
        where: YamlPath = ("runs", number - 2)
        problems: list[tuple[str, str]] = []
        shape = tuple(raw.get("shape", data.shape))
        if "shape" in raw and graph.data_shape != "dynamic":
            problems.append(
                ("shape", "a new shape needs graph.data_shape: dynamic (the model declares the case's shape)")
            )
        elif len(shape) != len(data.shape):
            problems.append(
                (
                    "shape",
                    f"rank {len(shape)} differs from the case's {len(data.shape)}; a model fixes its rank",
                )
            )
        if isinstance(request, SplitArguments):
            problems += _split_run_problems(raw, request, graph)
        else:
            problems += slice_keys.run_problems(raw, request, graph)
        new_fill = "fill" in raw or "values" in raw
        if shape != data.shape and not new_fill and data.fill == "values":
            problems.append(
                ("shape", "the case's values do not fit a new shape; give the run its own fill or values")
            )
        for key, message in problems:
            self._error((*where, key), f"runs[{number - 2}].{key}: {message}")
        if problems:
            return None
        spec: dict[str, Any] = {"shape": list(shape), "dtype": data.dtype, "seed": raw.get("seed", data.seed)}
        if new_fill:
            spec.update({key: raw[key] for key in ("fill", "values") if key in raw})
        else:
            spec["fill"] = data.fill
            if data.fill == "values":
                spec["values"] = data.values
        run_data = self._data(spec, where)
        if run_data is None:
            return None
        return CaseRun(
            number=number,
            data=run_data,
            request=_run_request(raw, request),
            location=Location(self._owner.file, self._owner.line(("cases", self._index, *where)) or 0),
            changes=tuple(raw),
        )

    def _expect(self, expect: dict[str, Any]) -> Expect:
        shared = self._output(expect, ("expect",))
        by_op = {
            op: self._output(entry, ("expect", "by_op", op)) for op, entry in expect.get("by_op", {}).items()
        }
        return Expect(shapes=shared.shapes, values=shared.values, error=shared.error, by_op=by_op)

    def _output(self, entry: dict[str, Any], where: YamlPath) -> OutputExpect:
        shapes = entry.get("shapes")
        values = entry.get("values")
        error = entry.get("error", False)
        name = ".".join(str(part) for part in where)
        if error is not False and (shapes is not None or values is not None):
            self._error((*where, "error"), f"{name}: an error is expected, so there are no shapes or values")
        if shapes is not None and values is not None and len(shapes) != len(values):
            self._error((*where, "values"), f"{name}: {len(values)} values for {len(shapes)} shapes")
        return OutputExpect(
            shapes=tuple(tuple(shape) for shape in shapes) if shapes is not None else None,
            values=tuple(values) if values is not None else None,
            error=error,
        )


__all__ = ["CaseFileError", "CaseFileErrors", "Suite", "load_file", "load_paths"]
