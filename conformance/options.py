"""The option table: every option of ``run``, ``explore``, ``certify``, ``list`` and the pytest
plugin, declared once (name, type with its validation, unit, default, help), so one name has
one meaning everywhere. The verbs take their options from here (:func:`add`), the pytest plugin
as ``--conformance-<name>`` (:func:`add_to_pytest`), and ``run --resume`` tells the options given
now from those its journal kept (:func:`given`).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol

from conformance.corpus import builtin
from conformance.explore.limits import DEFAULT_EXAMPLES
from conformance.storage.shard import Shard

if TYPE_CHECKING:
    from conformance.run import planning


def _number(kind: type[int] | type[float], minimum: float, strict: bool = False) -> Callable[[str], float]:
    """A type: a finite number of ``kind`` at least (or, ``strict``, above) ``minimum``. ``nan``
    and ``inf`` are refused: a NaN compares false with every bound (a ``--timeout nan`` never
    stopped a hang) and neither is JSON, which the results file records the value in."""

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not a{'n' if kind is int else ''} {kind.__name__}"
            ) from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
        if value < minimum or (strict and value == minimum):
            bound = f"above {minimum:g}" if strict else f"at least {minimum:g}"
            raise argparse.ArgumentTypeError(f"{text} must be {bound}")
        return value

    parse.__name__ = f"{kind.__name__} {'>' if strict else '>='} {minimum:g}"  # argparse names it in errors
    return parse


#: a count of one or more (workers, requests, pieces)
POSITIVE: Final = _number(int, 1)
#: a count that may be 0 (steady runs, a seed)
COUNT: Final = _number(int, 0)
#: a duration in seconds, above 0
SECONDS: Final = _number(float, 0, strict=True)
#: seconds to spend, where 0 means "spend none"
BUDGET_SECONDS: Final = _number(float, 0)
#: whole mebibytes, one or more (a memory budget)
MEBIBYTES: Final = _number(int, 1)
#: mebibytes, fractions allowed, above 0 (a data size)
DATA_MEBIBYTES: Final = _number(float, 0, strict=True)
#: a ratio above 1 (``diff``'s timing rule: new/old)
RATIO: Final = _number(float, 1, strict=True)
#: milliseconds that may be 0 (``diff``'s timing floor)
MILLISECONDS: Final = _number(float, 0)


@dataclass(frozen=True)
class Option:
    """One option as every front door declares it. ``metavar`` is the unit or the shape of its
    value; ``action`` is ``append`` (repeatable), ``store_true`` (a flag) or None (one value)."""

    flags: tuple[str, ...]
    dest: str
    help: str
    metavar: str | None = None
    type: Callable[[str], Any] | None = None
    default: Any = None
    action: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def long(self) -> str:
        """The option's name without dashes, as in ``--conformance-<name>``."""
        return next(flag for flag in self.flags if flag.startswith("--"))[2:]


