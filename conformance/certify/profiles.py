"""Certification profiles: which items a backend must get right to earn a certificate.

A profile is a YAML file in ``cases/profiles/`` naming the required ops, maybe narrowing their
cases by tag and marking items *optional* (a backend may leave those unsupported). Everything
else selected is required, ``invalid`` cases included: a certified backend rejects what the spec
rejects. Ambiguous items are run and shown but never decide.
"""

from __future__ import annotations

import difflib
import fnmatch
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeAlias

import yaml

from conformance import schema as schemas
from conformance.corpus import catalogue
from conformance.corpus.loader import Suite
from conformance.corpus.selection import Item, select
from conformance.corpus.yaml_source import YamlDocument, YamlPath, read_yaml, schema_problems
from conformance.errors import CorpusError
from conformance.oracle import reference
from conformance.oracle.answers import answer_for
from conformance.results.result import JSON

#: Where ``--profile ID`` is looked up, relative to the case directory.
DIRECTORY = "profiles"

Role: TypeAlias = Literal["required", "optional", "ambiguous"]


class ProfileError(CorpusError):
    """A profile that cannot be used; each problem names the file and, where it can, the line."""

    def __init__(self, file: str, problems: Sequence[tuple[int | None, str]]) -> None:
        super().__init__(file, problems)
        self.file = file
        self.problems = list(problems)

    def __str__(self) -> str:
        return "\n".join(
            f"{self.file}{'' if line is None else f':{line}'}: {message}" for line, message in self.problems
        )


@dataclass(frozen=True)
class OptionalRule:
    """Items a backend may leave unsupported: those matching every criterion given."""

    reason: str
    ops: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    dtypes: tuple[str, ...] = ()
    items: tuple[str, ...] = ()  # item id globs

    def matches(self, item: Item) -> bool:
        checks = (
            not self.ops or item.op in self.ops,
            not self.tags or bool(set(self.tags) & set(item.case.tags)),
            not self.dtypes or item.case.data.dtype in self.dtypes,
            not self.items or any(fnmatch.fnmatchcase(item.id, glob) for glob in self.items),
        )
        return all(checks)

    def to_json(self) -> JSON:
        criteria = {"ops": self.ops, "tags": self.tags, "dtypes": self.dtypes, "items": self.items}
        return {"reason": self.reason, **{key: list(value) for key, value in criteria.items() if value}}


@dataclass(frozen=True)
class Scope:
    """The items a certificate covers, each with its role, in the suite's order."""

    roles: Mapping[str, Role]
    #: for each optional item, the reason of the rule that made it optional
    reasons: Mapping[str, str] = field(default_factory=dict)

    def count(self, role: Role) -> int:
        return sum(1 for value in self.roles.values() if value == role)


@dataclass(frozen=True)
class Profile:
    id: str
    title: str
    description: str
    ops: tuple[str, ...]
    tags: tuple[str, ...]  # keep cases with any of these (empty: every case)
    exclude_tags: tuple[str, ...]
    optional: tuple[OptionalRule, ...]
    file: str
    digest: str  # sha256 of the file's bytes, so a certificate names the exact profile
    lines: Mapping[YamlPath, int] = field(default_factory=dict, compare=False, repr=False)

    def scope(self, suite: Suite) -> Scope:
        """The profile's items in ``suite``; ProfileError for a tag no case of the suite carries
        (a misspelt tag would otherwise silently select nothing or exclude nothing)."""
        known = {tag for case in suite.cases for tag in case.tags}
        problems = [
            (self.lines.get(path), f"{where}: no case of the suite has the tag {tag!r}{_hint(tag, known)}")
            for path, where, tag in self._tag_uses()
            if tag not in known
        ]
        if problems:
            raise ProfileError(self.file, problems)
        roles: dict[str, Role] = {}
        reasons: dict[str, str] = {}
        for item in select(suite.cases, self.ops, self.tags):
            if set(self.exclude_tags) & set(item.case.tags):
                continue
            rule = next((rule for rule in self.optional if rule.matches(item)), None)
            if "ambiguous" in item.case.tags or _ambiguous(item):
                roles[item.id] = "ambiguous"
            elif rule is not None:
                roles[item.id] = "optional"
                reasons[item.id] = rule.reason
            else:
                roles[item.id] = "required"
        if not any(role != "ambiguous" for role in roles.values()):
            raise ProfileError(self.file, [(None, "the selection leaves no item that decides a certificate")])
        return Scope(roles, reasons)

    def _tag_uses(self) -> list[tuple[YamlPath, str, str]]:
        """Every tag the profile names: where it is written (path, and as the message says it)."""
        lists: list[tuple[YamlPath, str, tuple[str, ...]]] = [
            (("select", "tags"), "select.tags", self.tags),
            (("select", "exclude_tags"), "select.exclude_tags", self.exclude_tags),
        ]
        lists += [
            (("optional", number, "tags"), f"optional[{number}].tags", rule.tags)
            for number, rule in enumerate(self.optional)
        ]
        return [((*path, n), where, tag) for path, where, tags in lists for n, tag in enumerate(tags)]

    def to_json(self) -> JSON:
        """What a certificate records of its profile."""
        return {
            "id": self.id,
            "title": self.title,
            "description": self.description,
            "file": self.file,
            "digest": self.digest,
            "ops": list(self.ops),
            "select": {"tags": list(self.tags), "exclude_tags": list(self.exclude_tags)},
            "optional": [rule.to_json() for rule in self.optional],
        }


