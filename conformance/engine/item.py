"""Executing one item on one target, in the current process: the unit the workers repeat. The
phases are timed the same way for every adapter: build, compile, a first run (the warm-up) and
``repeat`` steady-state runs. Exceptions are caught per phase and judged by who raised them;
KeyboardInterrupt and other BaseExceptions are never swallowed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from conformance import ids
from conformance.corpus.case import Case, DataSpec
from conformance.corpus.fill import make_data
from conformance.engine import memory, phase
from conformance.engine.attribution import attribute
from conformance.loading import hooks
from conformance.oracle import reference
from conformance.oracle.answers import answer_for
from conformance.oracle.judging import Judgement, Raised, judge
from conformance.oracle.reference import SpecAnswer
from conformance.plugin import Adapter, ImpossibleOutput, Judged, Target, Task, Unsupported
from conformance.results import evidence
from conformance.results.records import (
    ActualRecord,
    CaseRunRecord,
    ExpectedRecord,
    OutputRecord,
    ParamsRecord,
    RequestParams,
)
from conformance.results.result import Result, Timing
from conformance.statuses import Status


@dataclass(frozen=True)
class Answered:
    """The reference's answer to each run of a (case, op), the case's first, with the records a
    result carries: the case's parameters and, per run, its request and the expected outcome."""

    answers: tuple[SpecAnswer, ...]
    params: ParamsRecord
    requests: tuple[RequestParams, ...]
    expected: tuple[ExpectedRecord, ...]


def answered(case: Case, op: str, params: ParamsRecord | None = None) -> Answered:
    """The answers to ``case`` under ``op`` (``params``: its parameters record, if already made)."""
    runs = case.all_runs
    answers = tuple(answer_for(op, case, run) for run in runs)
    return Answered(
        answers=answers,
        params=evidence.params(case) if params is None else params,
        requests=tuple(evidence.request(run) for run in runs),
        expected=tuple(
            evidence.expected(answer, run.data.shape, run.data.dtype)
            for answer, run in zip(answers, runs, strict=True)
        ),
    )


def make_task(
    case: Case, op: str, data: np.ndarray | None = None, *, fill: Callable[[DataSpec], np.ndarray] = make_data
) -> Task:
    """The task an adapter receives for ``case`` under ``op``, with one further task per run."""
    item = ids.item_id(case.id, op)
    runs = tuple(
        Task(item, op, fill(run.data), run.request, case.graph, case, run_number=run.number)
        for run in case.runs
    )
    data = fill(case.data) if data is None else data
    return Task(item, op, data, case.first_run.request, case.graph, case, runs=runs)


def _ms(start: int) -> float:
    return (time.perf_counter_ns() - start) / 1e6


def _outputs(returned: Any) -> list[np.ndarray]:
    """What ``run`` returned, held to the contract (NumPy arrays): else the adapter's defect."""
    if (
        returned is None
        or isinstance(returned, (np.ndarray, str, bytes, dict))
        or not hasattr(returned, "__iter__")
    ):
        raise TypeError(
            f"the adapter's run() returned {type(returned).__name__}, not a sequence of NumPy arrays "
            "(one per output; see conformance.plugin.Route.run)"
        )
    outputs = list(returned)
    for number, output in enumerate(outputs):
        if not isinstance(output, np.ndarray):
            raise TypeError(
                f"the adapter returned output {number} as {type(output).__name__}, not a NumPy array"
            )
    return outputs


@dataclass(frozen=True)
class Attempt:
    """What one run of the compiled model gave: its outputs, or the refusal, and its time."""

    outputs: list[np.ndarray] | None
    raised: Raised | None
    ms: float | None = None
    #: outputs the backend gave that no array can hold (see conformance.plugin.ImpossibleOutput)
    impossible: ImpossibleOutput | None = None


def _raised(error: Exception, step: str, adapter: Adapter) -> Raised:
    message = str(error).strip() or repr(error)
    who = attribute(error, type(adapter).__module__)
    return Raised(step, type(error).__name__, message, who.origin, who.module)


