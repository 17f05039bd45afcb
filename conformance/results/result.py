"""One result: a (case, op, target) execution with its status, evidence and timing.

Results travel from worker processes to the journal, the results file and the reports, so
they are plain data with a lossless JSON form (``to_json`` / ``from_json``).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeAlias, cast

Status: TypeAlias = Literal[
    "pass", "fail", "error", "unsupported", "crash", "timeout", "xfail", "xpass", "skip"
]
STATUSES: tuple[Status, ...] = (
    "pass",
    "fail",
    "error",
    "unsupported",
    "crash",
    "timeout",
    "xfail",
    "xpass",
    "skip",
)
#: Statuses that leave a run green.
GREEN: frozenset[Status] = frozenset({"pass", "xfail", "unsupported", "skip"})

JSON: TypeAlias = dict[str, Any]


@dataclass(frozen=True)
class Timing:
    """Milliseconds per phase, measured by the executor the same way for every adapter."""

    build_ms: float | None = None
    compile_ms: float | None = None
    first_run_ms: float | None = None
    steady_ms: tuple[float, ...] = ()

    @property
    def steady_median_ms(self) -> float | None:
        return statistics.median(self.steady_ms) if self.steady_ms else None

    @property
    def backend_ms(self) -> float:
        """Everything spent inside the backend: build, compile and every run."""
        parts = (self.build_ms, self.compile_ms, self.first_run_ms, *self.steady_ms)
        return sum(part for part in parts if part is not None)


@dataclass(frozen=True)
class Result:
    case: str
    op: str
    adapter: str
    route: str
    device: str
    status: Status
    message: str
    params: JSON = field(default_factory=dict)
    expected: JSON = field(default_factory=dict)
    actual: JSON = field(default_factory=dict)
    mismatch: JSON | None = None
    timing: Timing = field(default_factory=Timing)
    #: for an ambiguous verdict: the label of the reading the backend matched, if any
    reading: str | None = None
    ambiguous: bool = False
    #: the expectations-file entry that made this an xfail or xpass
    known_issue: JSON | None = None
    #: the worker that produced it: pid, peak resident memory in KiB, elapsed ms for the item
    worker: JSON | None = None
    #: for results that are not a plain pass: {"command": ..., "python": ...} (see reproducers)
    reproducer: JSON | None = None

    @property
    def item_id(self) -> str:
        return f"{self.case}::{self.op}"

    @property
    def target_id(self) -> str:
        return f"{self.adapter}/{self.route}/{self.device}"

    @property
    def key(self) -> str:
        """Unique within a run: the item on the target."""
        return f"{self.item_id}@{self.target_id}"

    def with_status(self, status: Status, message: str, known_issue: JSON | None = None) -> Result:
        return replace(self, status=status, message=message, known_issue=known_issue)

    def to_json(self) -> JSON:
        """Field by field rather than dataclasses.asdict, whose deep copies dominate a fast run."""
        body = {name: getattr(self, name) for name in self.__dataclass_fields__}
        timing = self.timing
        body["timing"] = {
            "build_ms": timing.build_ms,
            "compile_ms": timing.compile_ms,
            "first_run_ms": timing.first_run_ms,
            "steady_ms": list(timing.steady_ms),
            "steady_median_ms": timing.steady_median_ms,
        }
        return body

    @classmethod
    def from_json(cls, body: JSON) -> Result:
        timing = dict(body.get("timing") or {})
        timing.pop("steady_median_ms", None)
        timing["steady_ms"] = tuple(timing.get("steady_ms", ()))
        fields_ = {key: value for key, value in body.items() if key in cls.__dataclass_fields__}
        fields_["timing"] = Timing(**timing)
        fields_["status"] = cast(Status, body["status"])
        return cls(**fields_)