_ENTRIES: Final[tuple[Option, ...]] = (
    Option(("--cases",), "cases", "case file or directory (default: cases/)", "PATH", action="append"),
    Option(
        ("--adapter",),
        "adapter",
        "adapter entry-point name or module:Class (repeatable; default: every installed one; certify "
        "takes exactly one)",
        "NAME",
        action="append",
    ),
    Option(
        ("--option",),
        "option",
        "adapter option, e.g. openvino.device=CPU (repeatable)",
        "ADAPTER.KEY=VALUE",
        action="append",
    ),
    Option(("--op",), "op", "op id or glob, e.g. 'onnx.*' (repeatable)", "OP", action="append"),
    Option(
        ("--target",),
        "target",
        "only targets matching, e.g. 'openvino/onnx/*' (adapter/route/device; repeatable)",
        "GLOB",
        action="append",
    ),
    Option(("--tag",), "tag", "keep cases with this tag (repeatable: any)", "TAG", action="append"),
    Option(
        ("-k",),
        "keyword",
        "keep items matching an expression (words, and/or/not, parentheses), as pytest's -k keeps the "
        "same items: a word matches part of the item's name <case>::<op>[<target>], its case file's "
        "path, a tag, its form or its dtype, ignoring case",
        "EXPR",
    ),
    Option(("--item",), "item", "exactly this item (repeatable)", "CASE::OP", action="append"),
    Option(("-j", "--jobs"), "jobs", "parallel worker processes (default 1)", "N", POSITIVE, 1),
    Option(
        ("--timeout",), "timeout", "per-item time limit in seconds (default %(default)g)", "S", SECONDS, 120.0
    ),
    Option(("--repeat",), "repeat", "steady-state runs after the first (default 3)", "N", COUNT, 3),
    Option(("--out",), "out", "where results go (default: %(default)s/)", "DIR", default="reports"),
    Option(
        ("--known-issues",),
        "known_issues",
        "extra expected-failures file (repeatable), on top of the adapters' own",
        "FILE",
        action="append",
    ),
    Option(
        ("--no-known-issues",),
        "no_known_issues",
        "raw statuses: do not apply the adapters' shipped known issues (--known-issues files still are)",
        action="store_true",
    ),
    Option(
        ("--crash-budget",),
        "crash_budget",
        "seconds the crash review may spend running each crashed or timed-out item again alone in a fresh "
        "worker and looking for the item that broke its worker (default 300; 0: none, every crash stays "
        "unconfirmed)",
        "S",
        BUDGET_SECONDS,
        300.0,
    ),
    Option(
        ("--memory-budget",),
        "memory_budget",
        "memory one item may use, in MiB (its data, 4 copies); items needing more are not attempted, and "
        "each worker's address space is capped at this plus 4 GiB (default: what the machine has available)",
        "MIB",
        MEBIBYTES,
    ),
    Option(
        ("--shard",),
        "shard",
        "run only shard I of N (1-based; items split by a stable hash); join with `conformance merge`",
        "I/N",
    ),
    Option(
        ("--label",),
        "label",
        "adapter name written in the results, e.g. openvino@2024.6.0 (one --adapter; for `versions`)",
        "NAME",
    ),
    Option(
        ("--resume",),
        "resume",
        "finish the interrupted run in --out from its journal, with its options (any option given as "
        "well replaces that one, e.g. -j); run also takes the folder DIR, or a journal a new run set aside",
        "DIR|JOURNAL",
        extra={"nargs": "?", "const": ""},
    ),
    Option(
        ("--replace",),
        "replace",
        "replace the results in --out even when they are a complete run of another selection (other "
        "items, targets, case files, adapters or shard); without it such a run is refused",
        action="store_true",
    ),
    Option(("--no-junit",), "no_junit", "do not write junit.xml", action="store_true"),
    Option(("--seed",), "seed", "the same seed draws the same requests (default 0)", "N", COUNT, 0),
    Option(("--budget",), "budget", "time for the whole search in seconds, shared by the ops", "S", SECONDS),
    Option(
        ("--max-examples",),
        "max_examples",
        f"requests drawn per op (default {DEFAULT_EXAMPLES}; without a bound under --budget)",
        "N",
        POSITIVE,
    ),
    Option(("--write",), "write", "write each finding's smallest request as a YAML case under DIR", "DIR"),
    Option(
        ("--max-data",),
        "max_data",
        "largest input data of one request, in MiB (default %(default)g)",
        "MIB",
        DATA_MEBIBYTES,
    ),
    Option(
        ("--max-pieces",),
        "max_pieces",
        "most output pieces one request may imply (default %(default)d)",
        "N",
        POSITIVE,
    ),
    Option(("--profile",), "profile", "profile id (in cases/profiles/) or a profile file", "ID|FILE"),
    Option(("--route",), "route", "certify this route only (default: every route)", "R"),
    Option(("--device",), "device", "certify this device only (default: every one)", "D"),
    Option(("--verify",), "verify", "check a certificate.json against its results instead", "CERTIFICATE"),
    Option(
        ("--results",), "results", "with --verify: the results.json (default: the one it names)", "RESULTS"
    ),
)

#: every option, by its ``dest``
TABLE: Final[dict[str, Option]] = {option.dest: option for option in _ENTRIES}

#: the options ``run`` and ``explore`` share (the corpus, adapters and targets, the pool, the output)
EXECUTION: Final = (
    "cases",
    "adapter",
    "option",
    "op",
    "target",
    "jobs",
    "timeout",
    "out",
    "known_issues",
    "no_known_issues",
)
#: ``validate``'s options: the case files, taken as every verb takes them
VALIDATE: Final = ("cases",)
#: ``list``'s options (and its own ``--totals``)
LIST: Final = ("cases", "op", "tag", "keyword")
#: ``run``'s options
RUN: Final = (
    *EXECUTION,
    "tag",
    "keyword",
    "item",
    "repeat",
    "resume",
    "replace",
    "no_junit",
    "crash_budget",
    "memory_budget",
    "shard",
    "label",
)
#: ``explore``'s options
EXPLORE: Final = (*EXECUTION, "seed", "budget", "max_examples", "write", "max_data", "max_pieces")
#: ``certify``'s options
CERTIFY: Final = (
    "adapter",
    "profile",
    "route",
    "device",
    "option",
    "cases",
    "jobs",
    "timeout",
    "crash_budget",
    "out",
    "resume",
    "verify",
    "results",
)
#: the pytest plugin's, as ``--conformance-<name>`` (the corpus and the -k/-m selection are pytest's own)
PYTEST: Final = (
    "adapter",
    "option",
    "target",
    "jobs",
    "timeout",
    "repeat",
    "crash_budget",
    "out",
    "shard",
    "known_issues",
    "no_known_issues",
    "label",
    "memory_budget",
    "replace",
)
#: the pytest plugin's names kept from before the table, beside ``--conformance-<name>``
PYTEST_ALIASES: Final[dict[str, str]] = {"adapter": "--adapter", "option": "--adapter-option"}
#: the prefix of the pytest plugin's option dests, clear of other plugins' (pytest-timeout has ``timeout``)
PYTEST_DEST: Final = "conformance_"