def build_and_run(
    checked: hooks.Hooks, target: Target, task: Task, repeat: int
) -> tuple[list[Attempt], Timing]:
    """Build and compile ``task`` once, then run it and each of its further runs on that model:
    one attempt per run. A refusal while building or compiling refuses every run; one by a run
    leaves the model to the next. Only the first run is repeated ``repeat`` times. The time until
    a refusal is kept as ``refused_ms``: the backend spent it."""
    adapter, route = checked.adapter, checked.route(target)
    timing: dict[str, Any] = {}
    step = "build"
    try:
        phase.mark(step)
        start = time.perf_counter_ns()
        model = route.build(task, target)
        timing["build_ms"] = _ms(start)
        step = "compile"
        phase.mark(step)
        start = time.perf_counter_ns()
        compiled = checked.compiled(model, target)
        timing["compile_ms"] = _ms(start)
    except Exception as error:  # judged (by who raised it), not propagated
        # the backend's time until it refused is the backend's, not the harness's
        timing["refused_ms"] = _ms(start)
        refusal = _raised(error, step, adapter)
        return [Attempt(None, refusal) for _ in task.every_run], Timing(**timing)
    attempts = []
    refused = 0.0
    for run_task in task.every_run:
        first = run_task is task
        phase.mark("run" if first else f"run {run_task.run_number}")
        try:
            start = time.perf_counter_ns()
            outputs = _outputs(route.run(compiled, run_task))
            elapsed = _ms(start)
            if first:
                timing["first_run_ms"] = elapsed
                phase.mark("steady runs")
                steady = []
                for _ in range(repeat):
                    start = time.perf_counter_ns()
                    route.run(compiled, run_task)
                    steady.append(_ms(start))
                timing["steady_ms"] = tuple(steady)
            attempts.append(Attempt(outputs, None, elapsed))
        except ImpossibleOutput as error:
            attempts.append(Attempt(None, None, _ms(start), error))
        except Exception as error:  # judged, not propagated; the next run still gets the model
            refused += _ms(start)
            attempts.append(Attempt(None, _raised(error, "run", adapter)))
    timing["runs_ms"] = tuple(attempt.ms for attempt in attempts[1:])
    if refused:
        timing["refused_ms"] = refused
    # freeing the model is the backend's work too (destructors, thread pools): timed apart
    phase.mark("release")
    start = time.perf_counter_ns()
    del compiled, model
    timing["release_ms"] = _ms(start)
    return attempts, Timing(**timing)


def bare_result(
    case: Case,
    op: str,
    target: Target,
    message: str,
    status: Status = "error",
    *,
    made: Answered | None = None,
    judged: Judged = "values",
) -> Result:
    """A result that asks nothing of the reference or the fills (for when they fail on the item):
    what every result starts from, carrying the reference's answers ``made`` if given."""
    params: ParamsRecord = {"title": case.title, "source": case.source, "location": str(case.location)}
    expected: ExpectedRecord = {}
    ambiguous = False
    if made is not None:
        params, expected, ambiguous = made.params, made.expected[0], made.answers[0].ambiguous
    return Result(
        case=case.id,
        op=op,
        adapter=target.adapter,
        route=target.route,
        device=target.device,
        status=status,
        message=message,
        params=params,
        expected=expected,
        ambiguous=ambiguous,
        judged=judged,
    )


def pending_result(case: Case, op: str, target: Target, *, judged: Judged = "values") -> Result:
    """A result with what is known before execution: what a crash or timeout is reported from."""
    try:
        made = answered(case, op)
    except reference.TooManyPieces as error:
        return _not_judged(case, op, target, error, judged)
    return bare_result(case, op, target, "", "pass", made=made, judged=judged)


def _not_judged(case: Case, op: str, target: Target, error: Exception, judged: Judged) -> Result:
    """An item one of whose runs asks for more pieces than the reference makes: ``unsupported``,
    with the case's parameters and its first run's answer when that run is not the one."""
    message = f"not judged: {error}"
    try:
        first = answered(replace(case, runs=()), op) if case.runs else None
    except reference.TooManyPieces:
        first = None
    if first is None:
        return bare_result(case, op, target, message, "unsupported")
    return bare_result(case, op, target, message, "unsupported", made=first, judged=judged)


class LargeInput:
    """A worker's input of its last large item, kept read-only for the next with the same data: the
    large items run in a row on one worker, and one input costs a thousand mappings to make."""

    def __init__(self) -> None:
        self.spec: DataSpec | None = None
        self.array: np.ndarray | None = None

    def keep_only(self, spec: DataSpec | None) -> None:
        """Free the input unless the next job's data is ``spec`` (None: free it anyway)."""
        if spec is None or spec != self.spec:
            self.spec, self.array = None, None

    def held(self, spec: DataSpec) -> int:
        """The bytes of ``spec``'s input in memory already (not to be found again)."""
        return self.array.nbytes if self.array is not None and spec == self.spec else 0

    def data(self, spec: DataSpec) -> np.ndarray:
        if self.array is None or spec != self.spec:
            self.spec, self.array = spec, make_data(spec)
            self.array.flags.writeable = False
        return self.array


