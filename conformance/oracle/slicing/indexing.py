"""Arithmetic the Slice-family documents share: Python's slicing of one dimension (which NumPy's
page, OpenVINO's Slice-8 and TensorFlow's strided slice all point to), the axes list, and the
checks several texts state alike. Each check raises :class:`RuleViolation` with a stable rule id
and a sentence naming the text it applies (docs/specs.md, "The Slice family").

The bounds are Python integers, so the INT64 and INT32 sentinels need no care: adding a dimension
to INT64_MIN cannot overflow here, whatever a backend's arithmetic does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ParamSpec

from conformance.oracle.reference.answer import Reading, Rejection, SpecAnswer, SpecOutcome
from conformance.oracle.reference.rules import RuleViolation
from conformance.oracle.slicing.window import Span, span_length, span_of

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def from_end(index: int, dim: int) -> int:
    """A negative index counts from the end of the dimension (every text says so)."""
    return index + dim if index < 0 else index


def clamp(value: int, low: int, high: int) -> int:
    return min(max(value, low), high)


def between(first: int, end: int, step: int) -> Span:
    """The indices ``first, first + step, ...`` strictly before ``end`` in the step's direction."""
    return span_of(first, step, span_length((first, end, step)))


def python_span(dim: int, start: int | None, stop: int | None, step: int) -> Span:
    """Python's rules for ``x[start:stop:step]`` on one dimension: negative bounds count from the
    end, bounds are clamped to the dimension ([0, dim] forward, [-1, dim - 1] backward, -1 being
    "past index 0"), and an omitted bound is the fullest range in the step's direction, as NumPy's
    page spells out (start 0 or n - 1, stop n or -n - 1)."""
    if step > 0:
        first = 0 if start is None else clamp(from_end(start, dim), 0, dim)
        end = dim if stop is None else clamp(from_end(stop, dim), 0, dim)
    else:
        first = dim - 1 if start is None else clamp(from_end(start, dim), -1, dim - 1)
        end = -1 if stop is None else clamp(from_end(stop, dim), -1, dim - 1)
    return between(first, end, step)


def integers(values: Sequence[int | None]) -> list[int]:
    """Bounds that are all given: only Python's slicing can omit one, and semantics.expressible
    keeps omitted bounds away from the other ops."""
    assert all(value is not None for value in values), "semantics.expressible keeps omitted bounds away"
    return [value for value in values if value is not None]


def normalize_axes(axes: Sequence[int], rank: int, spec: str, *, negative: bool = True) -> list[int]:
    """The axes as dimension indices, or an ``axis-range`` violation: [-rank, rank - 1], or
    [0, rank - 1] for texts that define no negative axis."""
    low = -rank if negative else 0
    outside = [axis for axis in axes if not low <= axis <= rank - 1]
    if outside:
        where = "a rank-0 tensor has no axis" if rank == 0 else f"axes lie in [{low}, {rank - 1}]"
        raise RuleViolation("axis-range", f"{spec}: {where}; got {list(axes)} for rank {rank}")
    return [from_end(axis, rank) for axis in axes]


def repeated(axes: Sequence[int]) -> list[int]:
    """The normalized axes that appear more than once, in order."""
    return sorted({axis for axis in axes if list(axes).count(axis) > 1})


def require_same_lengths(spec: str, why: str, **vectors: Sequence[object] | None) -> None:
    """Index vectors that correspond entry by entry have one length (``index-lengths``)."""
    given = {name: len(vector) for name, vector in vectors.items() if vector is not None}
    if len(set(given.values())) > 1:
        listed = ", ".join(f"{name} {length}" for name, length in given.items())
        raise RuleViolation("index-lengths", f"{spec}: {why}; got lengths {listed}")


def require_nonzero_steps(steps: Sequence[int], spec: str, why: str) -> None:
    """A step of 0 never moves towards the end (``step-zero``)."""
    if 0 in steps:
        raise RuleViolation("step-zero", f"{spec}: {why}; got steps {list(steps)}")


#: the parameters of the rules function :func:`attempt` calls
_Args = ParamSpec("_Args")


def attempt(
    rules: Callable[_Args, SpecAnswer | SpecOutcome], *args: _Args.args, **kwargs: _Args.kwargs
) -> SpecAnswer:
    """``rules(*args)`` as an answer, a violation as its rejection: one reading among several."""
    try:
        return SpecAnswer.wrap(rules(*args, **kwargs))
    except RuleViolation as violation:
        return SpecAnswer.of(violation.rejection)


def either(options: Sequence[tuple[str, SpecAnswer | SpecOutcome]], ambiguity: str) -> SpecAnswer:
    """One answer from the readings a text admits: ambiguous only when they disagree. Readings that
    give the same outcome merge (the first label stays), readings that all reject are one
    rejection, and a reading that is itself ambiguous contributes each of its readings."""
    readings: list[Reading] = []
    reasons = [ambiguity]
    for label, option in options:
        answer = SpecAnswer.wrap(option)
        if answer.ambiguity is not None and answer.ambiguity not in reasons:
            reasons.append(answer.ambiguity)
        for reading in answer.readings:
            if all(reading.outcome != kept.outcome for kept in readings):
                own = f"{label}; {reading.label}" if answer.ambiguous else label
                readings.append(Reading(reading.outcome, own))
    if len(readings) == 1 or all(isinstance(reading.outcome, Rejection) for reading in readings):
        return SpecAnswer.of(readings[0].outcome)
    return SpecAnswer(tuple(readings), ambiguity="; ".join(reasons))
