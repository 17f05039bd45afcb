"""Judging what a backend did against what the reference says.

A backend either returns outputs or raises. Against a reading that accepts, outputs are
compared bit-exactly (count, shapes, dtypes, values) and raising is an ``error``; against a
reading that rejects, raising is a pass and any outputs are a ``fail`` (it accepted what the
spec forbids). An ambiguous answer passes when any reading matches, and records which one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from conformance.oracle.compare import Mismatch, diff_outputs
from conformance.oracle.reference import Reading, Rejection, SpecAnswer
from conformance.statuses import Status


@dataclass(frozen=True)
class Raised:
    """A backend's refusal: the phase it came from and the exception it raised."""

    phase: str  # "build" | "compile" | "run"
    type: str
    message: str


@dataclass(frozen=True)
class Judgement:
    status: Status
    message: str
    mismatch: Mismatch | None = None
    reading: str | None = None


def judge(
    answer: SpecAnswer, data: np.ndarray, outputs: list[np.ndarray] | None, raised: Raised | None
) -> Judgement:
    """The status of one execution: ``outputs`` when the backend returned, ``raised`` when it refused."""
    judgements = [_against(reading, data, outputs, raised) for reading in answer.readings]
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
    reading: Reading, data: np.ndarray, outputs: list[np.ndarray] | None, raised: Raised | None
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
    mismatch = diff_outputs(outcome.take(data), outputs)
    if mismatch is None:
        return Judgement("pass", f"{len(outputs)} outputs match bit for bit")
    return Judgement("fail", mismatch.message, mismatch)
