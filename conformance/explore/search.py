"""The search over one op's parameter space, in rounds with the same seed.

Each drawn request runs on every target of the op; the first result that deviates from the spec
with a findings signature not met before becomes the round's focus, and the test fails. While
Hypothesis shrinks, each candidate runs on the focus target alone and counts as failing only with
the same signature, so a crash shrinks to a smaller crash, never into another problem. The next
round replays the cached requests up to that finding and looks for the next signature. The search
stops when ``max_examples`` draws find no new signature, or when the op's time is up (a shrink in
progress keeps its smallest request so far).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, reject, seed, settings

from conformance.corpus import catalogue
from conformance.corpus.case import Case
from conformance.corpus.loader import CaseFileErrors
from conformance.explore import generated, slice_space, space
from conformance.explore.limits import Limits
from conformance.oracle.corpus_check import unrepresentable
from conformance.results.findings import signature
from conformance.results.result import Result
from conformance.statuses import DEVIATING

#: Runs a case on the named targets (None: every target of the op) and returns each result,
#: judged and with the known issues applied; ``record`` says whether it belongs to the results
#: (drawn requests) or is a shrinking step (only the final one is kept).
Execute = Callable[[str, Case, Sequence[str] | None, bool], dict[str, Result]]
#: Told of every drawn request: op, requests drawn, findings so far, shrink steps.
ProgressCallback = Callable[[str, int, int, int], None]


#: Each operator family's parameter space: a strategy drawing case documents for one op.
SPACES: dict[str, Callable[[str, Limits], Any]] = {
    "split": space.case_documents,
    "slice": slice_space.case_documents,
}


class BudgetSpent(BaseException):
    """The op's time is up: a BaseException, so Hypothesis lets it through instead of shrinking it."""


class _Deviates(Exception):
    """The test's failure: the request shows the signature the round is after."""


@dataclass(frozen=True)
class ShrunkDisagreement:
    """One distinct disagreement, with the smallest request found to show it."""

    op: str
    signature: tuple[str, ...]
    case: Case
    #: the request as a case file's body (data, axis, form, graph, runs)
    document: dict[str, Any]
    result: Result
    #: False when the time ran out before Hypothesis finished shrinking
    shrunk: bool
    #: candidate requests run while shrinking
    steps: int

    @property
    def target(self) -> str:
        return self.signature[0]


def op_seed(run_seed: int, op: str) -> int:
    """Each op's own Hypothesis seed, stable across runs and Python processes."""
    digest = hashlib.sha256(f"{run_seed}:{op}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class OpSearch:
    """The rounds of one op (see the module's docstring)."""

    def __init__(
        self,
        op: str,
        execute: Execute,
        *,
        run_seed: int,
        limits: Limits,
        max_examples: int,
        deadline: float,
        progress: ProgressCallback | None = None,
    ) -> None:
        self.op = op
        self.entry = catalogue.get(op)
        self.execute = execute
        self.run_seed = run_seed
        self.limits = limits
        self.max_examples = max_examples
        self.deadline = deadline
        self.progress = progress
        self.findings: list[ShrunkDisagreement] = []
        self.drawn: set[str] = set()  # ids of the requests drawn (replays of a round not counted again)
        self._done: set[tuple[str, ...]] = set()
        self._focus: tuple[str, ...] | None = None
        self._best: tuple[Case, dict[str, Any], Result] | None = None
        self._steps = 0

    def run(self) -> list[ShrunkDisagreement]:
        """Every round until no new signature turns up or the time is up."""
        test = self._test()
        while True:
            self._focus, self._best, self._steps = None, None, 0
            try:
                test()
            except (BudgetSpent, KeyboardInterrupt) as stop:
                self._keep(shrunk=False)  # a shrink cut short keeps its smallest request so far
                if isinstance(stop, KeyboardInterrupt):
                    raise
                return self.findings
            except Exception:
                if self._best is None:  # a defect of the suite, not a finding
                    raise
                self._keep(shrunk=True)
                continue
            return self.findings

    def _keep(self, *, shrunk: bool) -> None:
        if self._focus is None or self._best is None:
            return
        case, document, result = self._best
        self._done.add(self._focus)
        self.findings.append(
            ShrunkDisagreement(self.op, self._focus, case, document, result, shrunk, self._steps)
        )

    def _test(self) -> Callable[[], None]:
        strategy = SPACES[self.entry.family](self.op, self.limits)
        config = settings(
            max_examples=self.max_examples,
            database=None,
            deadline=None,
            phases=[Phase.generate, Phase.shrink],
            report_multiple_bugs=False,
            verbosity=Verbosity.quiet,
            suppress_health_check=list(HealthCheck),
            print_blob=False,
        )
        test: Callable[[], None] = seed(op_seed(self.run_seed, self.op))(config(given(strategy)(self._probe)))
        return test

    def _probe(self, document: dict[str, Any]) -> None:
        """Hypothesis's test: run the request; fail when it shows the round's (or a new) signature."""
        if time.monotonic() >= self.deadline:
            raise BudgetSpent
        try:
            case = generated.to_case(self.op, document, self.run_seed)
        except CaseFileErrors:
            reject()  # a draw the case format refuses (rare: the space is built to fit it)
        if catalogue.why_not_applicable(case, self.entry) is not None or unrepresentable(case):
            reject()  # not a request the case format can state (an axis of -1 in a uint32 input)
        if self._focus is None:
            self._draw(case, document)
        else:
            self._shrink_step(case, document, self._focus)

    def _draw(self, case: Case, document: dict[str, Any]) -> None:
        self.drawn.add(case.id)
        results = self.execute(self.op, case, None, True)
        if self.progress:
            self.progress(self.op, len(self.drawn), len(self.findings), self._steps)
        for result in results.values():
            if result.status not in DEVIATING:
                continue
            found = signature(result.to_json())
            if found not in self._done:
                self._focus = found
                self._fail(case, document, result)

    def _shrink_step(self, case: Case, document: dict[str, Any], focus: tuple[str, ...]) -> None:
        self._steps += 1
        result = self.execute(self.op, case, [focus[0]], False)[focus[0]]
        if self.progress and self._steps % 10 == 0:
            self.progress(self.op, len(self.drawn), len(self.findings), self._steps)
        if result.status in DEVIATING and signature(result.to_json()) == focus:
            self._fail(case, document, result)

    def _fail(self, case: Case, document: dict[str, Any], result: Result) -> None:
        """Fail the test with this request as the smallest so far, always from this line: Hypothesis
        tells failures apart by where they are raised, and shrinks only towards the same one."""
        self._best = (case, document, result)
        raise _Deviates(self._focus)
