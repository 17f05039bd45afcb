"""The JSON Schema of a case file (``conformance/schema/case.schema.json``, which editors use too),
and its verdicts as plain sentences about the file: the path to fix, a did-you-mean for typos.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator, ValidationError
from jsonschema.protocols import Validator
from jsonschema.validators import extend

from conformance import schema
from conformance.corpus.case import FORM_KINDS
from conformance.corpus.yaml_source import YamlPath

_FORMS = " | ".join(FORM_KINDS) + " (Split) or starts (Slice)"
#: Keys a case may leave to its file's defaults, so a message about them says where else they fit.
_DEFAULTABLE = frozenset({"source", "data", "shape", "dtype"})


@dataclass(frozen=True)
class SchemaProblem:
    """One readable schema verdict: the path to point at, and whether to point at its key.
    ``missing``: the keys a missing-key verdict is about; ``meant``: the key an unknown one resembles."""

    path: YamlPath
    message: str
    at_key: bool = False
    missing: frozenset[str] = frozenset()
    meant: str | None = None


def case_file_schema() -> Mapping[str, Any]:
    """The case-file schema as shipped in the package."""
    return schema.load("case")


def _is_integer(_checker: object, instance: object) -> bool:
    """An int, and neither a bool nor a float like 1.0 (JSON Schema would accept 1.0 as integer)."""
    return isinstance(instance, int) and not isinstance(instance, bool)


@cache
def _validator() -> Validator:
    checker = Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer)
    cls = extend(Draft202012Validator, type_checker=checker)  # type: ignore[no-untyped-call]
    validator: Validator = cls(inlined(case_file_schema()))
    return validator


def inlined(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The schema with each reference to its ``$defs`` replaced by the definition, except those
    that refer back to themselves: the same rules, without jsonschema resolving 28,000 references."""
    definitions: Mapping[str, Any] = schema.get("$defs", {})
    recursive = {name for name in definitions if name in _reached(name, definitions)}

    def inline(node: Any) -> Any:
        if isinstance(node, list):
            return [inline(item) for item in node]
        if not isinstance(node, dict):
            return node
        name = _local_reference(node)
        if name is None or name in recursive:
            return {key: inline(value) for key, value in node.items()}
        rest = {key: inline(value) for key, value in node.items() if key != "$ref"}
        target = inline(definitions[name])
        return {**rest, "allOf": [target, *rest.get("allOf", [])]} if rest else target

    result: dict[str, Any] = inline(dict(schema))
    return result


def _local_reference(node: Mapping[str, Any]) -> str | None:
    reference = node.get("$ref")
    prefix = "#/$defs/"
    return reference[len(prefix) :] if isinstance(reference, str) and reference.startswith(prefix) else None


def _reached(name: str, definitions: Mapping[str, Any]) -> set[str]:
    """The definitions ``name`` refers to, directly or through others."""
    found: set[str] = set()
    stack = [definitions[name]]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            reference = _local_reference(node)
            if reference is not None and reference not in found and reference in definitions:
                found.add(reference)
                stack.append(definitions[reference])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def schema_problems(data: Any) -> list[SchemaProblem]:
    """Every schema violation of a file's data, in path order, each said once."""
    errors = sorted(_validator().iter_errors(data), key=lambda error: _sort_key(error.absolute_path))
    problems: list[SchemaProblem] = []
    for error in errors:
        for problem in _explain(error):
            if problem not in problems:
                problems.append(problem)
    # A misspelt key is one mistake: "unknown key 'lenghts'" says it all, "no form given" is noise.
    typos = {(problem.path[:-1], problem.meant) for problem in problems if problem.meant}
    return [p for p in problems if not any((p.path, key) in typos for key in p.missing)]


def _sort_key(path: Sequence[object]) -> list[tuple[int, str]]:
    return [(0, f"{part:020d}") if isinstance(part, int) else (1, str(part)) for part in path]


