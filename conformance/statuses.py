"""The statuses a result can have, and every group of them the suite reasons with, each defined
once here (and emitted into the report's data), so the exit code, the JUnit file, the report, the
diff and the certificate cannot disagree about what, say, "failing" means.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

Status: TypeAlias = Literal["pass", "fail", "error", "unsupported", "crash", "timeout", "xfail", "xpass"]

#: What a verdict covers: every value (a backend that computes), or acceptance, output count,
#: shapes and dtypes alone (a shape checker, which computes no values).
Judged: TypeAlias = Literal["values", "shapes"]

#: Whose failure an ``error`` is when it is no verdict on the backend: the adapter's code or the
#: suite's. Never claimed by a known issue, counted apart from findings, exits with DEFECT_EXIT.
Defect: TypeAlias = Literal["adapter", "harness"]
DEFECTS: tuple[Defect, ...] = ("adapter", "harness")
#: Each defect's name, as findings, summaries and the JUnit file's error types say it.
DEFECT_LABELS: dict[str, str] = {"adapter": "adapter defect", "harness": "harness failure"}
#: What each defect means.
DEFECT_MEANINGS: dict[str, str] = {
    "adapter": "adapter defect: the adapter's own code failed; not a verdict on the backend",
    "harness": "harness failure: the suite itself failed on this item; not a verdict on the backend",
}
#: A run's exit status when any result is a defect: the run cannot be trusted as a verdict.
DEFECT_EXIT = 3

#: Every status, in the order reports list them.
STATUSES: tuple[Status, ...] = ("pass", "fail", "error", "unsupported", "crash", "timeout", "xfail", "xpass")

#: One- or two-letter codes, so dense views (the report's matrix) never rely on colour alone.
LETTERS: dict[str, str] = {
    "pass": "P",
    "fail": "F",
    "error": "E",
    "unsupported": "U",
    "crash": "C",
    "timeout": "T",
    "xfail": "XF",
    "xpass": "XP",
}

#: What each status means, as the report's legend says it.
MEANINGS: dict[str, str] = {
    "pass": "matches the reference (or rejected what the spec rejects)",
    "fail": "wrong result, or accepted an input the spec rejects",
    "error": "rejected a valid input",
    "unsupported": "the adapter cannot express it",
    "crash": "the worker died",
    "timeout": "ran past the time limit",
    "xfail": "a known issue, and it failed",
    "xpass": "listed as a known issue, but passed",
}

#: The backend did what the spec says (an xpass did too; only its known-issues entry is stale).
PASSING: frozenset[Status] = frozenset({"pass", "xpass"})
#: The backend departed from the spec and no known issue covers it: what fails a run.
FAILING: frozenset[Status] = frozenset({"fail", "error", "crash", "timeout"})
#: The backend departed from the spec, known or not.
DEVIATING: frozenset[Status] = FAILING | {"xfail"}
#: What needs someone's attention: unexplained departures, and known issues that no longer occur.
PROBLEMS: frozenset[Status] = FAILING | {"xpass"}
#: Results that leave a run green (exit status 0): nothing unexplained went wrong.
GREEN: frozenset[Status] = frozenset({"pass", "xfail", "unsupported"})
#: Not a judgement of the backend at all: left out of pass rates.
NOT_JUDGED: frozenset[Status] = frozenset({"unsupported"})
#: Results worth a reproducer (everything but a plain pass or an inexpressible request).
REPRODUCIBLE: frozenset[Status] = frozenset(STATUSES) - {"pass", "unsupported"}
#: The statuses a known-issue entry turns into xfail unless it lists its own.
KNOWN_ISSUE_DEFAULT: tuple[Status, ...] = tuple(status for status in STATUSES if status in FAILING)

#: JUnit's three kinds of non-pass: failures, errors (the backend broke or refused), skipped.
JUNIT_FAILURES: frozenset[Status] = frozenset({"fail", "xpass"})
JUNIT_ERRORS: frozenset[Status] = frozenset({"error", "crash", "timeout"})
JUNIT_SKIPPED: frozenset[Status] = frozenset({"unsupported", "xfail"})


def groups() -> dict[str, list[str]]:
    """The named groups, for the report's scripts (which filter by them)."""
    named = {"passing": PASSING, "failing": FAILING, "deviating": DEVIATING, "problems": PROBLEMS}
    return {name: [status for status in STATUSES if status in members] for name, members in named.items()}
