"""Judging what a backend did against what the reference says.

Against a reading that accepts, outputs are compared bit-exactly and raising is an ``error``;
against one that rejects, raising passes and outputs ``fail``. An ambiguous answer passes when any
reading matches. Only the backend can refuse: the adapter's own exception is an ``error``, the
suite's model builders' is ``unsupported`` (:mod:`conformance.engine.attribution`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, TypeAlias

import numpy as np

from conformance.oracle.compare import Mismatch, diff_outputs
from conformance.oracle.reference import Reading, Rejection, SpecAnswer
from conformance.statuses import Status

#: How running out of memory shows: Python's MemoryError, or C++'s bad_alloc passed through.
_MEMORY = re.compile(r"\bbad_alloc\b|out of memory|cannot allocate memory", re.IGNORECASE)


def _out_of_memory(raised: Raised) -> bool:
    """Whether the exception is a failed allocation: never the refusal a spec asks for."""
    return raised.type == "MemoryError" or bool(_MEMORY.search(raised.message))


#: Who raised an exception: only the backend's can be the refusal a spec asks for.
Origin: TypeAlias = Literal["backend", "adapter", "suite"]


@dataclass(frozen=True)
class Raised:
    """An exception an execution ended with: the phase, the exception, and who raised it."""

    phase: str  # "build" | "compile" | "run"
    type: str
    message: str
    origin: Origin = "backend"  # see conformance.engine.attribution
    module: str = ""  # the module that decided the origin


@dataclass(frozen=True)
class Judgement:
    status: Status
    message: str
    mismatch: Mismatch | None = None
    reading: str | None = None


def judge(
    answer: SpecAnswer,
    data: np.ndarray,
    outputs: list[np.ndarray] | None,
    raised: Raised | None,
    *,
    values: bool = True,
) -> Judgement:
    """The status of one execution: ``outputs`` when the backend returned, ``raised`` when it refused;
    ``values=False`` (a shape checker) judges everything but the elements."""
    if raised is not None and _out_of_memory(raised):
        return Judgement(
            "error",
            f"out of memory in {raised.phase}: {raised.type}: {raised.message}; running out of memory "
            "is no rejection (give the run more with --memory-budget, or a machine with more memory)",
        )
    if raised is not None and raised.origin == "adapter":
        return Judgement(
            "error",
            f"adapter defect in {raised.phase} ({raised.module}): {raised.type}: {raised.message}; "
            f"only the backend's refusal counts",
        )
    if raised is not None and raised.origin == "suite":
        return Judgement(
            "unsupported",
            f"cannot be built by the suite's model builder ({raised.module}): "
            f"{raised.type}: {raised.message}",
        )
    judgements = [_against(reading, data, outputs, raised, values) for reading in answer.readings]
    if not answer.ambiguous:
        return judgements[0]
    for reading, judgement in zip(answer.readings, judgements, strict=True):
        if judgement.status == "pass":
            return Judgement(
                "pass", f"matches the reading '{reading.label}' ({answer.ambiguity})", None, reading.label
            )
    labels = ", ".join(f"'{reading.label}'" for reading in answer.readings)
    status: Status = "error" if raised is not None else "fail"
    return Judgement(
        status, f"matches none of the readings {labels}: {judgements[0].message}", judgements[0].mismatch
    )


def _against(
    reading: Reading, data: np.ndarray, outputs: list[np.ndarray] | None, raised: Raised | None, values: bool
) -> Judgement:
    outcome = reading.outcome
    if isinstance(outcome, Rejection):
        if raised is not None:
            return Judgement(
                "pass", f"rejected as the spec requires ({outcome.rule}): {raised.type}: {raised.message}"
            )
        assert outputs is not None
        shapes = [list(array.shape) for array in outputs]
        return Judgement(
            "fail",
            f"accepted an input the spec rejects ({outcome.rule}: {outcome.reason}); "
            f"returned {len(outputs)} outputs of shapes {shapes}",
        )
    if raised is not None:
        return Judgement(
            "error", f"rejected a valid input in {raised.phase}: {raised.type}: {raised.message}"
        )
    assert outputs is not None
    mismatch = diff_outputs(outcome.take(data), outputs, values=values)
    if mismatch is None:
        how = "bit for bit" if values else "in count, shapes and dtypes (values not judged)"
        return Judgement("pass", f"{len(outputs)} outputs match {how}")
    return Judgement("fail", mismatch.message, mismatch)