def available(directory: Path) -> list[str]:
    """The profile ids in a directory, sorted."""
    return sorted(path.stem for path in directory.glob("*.yaml")) if directory.is_dir() else []


def find(name: str, directory: Path) -> Profile:
    """A profile by id (``directory/<id>.yaml``) or by the path of its file."""
    given = Path(name)
    if given.suffix in (".yaml", ".yml") or given.is_file():
        return load(given)
    path = directory / f"{name}.yaml"
    if path.is_file():
        return load(path)
    ids = available(directory)
    listed = f"profiles in {directory}: {', '.join(ids)}" if ids else f"no profiles in {directory}"
    raise ProfileError(str(path), [(None, f"no profile {name!r}{_hint(name, set(ids))}; {listed}")])


def load(path: Path) -> Profile:
    """Read and check one profile file; ProfileError listing every problem in it."""
    file = path.as_posix()
    try:
        content = path.read_bytes()
    except OSError as error:
        raise ProfileError(file, [(None, f"cannot read: {error.strerror or error}")]) from None
    try:
        document = read_yaml(content.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ProfileError(file, [(None, f"not UTF-8 text ({error.reason})")]) from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        raise ProfileError(
            file, [(mark.line + 1 if mark else None, f"YAML error: {error.problem}")]
        ) from None
    except yaml.YAMLError as error:
        raise ProfileError(file, [(None, f"YAML error: {error}")]) from None
    if not isinstance(document.data, dict):
        raise ProfileError(file, [(1, "expected a mapping with id, title, description and ops")])
    problems = _problems(document, path)
    if problems:
        raise ProfileError(file, sorted(problems, key=lambda problem: problem[0] or 0))
    data = document.data
    select_ = data.get("select", {})
    return Profile(
        id=data["id"],
        title=data["title"].strip(),
        description=" ".join(data["description"].split()),
        ops=tuple(data["ops"]),
        tags=tuple(select_.get("tags", ())),
        exclude_tags=tuple(select_.get("exclude_tags", ())),
        optional=tuple(
            OptionalRule(
                reason=" ".join(rule["reason"].split()),
                ops=tuple(rule.get("ops", ())),
                tags=tuple(rule.get("tags", ())),
                dtypes=tuple(rule.get("dtypes", ())),
                items=tuple(rule.get("items", ())),
            )
            for rule in data.get("optional", ())
        ),
        file=file,
        digest=f"sha256:{hashlib.sha256(content).hexdigest()}",
        lines=document.lines,
    )


def _problems(document: YamlDocument, path: Path) -> list[tuple[int | None, str]]:
    """Schema violations in plain words, then what the schema cannot know: op ids and the file name."""
    data = document.data
    problems = schema_problems(
        document, schemas.load("profile"), "give at least one of ops, tags, dtypes, items"
    )
    if problems:
        return problems
    for number, op in enumerate(data["ops"]):
        if op not in catalogue.OPS:
            hint = _hint(op, set(catalogue.OPS))
            problems.append((document.line(("ops", number)), f"ops: {op!r} is not an op id{hint}"))
    for number, rule in enumerate(data.get("optional", ())):
        for position, op in enumerate(rule.get("ops", ())):
            if op not in data["ops"]:
                line = document.line(("optional", number, "ops", position))
                problems.append((line, f"optional[{number}].ops: {op!r} is not one of the profile's ops"))
    if data["id"] != path.stem:
        problems.append((document.line(("id",)), f"id {data['id']!r} must equal the file name {path.stem!r}"))
    return problems


def _hint(word: str, known: set[str]) -> str:
    close = difflib.get_close_matches(word, sorted(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _ambiguous(item: Item) -> bool:
    """Whether the reference reads the item several ways (one it does not judge is not)."""
    try:
        return answer_for(item.op, item.case).ambiguous
    except reference.TooManyPieces:
        return False
