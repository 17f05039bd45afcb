"""One result: a (case, op, target) execution with its status, evidence and timing, as plain data
with a lossless JSON form (``to_json`` / ``from_json``), since results travel between processes.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field, replace
from typing import Any, TypeAlias

from conformance import ids
from conformance.results.records import (
    ActualRecord,
    CaseRunRecord,
    CrashRecord,
    ExpectedRecord,
    KnownIssueRecord,
    MismatchRecord,
    ParamsRecord,
    ReproducerRecord,
    ResultRecord,
    WorkerRecord,
)
from conformance.statuses import Defect, Judged, Status

JSON: TypeAlias = dict[str, Any]


@dataclass(frozen=True)
class Timing:
    """Milliseconds per phase, measured by the executor the same way for every adapter."""

    build_ms: float | None = None
    compile_ms: float | None = None
    first_run_ms: float | None = None
    steady_ms: tuple[float, ...] = ()
    #: each further run of a case with runs (None where it raised before a time was taken)
    runs_ms: tuple[float | None, ...] = ()
    release_ms: float | None = None
    #: in the phases that raised, until each raised: a refusal is the backend's work too
    refused_ms: float | None = None

    @property
    def steady_median_ms(self) -> float | None:
        return statistics.median(self.steady_ms) if self.steady_ms else None

    @property
    def backend_ms(self) -> float:
        """Everything spent inside the backend, the phases that raised included."""
        parts = (
            self.build_ms,
            self.compile_ms,
            self.first_run_ms,
            *self.steady_ms,
            *self.runs_ms,
            self.release_ms,
            self.refused_ms,
        )
        return sum(part for part in parts if part is not None)


@dataclass(frozen=True)
class Result:
    """One (case, op, target) execution; its fields mean what :class:`ResultRecord`'s keys do."""

    case: str
    op: str
    adapter: str
    route: str
    device: str
    status: Status
    message: str
    params: ParamsRecord = field(default_factory=lambda: ParamsRecord())
    expected: ExpectedRecord = field(default_factory=lambda: ExpectedRecord())
    actual: ActualRecord = field(default_factory=lambda: ActualRecord())
    mismatch: MismatchRecord | None = None
    timing: Timing = field(default_factory=Timing)
    #: for an ambiguous verdict: the label of the reading the backend matched, if any
    reading: str | None = None
    ambiguous: bool = False
    known_issue: KnownIssueRecord | None = None
    worker: WorkerRecord | None = None
    reproducer: ReproducerRecord | None = None
    run: int | None = None
    runs: tuple[CaseRunRecord, ...] = ()
    judged: Judged = "values"
    defect: Defect | None = None
    crash: CrashRecord | None = None

    @property
    def item_id(self) -> str:
        return ids.item_id(self.case, self.op)

    @property
    def target_id(self) -> str:
        return ids.target_id(self.adapter, self.route, self.device)

    @property
    def key(self) -> str:
        """Unique within a run: the item on the target."""
        return ids.result_key(self.item_id, self.target_id)

    def with_status(
        self, status: Status, message: str, known_issue: KnownIssueRecord | None = None
    ) -> Result:
        return replace(self, status=status, message=message, known_issue=known_issue)

    def with_defect(self, defect: Defect, message: str) -> Result:
        """An ``error`` that is the adapter's or the suite's failure, not the backend's answer."""
        return replace(self, status="error", message=message, known_issue=None, defect=defect)

    def to_json(self) -> ResultRecord:
        """Field by field rather than dataclasses.asdict, whose deep copies dominate a fast run."""
        timing = self.timing
        record: ResultRecord = {
            "case": self.case,
            "op": self.op,
            "adapter": self.adapter,
            "route": self.route,
            "device": self.device,
            "status": self.status,
            "message": self.message,
            "params": self.params,
            "expected": self.expected,
            "actual": self.actual,
            "mismatch": self.mismatch,
            "timing": {
                "build_ms": timing.build_ms,
                "compile_ms": timing.compile_ms,
                "first_run_ms": timing.first_run_ms,
                "steady_ms": list(timing.steady_ms),
                "steady_median_ms": timing.steady_median_ms,
                **({"runs_ms": list(timing.runs_ms)} if timing.runs_ms else {}),
                **({"release_ms": timing.release_ms} if timing.release_ms is not None else {}),
                **({"refused_ms": timing.refused_ms} if timing.refused_ms is not None else {}),
            },
            "reading": self.reading,
            "ambiguous": self.ambiguous,
            "known_issue": self.known_issue,
            "worker": self.worker,
            "reproducer": self.reproducer,
        }
        if self.runs:
            record["run"] = self.run if self.run is not None else 1
            record["runs"] = list(self.runs)
        if self.judged != "values":
            record["judged"] = self.judged
        if self.defect is not None:
            record["defect"] = self.defect
        if self.crash is not None:
            record["crash"] = self.crash
        return record

    @classmethod
    def from_json(cls, body: ResultRecord) -> Result:
        timing = body.get("timing") or {}
        return cls(
            case=body["case"],
            op=body["op"],
            adapter=body["adapter"],
            route=body["route"],
            device=body["device"],
            status=body["status"],
            message=body["message"],
            params=body.get("params") or {},
            expected=body.get("expected") or {},
            actual=body.get("actual") or {},
            mismatch=body.get("mismatch"),
            timing=Timing(
                build_ms=timing.get("build_ms"),
                compile_ms=timing.get("compile_ms"),
                first_run_ms=timing.get("first_run_ms"),
                steady_ms=tuple(timing.get("steady_ms") or ()),
                runs_ms=tuple(timing.get("runs_ms") or ()),
                release_ms=timing.get("release_ms"),
                refused_ms=timing.get("refused_ms"),
            ),
            reading=body.get("reading"),
            ambiguous=bool(body.get("ambiguous", False)),
            known_issue=body.get("known_issue"),
            worker=body.get("worker"),
            reproducer=body.get("reproducer"),
            run=body.get("run"),
            runs=tuple(body.get("runs") or ()),
            judged=body.get("judged", "values"),
            defect=body.get("defect"),
            crash=body.get("crash"),
        )