def _keywords(option: Option, dest: str, default: Any) -> dict[str, Any]:
    """What argparse (and pytest, which is argparse underneath) takes to declare ``option``."""
    keywords: dict[str, Any] = {"dest": dest, "help": option.help, **option.extra}
    if option.action is not None:
        keywords["action"] = option.action
    if option.metavar is not None and option.action != "store_true":
        keywords["metavar"] = option.metavar
    if option.type is not None:
        keywords["type"] = option.type
    if option.action == "store_true":
        keywords["default"] = False
    elif default is not None:
        keywords["default"] = default
    return keywords


def add(
    parser: argparse.ArgumentParser,
    dests: Sequence[str],
    shown: Mapping[str, str] | None = None,
    **defaults: Any,
) -> None:
    """Declare ``dests`` on ``parser``; ``defaults`` gives a verb its own default (explore's
    ``--timeout 30``), ``shown`` the words for one it works out itself (certify's ``--out``)."""
    for dest in dests:
        option = TABLE[dest]
        keywords = _keywords(option, dest, defaults.get(dest, option.default))
        if shown and dest in shown:
            keywords["help"] = keywords["help"].replace("%(default)s/", shown[dest])
        if parser.argument_default == argparse.SUPPRESS:  # given(): only what was given is named
            keywords.pop("default", None)
        parser.add_argument(*option.flags, **keywords)


class _PytestGroup(Protocol):
    def addoption(self, *names: str, **keywords: Any) -> None: ...


def add_to_pytest(group: _PytestGroup) -> None:
    """The pytest plugin's options: :data:`PYTEST` as ``--conformance-<name>``, with the same
    types, units, defaults and help (dest ``conformance_<dest>``; a repeatable one defaults to [])."""
    for dest in PYTEST:
        option = TABLE[dest]
        names = [f"--conformance-{option.long}", *([PYTEST_ALIASES[dest]] if dest in PYTEST_ALIASES else [])]
        default = [] if option.action == "append" else option.default
        group.addoption(*names, **_keywords(option, PYTEST_DEST + dest, default))


def given(dests: Sequence[str], argv: Sequence[str]) -> dict[str, Any]:
    """The options of ``dests`` that ``argv`` gives, and their values (``--resume -j 4`` gives
    ``jobs`` and ``resume`` only): the parser keeps no default."""
    parser = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS, exit_on_error=False)
    add(parser, dests)
    return vars(parser.parse_args(list(argv)))


#: an option's value by its ``dest``; None for an option the front door does not have
Values = Callable[[str], Any]


def run_config(value: Values, command: Sequence[str], **overrides: Any) -> planning.RunConfig:
    """The run the options ask for, read the same way in every front door; ``overrides`` set what
    a front door decides itself (pytest's corpus). Planning is imported here, by the verbs that run."""
    from conformance.run import planning

    shard = value("shard")
    config = planning.RunConfig(
        case_paths=tuple(value("cases") or [str(builtin.default_cases())]),
        adapters=tuple(value("adapter") or ()),
        options=planning.parse_options(value("option") or [], value("adapter") or ()),
        ops=tuple(value("op") or ()),
        tags=tuple(value("tag") or ()),
        keyword=value("keyword"),
        items=tuple(value("item") or ()),
        targets=tuple(value("target") or ()),
        jobs=value("jobs"),
        timeout=value("timeout"),
        out=Path(value("out")),
        known_issue_files=tuple(Path(path) for path in value("known_issues") or ()),
        known_issues=not value("no_known_issues"),
        label=value("label"),
        memory_budget_mib=value("memory_budget"),
        shard=None if shard is None else Shard.parse(shard),
        command=tuple(command),
        replace=bool(value("replace")),
    )
    present = {"repeat": value("repeat"), "crash_budget_s": value("crash_budget")}
    return replace(config, **{key: given for key, given in present.items() if given is not None}, **overrides)
