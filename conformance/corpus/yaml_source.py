"""Reading YAML while remembering where every node was written, so every complaint names the line.

The node tree is walked before it is built into data (by a SafeLoader subclass: only safe tags
construct): the walk records each node's line under its path and finds keys given twice, which
PyYAML would silently resolve to the last one.
"""

from __future__ import annotations

import difflib
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias, cast

import yaml
from jsonschema import Draft202012Validator

#: A path into the data: mapping keys and sequence indices from the root.
YamlPath: TypeAlias = tuple[Hashable, ...]

_MERGE_TAG = "tag:yaml.org,2002:merge"
#: The most nodes a document may hold with its aliases expanded: an alias bomb ("billion laughs")
#: reaches 10^9 from a few hundred bytes, and everything after parsing would walk each one.
MAX_NODES = 1_000_000
#: The deepest nesting a document may have: the YAML reader and the schema check recurse per level.
MAX_DEPTH = 100
_UNUSABLE = object()  # stands for a key that cannot be located (a list or mapping used as a key)


class _SafeLoader(yaml.SafeLoader):
    """yaml.SafeLoader under our own name, so nothing registered here can leak into PyYAML's."""


#: PyYAML's reader in C (libyaml), where PyYAML has it: the same tree, a second faster on the corpus.
_C_READER: type | None = getattr(yaml, "CSafeLoader", None)


class YamlLimitError(yaml.MarkedYAMLError):
    """A document past a bound (size with aliases expanded, nesting depth, an alias inside itself),
    refused before it is built; the mark is where the offending node starts."""

    def __init__(self, problem: str, mark: yaml.Mark | None) -> None:
        super().__init__(problem=problem, problem_mark=mark)


@dataclass(frozen=True)
class DuplicateKey:
    """A key written twice in one mapping; PyYAML would have kept the second value silently."""

    path: YamlPath  #: path of the entry, the key included
    line: int  #: line of the repeated key
    first_line: int  #: line where the key was first written

    @property
    def key(self) -> Hashable:
        return self.path[-1]


@dataclass(frozen=True)
class YamlDocument:
    """The constructed data of one YAML document and where each part of it was written: ``lines``
    by the path of every node (1-based, where its value starts), ``key_lines`` by the path of every
    mapping entry (where its key is, for reporting an unknown key)."""

    data: Any
    lines: Mapping[YamlPath, int] = field(default_factory=dict)
    key_lines: Mapping[YamlPath, int] = field(default_factory=dict)
    duplicates: tuple[DuplicateKey, ...] = ()

    def line(self, path: YamlPath, *, key: bool = False) -> int | None:
        """Line of ``path``, or of its nearest written ancestor (a missing key's mapping)."""
        if key and path in self.key_lines:
            return self.key_lines[path]
        for end in range(len(path), -1, -1):
            found = self.lines.get(path[:end])
            if found is not None:
                return found
        return None


def read_yaml(text: str) -> YamlDocument:
    """Compose, locate and construct one YAML document with safe-load semantics (``data=None``
    when empty); raises yaml.MarkedYAMLError, line in ``problem_mark``, for what cannot be read."""
    try:
        node = _compose(text)
    except RecursionError:
        raise YamlLimitError(f"nested more than {MAX_DEPTH} levels deep", _deep_mark(text)) from None
    if node is None:
        return YamlDocument(data=None)
    check_bounds(node)
    constructor = _SafeLoader("")
    try:
        walker = _Walker(constructor)
        walker.walk(node, ())
        data = constructor.construct_document(node)
    finally:
        constructor.dispose()
    duplicates = tuple(sorted(walker.duplicates, key=lambda duplicate: duplicate.line))
    return YamlDocument(data, walker.lines, walker.key_lines, duplicates)


def _compose(text: str) -> yaml.Node | None:
    """The document's node tree, by the C reader where there is one. What it refuses is read again
    in Python, so a broken file gets the same message and line whichever reader PyYAML has."""
    if _C_READER is not None:
        try:
            return _compose_in_c(text, _C_READER)
        except YamlLimitError:
            raise
        except yaml.YAMLError:
            pass
    return yaml.compose(text, Loader=_SafeLoader)