def _explain(error: ValidationError) -> Iterator[SchemaProblem]:
    path: YamlPath = tuple(error.absolute_path)
    where = _where(path)
    prefix = f"{where}: " if where else ""
    instance: Any = error.instance  # always set on a reported error (Unset only in the stubs)
    value: Any = error.validator_value
    schema = error.schema if isinstance(error.schema, Mapping) else {}
    defs = case_file_schema()["$defs"]
    validator = error.validator
    if path == ("defaults",) and schema == defs["defaults"]["propertyNames"]:
        message = f"{instance!r} cannot be set in defaults: every case has its own"
        yield SchemaProblem((*path, instance), message, True)
    elif validator == "additionalProperties":
        banned = defs["defaults"]["propertyNames"]["not"]["enum"]
        known = [key for key in schema.get("properties", {}) if path != ("defaults",) or key not in banned]
        for key in instance:
            if key not in schema.get("properties", {}):
                close = difflib.get_close_matches(str(key), known, n=1) if isinstance(key, str) else []
                meant = close[0] if close else None
                yield SchemaProblem((*path, key), _unknown_key(key, path, meant, known), True, meant=meant)
    elif validator == "required":
        for key in value:
            if key not in instance:
                defaultable = key in _DEFAULTABLE and path[:1] == ("cases",)
                hint = " (give it here or in defaults)" if defaultable else ""
                message = f"{prefix}missing required key {key!r}{hint}"
                yield SchemaProblem(path, message, missing=frozenset({key}))
    elif validator == "oneOf" and schema in (defs["oneForm"], defs["atMostOneForm"], defs["defaults"]):
        if isinstance(instance, dict):  # anything else was reported as not a mapping
            yield _form_problem(path, instance, defaults=schema is defs["defaults"])
    elif validator == "anyOf" and schema == defs["valueTree"]:
        inner, leaf = _bad_leaf(instance, ()) or ((), instance)
        at = (*path, *inner)
        yield SchemaProblem(
            at, f"{_where(at)}: expected a number, string, boolean or list, got {_describe(leaf)}"
        )
    elif validator == "anyOf" and schema == defs["expectError"]:
        yield SchemaProblem(path, f"{prefix}expected true, false or a rule id, got {_describe(instance)}")
    elif validator == "anyOf" and path[-1:] == ("axis_shape",):
        yield SchemaProblem(path, f"{prefix}expected scalar or [1], got {_describe(instance)}")
    elif validator == "anyOf" and path[-2:-1] == ("graph",) and path[-1:] == ("inputs",):
        yield SchemaProblem(
            path,
            f"{prefix}expected constant, runtime, or a mapping such as {{axis: constant, lengths: runtime}} "
            f"(keys axis, lengths; starts, ends, axes, steps, sizes; values constant, runtime), "
            f"got {_describe(instance)}",
        )
    elif validator == "type" and len(path) == 2 and path[0] == "cases":
        yield SchemaProblem(path, f"a case must be a mapping, got {_describe(instance)}")
    elif validator == "type":
        yield SchemaProblem(path, f"{prefix}expected {_type_words(value)}, got {_describe(instance)}")
    elif validator == "enum":
        yield SchemaProblem(path, f"{prefix}{_enum_message(instance, value)}")
    elif validator in ("minimum", "maximum"):
        yield SchemaProblem(path, f"{prefix}{_bound_message(instance, validator, value)}")
    elif validator == "pattern":
        rule = "lower-case letters, digits, '.', '_' and '-', starting with a letter or digit"
        yield SchemaProblem(path, f"{prefix}{instance!r} is not a valid name ({rule})")
    elif validator == "minLength":
        yield SchemaProblem(path, f"{prefix}must not be empty")
    elif validator == "maxLength":  # the text itself is left out: it is what is too long
        yield SchemaProblem(
            path, f"{prefix}{len(instance)} characters; at most {value} (every result repeats it)"
        )
    elif validator == "maxItems" and schema.get("description") == defs["shape"]["description"]:
        yield SchemaProblem(
            path,
            f"{prefix}{len(instance)} dimensions; at most {value} (NumPy 1.26, the reference's, builds no more)",
        )
    elif validator == "uniqueItems":
        yield SchemaProblem(path, f"{prefix}lists an item twice")
    else:
        yield SchemaProblem(path, f"{prefix}{error.message}")


def _where(path: YamlPath) -> str:
    """A path as a case author writes it: inside a case relative to the case (``data.shape[1]``)."""
    inside = path[2:] if path[:1] == ("cases",) and len(path) >= 2 else path
    text = ""
    for part in inside:
        text += f"[{part}]" if isinstance(part, int) else f"{'.' if text else ''}{part}"
    return text


def _unknown_key(key: object, path: YamlPath, meant: str | None, known: list[str]) -> str:
    if path[-1:] == ("by_op",):
        hint = f" (did you mean {meant!r}?)" if meant else f"; op ids: {', '.join(known)}"
        return f"{key!r} in expect.by_op is not an op id{hint}; by_op takes exact op ids, no globs"
    hint = f" (did you mean {meant!r}?)" if meant else f"; known keys: {', '.join(known)}"
    where = _where(path)
    if not path:
        where = "the top level"
    elif path[:1] == ("cases",) and len(path) == 2:
        where = ""
    return f"unknown key {key!r}{f' in {where}' if where else ''}{hint}"


def _form_problem(path: YamlPath, instance: Mapping[str, Any], *, defaults: bool) -> SchemaProblem:
    given = [key for key in instance if key in (*FORM_KINDS, "starts")]
    whom = "defaults take at most" if defaults else "a case takes exactly"
    rule = f"{whom} one of {_FORMS}"
    if len(given) >= 2:
        quoted = ", ".join(repr(key) for key in given)
        return SchemaProblem(
            (*path, given[1]), f"{quoted} {'both' if len(given) == 2 else 'all'} given: {rule}", True
        )
    return SchemaProblem(path, f"no form given: {rule}", missing=frozenset((*FORM_KINDS, "starts")))


def _bad_leaf(node: Any, path: tuple[int, ...]) -> tuple[tuple[int, ...], Any] | None:
    """Index path and value of the first element of a value tree that is no value, if any."""
    if isinstance(node, list):
        for index, item in enumerate(node):
            found = _bad_leaf(item, (*path, index))
            if found is not None:
                return found
        return None
    return None if isinstance(node, str | int | float) else (path, node)


def _type_words(expected: str | list[str]) -> str:
    words = {
        "integer": "an integer",
        "string": "a string",
        "array": "a list",
        "object": "a mapping",
        "boolean": "true or false",
        "number": "a number",
        "null": "nothing",
    }
    kinds = [expected] if isinstance(expected, str) else expected
    return " or ".join(words.get(kind, kind) for kind in kinds)


def _describe(value: object) -> str:
    """A YAML-flavoured description of what the author wrote."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, int):
        return f"the integer {value}"
    if isinstance(value, float):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"a {type(value).__name__} ({value})"


def _enum_message(value: object, allowed: list[object]) -> str:
    choices = [str(choice) for choice in allowed]
    close = difflib.get_close_matches(value, choices, n=1) if isinstance(value, str) else []
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"{value!r} is not one of {', '.join(choices)}{hint}"


def _bound_message(value: object, validator: str, bound: int) -> str:
    if abs(bound) >= 2**63 - 1:
        return f"{value} does not fit in int64"
    if validator == "minimum" and bound == 0:
        return f"{value} is negative; expected 0 or more"
    return f"{value} is {'below the minimum' if validator == 'minimum' else 'above the maximum'} {bound}"