def run_item(
    adapter: Adapter | hooks.Hooks,
    target: Target,
    case: Case,
    op: str,
    repeat: int = 3,
    *,
    judged: Judged = "values",
    kept: LargeInput | None = None,
) -> Result:
    """Execute and judge one (case, op) on ``target``: every run against its own reference answer.
    ``adapter``: its checked hooks, or an adapter object, checked here; ``judged``: what the route
    is judged on; ``kept``: a worker's large input, kept for its next large item."""
    phase.mark("reference")
    try:
        made = answered(case, op)
    except reference.TooManyPieces as error:  # nothing is built or allocated for it
        return _not_judged(case, op, target, error, judged)
    base = bare_result(case, op, target, "", "pass", made=made, judged=judged)
    with memory.reserved(case, kept.held(case.data) if kept is not None else 0) as too_big:
        if too_big:
            return base.with_status("unsupported", f"not attempted: {too_big}")
        large = memory.is_large(case)
        # Steady-state timing of a multi-GiB item would only repeat seconds of copying.
        steady = 0 if large else repeat
        phase.mark("data")
        task = make_task(case, op, kept.data(case.data) if large and kept is not None else None)
        return _judged(hooks.of(adapter), target, task, steady, made, base)


def _judged(
    checked: hooks.Hooks, target: Target, task: Task, repeat: int, made: Answered, base: Result
) -> Result:
    case = task.case
    phase.mark("support")
    try:
        refusal = checked.unsupported(task, target)
    except Exception as error:  # a broken adapter, not a refusal by its backend
        return base.with_defect("adapter", f"the adapter's support() raised {type(error).__name__}: {error}")
    if isinstance(refusal, Unsupported):
        return base.with_status("unsupported", refusal.reason)
    attempts, timing = build_and_run(checked, target, task, repeat)
    phase.mark("judging")
    values = base.judged == "values"
    outcomes = [
        _outcome(run_task, made, attempt, values=values)
        for run_task, attempt in zip(task.every_run, attempts, strict=True)
    ]
    deciding = worst(outcomes)
    chosen = outcomes[deciding]
    message = chosen["message"]
    if case.runs:
        message = (
            f"all {len(outcomes)} runs pass; run 1: {message}"
            if chosen["status"] == "pass"
            else f"{chosen['label']}: {message}"
        )
    return replace(
        base,
        status=chosen["status"],
        message=message,
        expected=chosen["expected"],
        actual=chosen["actual"],
        mismatch=chosen["mismatch"],
        reading=chosen.get("reading"),
        ambiguous=made.answers[deciding].ambiguous,
        timing=timing,
        run=deciding + 1 if case.runs else None,
        runs=tuple(outcomes) if case.runs else (),
        defect="adapter" if _adapter_defect(chosen) else None,
    )


def _adapter_defect(outcome: CaseRunRecord) -> bool:
    """Whether the run ended on an exception of the adapter's own code (see .attribution)."""
    raised = outcome["actual"].get("raised")
    return outcome["status"] == "error" and raised is not None and raised.get("origin") == "adapter"


#: How bad a run's verdict is, for the item's status: the adapter's defect first, a departure from
#: the spec next, then a request the suite could not build, then a pass; equals go to the earliest.
_SEVERITY: dict[str, int] = {"fail": 2, "error": 2, "unsupported": 1, "pass": 0}


def worst(outcomes: list[CaseRunRecord]) -> int:
    """The index of the run whose verdict the item takes."""

    def severity(index: int) -> tuple[int, int]:
        outcome = outcomes[index]
        return (3 if _adapter_defect(outcome) else _SEVERITY.get(outcome["status"], 2), -index)

    return max(range(len(outcomes)), key=severity)


def _outcome(task: Task, made: Answered, attempt: Attempt, *, values: bool) -> CaseRunRecord:
    """One run judged against the reference's answer for its own request."""
    number = task.run_number
    actual: ActualRecord
    if attempt.impossible is not None:
        judgement = Judgement("fail", str(attempt.impossible))
        actual = {"outputs": _impossible_outputs(attempt.impossible)}
    else:
        judgement = judge(made.answers[number - 1], task.data, attempt.outputs, attempt.raised, values=values)
        raised = attempt.raised
        actual = (
            {"raised": evidence.raised(raised)}
            if raised
            else {"outputs": evidence.outputs(attempt.outputs or [])}
        )
    mismatch = evidence.mismatch(judgement.mismatch) if judgement.mismatch else None
    if mismatch is not None and task.case.runs:
        mismatch["run"] = number
    return {
        "run": number,
        "label": task.run_label,
        "request": made.requests[number - 1],
        "status": judgement.status,
        "message": judgement.message,
        "expected": made.expected[number - 1],
        "actual": actual,
        "mismatch": mismatch,
        "reading": judgement.reading,
    }


def _impossible_outputs(impossible: ImpossibleOutput) -> list[OutputRecord]:
    """The shapes and dtype of outputs no array can hold, as the results record outputs."""
    return [{"shape": shape, "dtype": impossible.dtype} for shape in impossible.shapes]
