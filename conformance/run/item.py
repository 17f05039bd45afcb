"""Executing one item on one target, in the current process: the unit the workers repeat.

The phases are timed here, the same way for every adapter: build, compile, a first run (which
doubles as warm-up) and ``repeat`` steady-state runs. Exceptions are caught per phase and
become the backend's refusal (see :mod:`conformance.plugin`); KeyboardInterrupt and other
BaseExceptions are never swallowed.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import numpy as np

from conformance import ids
from conformance.corpus.case import Case
from conformance.corpus.fill import make_data
from conformance.oracle import reference
from conformance.oracle.judging import Raised, judge
from conformance.oracle.reference import SpecAnswer, SplitRequest
from conformance.plugin import AnyAdapter, Target, Task, Unsupported
from conformance.results import evidence
from conformance.results.records import ActualRecord
from conformance.results.result import Result, Timing
from conformance.run.attribution import attribute
from conformance.statuses import Status


def make_task(case: Case, op: str, data: np.ndarray | None = None) -> Task:
    """The task an adapter receives for ``case`` under ``op`` (data made from the case's fill)."""
    return Task(
        item_id=ids.item_id(case.id, op),
        op=op,
        data=make_data(case.data) if data is None else data,
        axis=case.axis,
        form=case.form,
        graph=case.graph,
        case=case,
    )


def _ms(start: int) -> float:
    return (time.perf_counter_ns() - start) / 1e6


def _outputs(returned: Any) -> list[np.ndarray]:
    outputs = list(returned)
    for number, output in enumerate(outputs):
        if not isinstance(output, np.ndarray):
            raise TypeError(
                f"the adapter returned output {number} as {type(output).__name__}, not a NumPy array"
            )
    return outputs


def execute(
    adapter: AnyAdapter, target: Target, task: Task, repeat: int
) -> tuple[list[np.ndarray] | None, Raised | None, Timing]:
    """Build, compile and run ``task``; the outputs or the refusal, and the time of each phase."""
    timing: dict[str, Any] = {}
    phase = "build"
    try:
        start = time.perf_counter_ns()
        model = adapter.build(task, target)
        timing["build_ms"] = _ms(start)
        phase = "compile"
        start = time.perf_counter_ns()
        compiled = adapter.compile(model, target)
        timing["compile_ms"] = _ms(start)
        phase = "run"
        start = time.perf_counter_ns()
        outputs = _outputs(adapter.run(compiled, task))
        timing["first_run_ms"] = _ms(start)
        steady = []
        for _ in range(repeat):
            start = time.perf_counter_ns()
            adapter.run(compiled, task)
            steady.append(_ms(start))
        timing["steady_ms"] = tuple(steady)
    except Exception as error:  # judged (by who raised it), not propagated
        message = str(error).strip() or repr(error)
        who = attribute(error, type(adapter).__module__)
        return None, Raised(phase, type(error).__name__, message, who.origin, who.module), Timing(**timing)
    return outputs, None, Timing(**timing)


def bare_result(case: Case, op: str, target: Target, message: str, status: Status = "error") -> Result:
    """A result that asks nothing of the reference or the fills: what an item is reported with
    when they fail on it themselves (so the worker lives on), and what every result starts from."""
    return Result(
        case=case.id,
        op=op,
        adapter=target.adapter,
        route=target.route,
        device=target.device,
        status=status,
        message=message,
        params={"title": case.title, "source": case.source, "location": str(case.location)},
    )


def pending_result(case: Case, op: str, target: Target, answer: SpecAnswer | None = None) -> Result:
    """A result with everything known before execution: the parameters and the reference's answer.

    The executor fills in a crash or timeout from it when a worker cannot report.
    """
    answer = answer or reference.answer(op, SplitRequest.of(case))
    return replace(
        bare_result(case, op, target, "", "pass"),
        params=evidence.params(case),
        expected=evidence.expected(answer, case.data.shape, case.data.dtype),
        ambiguous=answer.ambiguous,
    )


def run_item(adapter: AnyAdapter, target: Target, case: Case, op: str, repeat: int = 3) -> Result:
    """Execute and judge one (case, op) on ``target``."""
    task = make_task(case, op)
    answer = reference.answer(op, SplitRequest.of(case))
    base = pending_result(case, op, target, answer)
    try:
        refusal = adapter.support(task, target)
    except Exception as error:  # a broken adapter, not a refusal by its backend
        return base.with_status("error", f"the adapter's support() raised {type(error).__name__}: {error}")
    if isinstance(refusal, Unsupported):
        return base.with_status("unsupported", refusal.reason)
    outputs, raised, timing = execute(adapter, target, task, repeat)
    judgement = judge(answer, task.data, outputs, raised)
    actual: ActualRecord = (
        {"raised": evidence.raised(raised)} if raised else {"outputs": evidence.outputs(outputs or [])}
    )
    return replace(
        base,
        status=judgement.status,
        message=judgement.message,
        actual=actual,
        mismatch=evidence.mismatch(judgement.mismatch) if judgement.mismatch else None,
        reading=judgement.reading,
        timing=timing,
    )
