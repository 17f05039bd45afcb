"""What ``-k`` matches, one rule for ``pytest -k`` and ``conformance run -k``.

A word of the expression matches, as a substring ignoring case (pytest's rule), one of an item's
words: its pytest name ``<case>::<op>[<target>]`` (``<case>::<op>`` for ``conformance list``), the
folders and file name of its case file (relative to the working directory when under it), its tags,
form and dtype, and ``conformance``, the marker every item carries. The expression is parsed here,
never evaluated, so no ``-k`` can run code.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from pathlib import Path

from conformance import ids
from conformance.corpus.case import Case
from conformance.errors import UsageError

#: The marker every item of the suite carries in pytest.
MARKER = "conformance"

Words = Collection[str]
_TOKEN = re.compile(r"\s*(\(|\)|[^\s()]+)")


def item_name(case_id: str, op: str, target: str | None) -> str:
    """The pytest item's name: ``<case>::<op>[<target>]``, or ``<case>::<op>`` without a target."""
    item = ids.item_id(case_id, op)
    return item if target is None else f"{item}[{target}]"


def words(case: Case, op: str, target: str | None = None) -> frozenset[str]:
    """Every word ``-k`` matches an item against (see the module docstring)."""
    return frozenset(
        {
            item_name(case.id, op, target),
            *_path_words(case.location.file),
            *case.tags,
            case.family,
            case.kind,
            case.data.dtype,
            MARKER,
        }
    )


def _path_words(file: str) -> tuple[str, ...]:
    """The case file's folders and name as pytest names its nodes (its name alone outside the cwd)."""
    path = Path(file)
    if path.is_absolute():
        try:
            path = path.relative_to(Path.cwd())
        except ValueError:
            return (path.name,)
    return tuple(part for part in path.parts if part not in ("", ".", ".."))


def compile_keyword(expression: str) -> Callable[[Words], bool]:
    """A ``-k`` expression (words joined by and / or / not, with parentheses) as a predicate over
    an item's words."""
    tokens: list[str] = _TOKEN.findall(expression)
    position = 0

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def take() -> str:
        nonlocal position
        if position >= len(tokens):
            raise UsageError(f"-k {expression!r}: the expression ends too early")
        position += 1
        return tokens[position - 1]

    def disjunction() -> Callable[[Words], bool]:
        parts = [conjunction()]
        while peek() == "or":
            take()
            parts.append(conjunction())
        return lambda item: any(part(item) for part in parts)

    def conjunction() -> Callable[[Words], bool]:
        parts = [negation()]
        while peek() == "and":
            take()
            parts.append(negation())
        return lambda item: all(part(item) for part in parts)

    def negation() -> Callable[[Words], bool]:
        if peek() == "not":
            take()
            inner = negation()
            return lambda item: not inner(item)
        token = take()
        if token == "(":
            inner = disjunction()
            if take() != ")":
                raise UsageError(f"-k {expression!r}: a parenthesis is not closed")
            return inner
        if token in (")", "and", "or"):
            raise UsageError(f"-k {expression!r}: unexpected {token!r}")
        wanted = token.lower()
        return lambda item: any(wanted in word.lower() for word in item)

    predicate = disjunction()
    if position != len(tokens):
        raise UsageError(f"-k {expression!r}: unexpected {tokens[position]!r}")
    return predicate