def _compose_in_c(text: str, reader: type) -> yaml.Node | None:
    """The C reader's tree. Its composer recurses in C with no limit (a million ``- `` would
    overflow the stack and kill the process), so a flat walk over the parser's events first
    refuses a document past :data:`MAX_DEPTH`."""
    depth = 0
    for event in yaml.parse(text, Loader=reader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                # the C reader's marks have the pure-Python Mark's fields (name, line, column)
                mark = cast(yaml.Mark, event.start_mark)
                raise YamlLimitError(f"nested more than {MAX_DEPTH} levels deep", mark)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    return yaml.compose(text, Loader=reader)


class _Walker:
    """Records lines by path and finds duplicate keys. A node is walked under each path that
    reaches it, but never re-entered while on the current path, so a recursive alias cannot loop."""

    def __init__(self, constructor: _SafeLoader) -> None:
        self._constructor = constructor
        self.lines: dict[YamlPath, int] = {}
        self.key_lines: dict[YamlPath, int] = {}
        self.duplicates: list[DuplicateKey] = []
        self._checked: set[int] = set()
        self._active: set[int] = set()

    def walk(self, node: yaml.Node, path: YamlPath) -> None:
        self.lines.setdefault(path, _line(node))
        if id(node) in self._active:
            return
        self._active.add(id(node))
        try:
            if isinstance(node, yaml.MappingNode):
                self._mapping(node, path)
            elif isinstance(node, yaml.SequenceNode):
                for index, item in enumerate(node.value):
                    self.walk(item, (*path, index))
        finally:
            self._active.discard(id(node))

    def _mapping(
        self, node: yaml.MappingNode, path: YamlPath, shadowed: frozenset[Hashable] = frozenset()
    ) -> None:
        """Record a mapping's entries; ``shadowed`` keys are set explicitly by the mapping that merges
        this one in, so they keep the explicit lines."""
        check = id(node) not in self._checked
        self._checked.add(id(node))
        first: dict[Hashable, int] = {}
        kept: dict[Hashable, tuple[yaml.Node, yaml.Node]] = {}  # the last value wins, as in PyYAML
        merged: list[yaml.Node] = []
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG:
                merged.append(value_node)
                continue
            key = self._key(key_node)
            if key is _UNUSABLE:
                continue
            if key in first and check:
                self.duplicates.append(DuplicateKey((*path, key), _line(key_node), first[key]))
            first.setdefault(key, _line(key_node))
            kept[key] = (key_node, value_node)
        for key, (key_node, value_node) in kept.items():
            if key not in shadowed:
                self.key_lines.setdefault((*path, key), _line(key_node))
                self.walk(value_node, (*path, key))
        # Keys brought in by a merge ("<<: *anchor") are located where the anchor wrote them.
        for source in merged:
            sources = source.value if isinstance(source, yaml.SequenceNode) else [source]
            for mapping in sources:
                if isinstance(mapping, yaml.MappingNode) and id(mapping) not in self._active:
                    self._active.add(id(mapping))
                    try:
                        self._mapping(mapping, path, shadowed | frozenset(kept))
                    finally:
                        self._active.discard(id(mapping))

    def _key(self, node: yaml.Node) -> Hashable:
        """The constructed key, or _UNUSABLE for one that cannot be a dict key (construction will say)."""
        if not isinstance(node, yaml.ScalarNode):
            return _UNUSABLE
        key: object = self._constructor.construct_object(node, deep=True)
        return key if isinstance(key, Hashable) else _UNUSABLE


def schema_problems(
    document: YamlDocument, schema: Mapping[str, Any], at_least: str = "give at least one key"
) -> list[tuple[int | None, str]]:
    """A YAML document's duplicate keys and JSON Schema violations in plain words, each with the
    line to fix; ``at_least`` words a ``minProperties`` violation."""
    problems = [
        (document.line(key.path, key=True), f"key {key.key!r} given twice (first at line {key.first_line})")
        for key in document.duplicates
    ]
    errors = Draft202012Validator(schema).iter_errors(document.data)
    for error in sorted(errors, key=lambda e: list(map(str, e.path))):
        where = ".".join(str(part) for part in error.absolute_path) or "the top level"
        at = tuple(error.absolute_path)
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            known = list(error.schema.get("properties", {}))
            for name in set(error.instance) - set(known):
                close = difflib.get_close_matches(str(name), sorted(known), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else f"; known keys: {', '.join(known)}"
                problems.append(
                    (document.line((*at, name), key=True), f"unknown key {name!r} in {where}{hint}")
                )
        elif error.validator == "required" and isinstance(error.instance, dict):
            missing = [name for name in error.validator_value if name not in error.instance]
            problems.append(
                (document.line(at), f"{where}: missing required key {', '.join(map(repr, missing))}")
            )
        elif error.validator == "minProperties":
            problems.append((document.line(at), f"{where}: {at_least}"))
        else:
            problems.append((document.line(at), f"{where}: {error.message}"))
    return problems


def check_bounds(root: yaml.Node) -> None:
    """Raise YamlLimitError if the node graph, aliases expanded, holds more than MAX_NODES nodes,
    nests deeper than MAX_DEPTH, or has an alias inside the node it names (a loop). One pass
    without recursion, each node's size computed once, so a bomb costs only its few real nodes."""
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, int, bool]] = [(root, 0, False)]
    while stack:
        node, depth, finished = stack.pop()
        children = _children(node)
        if finished:
            on_path.discard(id(node))
            size = 1 + sum(sizes[id(child)] for child in children)
            if size > MAX_NODES:
                raise YamlLimitError(
                    f"with its aliases expanded, this holds more than {MAX_NODES:,} values (an alias bomb?)",
                    node.start_mark,
                )
            sizes[id(node)] = size
            continue
        if id(node) in sizes:
            continue
        if depth > MAX_DEPTH:
            raise YamlLimitError(f"nested more than {MAX_DEPTH} levels deep", node.start_mark)
        on_path.add(id(node))
        stack.append((node, depth, True))
        for child in children:
            if id(child) in on_path:
                raise YamlLimitError(
                    "the node anchored here contains an alias to itself (a loop)", child.start_mark
                )
            if id(child) not in sizes:
                stack.append((child, depth + 1, False))


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _deep_mark(text: str) -> yaml.Mark | None:
    """Where the flow brackets first nest past MAX_DEPTH (for a document too deep to compose)."""
    depth = 0
    line = 0
    for index, char in enumerate(text):
        if char == "\n":
            line += 1
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return yaml.Mark("", index, line, 0, None, 0)
        elif char in "]}":
            depth -= 1
    return None


def _line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1
