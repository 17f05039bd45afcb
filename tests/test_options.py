"""The option table (conformance.options): every front door declares its options from it, one
name means one thing, each value is checked the same way everywhere, and ``run --resume`` tells
the options given now from the journaled ones by the same entries."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from conformance import arguments, options
from conformance.cli import main

TESTS = Path(__file__).resolve().parent


def _verb(name: str) -> argparse.ArgumentParser:
    _, verbs = arguments.parser()
    return verbs.choices[name]


def _declared(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {
        action.dest: action for action in parser._actions if action.option_strings and action.dest != "help"
    }


@pytest.mark.parametrize(
    "verb, dests",
    [
        ("validate", options.VALIDATE),
        ("run", options.RUN),
        ("explore", options.EXPLORE),
        ("certify", options.CERTIFY),
    ],
)
def test_each_verb_declares_exactly_its_table_entries(verb: str, dests: tuple[str, ...]) -> None:
    declared = _declared(_verb(verb))
    assert set(declared) == set(dests)
    for dest, action in declared.items():
        entry = options.TABLE[dest]
        assert tuple(action.option_strings) == entry.flags
        assert action.type is entry.type
        # a default the verb works out itself is described in words (certify's --out)
        assert action.help == entry.help or action.help == entry.help.replace(
            "%(default)s/", "reports/certify/ADAPTER-PROFILE/"
        )


@pytest.mark.parametrize("verb", ["validate", "list", "run", "explore", "certify"])
def test_every_verb_takes_case_files_as_repeatable_cases(verb: str) -> None:
    """One way to name case files: ``--cases PATH``, repeatable, on every verb that reads them
    (validate and list took them as positional arguments before)."""
    parser = _verb(verb)
    assert [action.dest for action in parser._actions if not action.option_strings] == []
    cases = _declared(parser)["cases"]
    assert tuple(cases.option_strings) == options.TABLE["cases"].flags
    assert isinstance(cases, argparse._AppendAction)
    assert parser.parse_args(["--cases", "a.yaml", "--cases", "b"]).cases == ["a.yaml", "b"]


def test_one_name_one_meaning_across_the_verbs() -> None:
    """A flag is declared with one dest, type and help wherever it appears (explore's largest
    input is --max-data, not a second --memory-budget)."""
    seen: dict[str, tuple[object, ...]] = {}
    for verb in ("validate", "list", "run", "explore", "certify"):
        for action in _declared(_verb(verb)).values():
            for flag in action.option_strings:
                shape = (action.dest, action.type, action.metavar)
                assert seen.setdefault(flag, shape) == shape, flag
    assert "--memory-budget" not in _verb("explore").format_help()


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv, said",
    [
        (["-j", "0"], "must be at least 1"),
        (["--timeout", "0"], "must be above 0"),
        (["--repeat", "-1"], "must be at least 0"),
        (["--memory-budget", "lots"], "is not an int"),
        (["--crash-budget", "-5"], "must be at least 0"),
    ],
)
def test_bad_values_are_refused_alike_by_the_cli_and_the_pytest_plugin(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    with pytest.raises(SystemExit) as ended:
        main(["run", *argv])
    assert ended.value.code == 2 and said in capsys.readouterr().err
    flag, value = argv
    long = "--conformance-jobs" if flag == "-j" else flag.replace("--", "--conformance-")
    result = pytester.runpytest_subprocess("--adapter", "numpy", f"{long}={value}")
    assert result.ret == 4 and said in "\n".join(result.errlines)  # pytest's usage error


def test_the_plugin_takes_runs_options_with_the_same_defaults(pytestconfig: pytest.Config) -> None:
    group = _Recorder()
    options.add_to_pytest(group)
    assert [names[0] for names, _ in group.added] == [
        f"--conformance-{options.TABLE[d].long}" for d in options.PYTEST
    ]
    by_dest = {keywords["dest"]: keywords for _, keywords in group.added}
    run = _declared(_verb("run"))
    for dest in options.PYTEST:
        mine, theirs = by_dest[options.PYTEST_DEST + dest], run[dest]
        assert mine.get("type") is theirs.type and mine["help"] == theirs.help
        # a repeatable option starts from [] in pytest (its getoption), from None in argparse
        expected = [] if options.TABLE[dest].action == "append" else theirs.default
        assert mine.get("default") == expected, dest


class _Recorder:
    def __init__(self) -> None:
        self.added: list[tuple[tuple[str, ...], dict[str, object]]] = []

    def addoption(self, *names: str, **keywords: object) -> None:
        self.added.append((names, keywords))


def test_given_names_only_what_the_command_line_gave() -> None:
    assert options.given(options.RUN, ["--resume", "-j", "4"]) == {"resume": "", "jobs": 4}
    assert options.given(options.RUN, ["--no-known-issues", "--op", "a", "--op", "b"]) == {
        "no_known_issues": True,
        "op": ["a", "b"],
    }
    assert options.given(options.RUN, []) == {}


@pytest.mark.slow
def test_the_plugin_narrows_to_a_target_and_writes_its_label(pytester: pytest.Pytester) -> None:
    """Options the plugin lacked before the table: --conformance-target, --conformance-label."""
    pytester.makefile(
        ".yaml",
        few="defaults: {source: t, data: {dtype: int32}, ops: [numpy.array_split, torch.chunk]}\n"
        "cases:\n  - {id: fine, title: t, data: {shape: [6]}, axis: 0, parts: 2}\n",
    )
    result = pytester.runpytest_subprocess(
        "few.yaml",
        "--adapter",
        "numpy",
        "--conformance-target",
        "*/numpy/*",
        "--conformance-label",
        "numpy@test",
        "-p",
        "no:cacheprovider",
    )
    assert result.ret == 0, result.outlines
    result.assert_outcomes(passed=1)
    written = (pytester.path / "reports" / "results.json").read_text()
    assert '"adapter": "numpy@test"' in written and "torch.chunk" not in written


@pytest.mark.slow
def test_help_lists_the_units() -> None:
    process = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "explore", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "--max-data MIB" in process.stdout and "--timeout S" in process.stdout
