"""The results file's shape in Python: one TypedDict per object of ``results.schema.json``.

Results travel as plain JSON data, so these types let mypy --strict check every key a reader
looks up; ``NotRequired`` marks what the schema does not require. Keep them in step with the
JSON Schema: a test validates documents built from these types against it.
"""

from typing import Any, Literal, NotRequired, TypedDict

from conformance.statuses import Defect, Judged, Status

SCHEMA_NAME = "conformance.results/2"
#: Every version the reader accepts: /1 lacks ``findings`` and ``raised.origin``, nothing else.
SCHEMA_NAMES = ("conformance.results/1", SCHEMA_NAME)


class OutputRecord(TypedDict):
    """One output tensor: its shape and the suite's name of its element type."""

    shape: list[int]
    dtype: str


class RejectionRecord(TypedDict):
    rule: str  # the reference's rule id, e.g. lengths-sum
    reason: str


class ReadingRecord(TypedDict):
    """One reading of an ambiguous spec point, and what it gives."""

    label: str
    outputs: NotRequired[list[OutputRecord]]
    rejected: NotRequired[RejectionRecord]


class ExpectedRecord(TypedDict, total=False):
    """The reference's answer: outputs, a rejection, or several readings (ambiguous)."""

    outputs: list[OutputRecord]
    rejected: RejectionRecord
    ambiguity: str
    readings: list[ReadingRecord]


class RaisedRecord(TypedDict):
    """The exception an execution ended with, its phase, and who raised it (absent: the backend)."""

    phase: str
    type: str
    message: str
    origin: NotRequired[Literal["backend", "adapter", "suite"]]
    module: NotRequired[str]


class ActualRecord(TypedDict, total=False):
    """What the backend did; empty when it did not run."""

    outputs: list[OutputRecord]
    raised: RaisedRecord


class ElementDiffRecord(TypedDict):
    index: list[int]
    expected: str
    actual: str


class MismatchRecord(TypedDict):
    """The first difference between expected and actual outputs."""

    what: Literal["count", "shape", "dtype", "values"]
    message: str
    output: int | None
    differing: int
    first: list[ElementDiffRecord]
    run: NotRequired[int]  # the run it was found in, for a case with runs (1: the case's own request)


class TimingRecord(TypedDict, total=False):
    """Milliseconds per phase, as the executor measured them."""

    build_ms: float | None
    compile_ms: float | None
    first_run_ms: float | None
    steady_ms: list[float]
    steady_median_ms: float | None
    runs_ms: list[float | None]  # each further run of a case with runs, in order
    release_ms: float | None  # freeing the model and the compiled model after the runs
    refused_ms: float  # in the phases that raised; a crash or timeout: from the build until it died


class KnownIssueRecord(TypedDict):
    """The known-issues entry that made a result an xfail or xpass."""

    id: str
    reason: str
    link: str
    source: str


class WorkerRecord(TypedDict):
    pid: int
    peak_rss_kib: int
    elapsed_ms: float
    load_ms: NotRequired[float]


class CrashRecord(TypedDict):
    """How a worker died on an item and what the crash review made of it (verdict/crash_review.py);
    docs/results.md ("crash") says what each key holds."""

    outcome: str
    worker: str | None
    pid: int | None
    exit: str
    phase: str | None
    ran_before: int
    before: list[str]
    last_output: str
    log: str | None
    rerun: NotRequired[str]
    culprit: NotRequired[str | None]
    search: NotRequired[str]
    victim: NotRequired[str]
    own_status: NotRequired[str]
    own_message: NotRequired[str]


class CrashReviewRecord(TypedDict):
    """What the crash review of a run did and spent (``run.crash_review``)."""

    budget_s: float
    spent_s: float
    reruns: int
    replays: int
    replayed_items: int
    confirmed: int
    not_reproduced: int
    unconfirmed: int
    culprits: int
    #: deaths a known issue claims: not run again (the entry says the item crashes)
    known: int


class ReproducerRecord(TypedDict):
    command: str  # reruns this one item on this target
    python: str | None  # a standalone snippet that uses only the backend, if the adapter writes one


class DataParams(TypedDict, total=False):
    shape: list[int]
    dtype: str
    fill: str  # arange, random(seed=N), special or values


class FormParams(TypedDict):
    kind: str
    value: int | list[int]


class ParamsRecord(TypedDict, total=False):
    """The resolved case, so a result can be read without the case files at hand."""

    data: DataParams
    axis: int | None  # Split
    form: FormParams  # Split
    slice: dict[str, Any]  # Slice: its keys as the case writes them (starts, ends, axes ...)
    graph: dict[str, Any]  # option -> value; inputs may be a mapping {axis: ..., lengths: ...}
    tags: list[str]
    title: str
    note: str | None
    source: str
    location: str


class RequestParams(TypedDict):
    """One run's request: the parts of the case a run can change (Split: axis and form; Slice: its keys)."""

    data: DataParams
    axis: NotRequired[int | None]
    form: NotRequired[FormParams]
    slice: NotRequired[dict[str, Any]]


class CaseRunRecord(TypedDict):
    """One run of a case with ``runs:`` on the model built once: its request, verdict and evidence."""

    run: int  # 1 is the case's own request
    label: str  # how messages name it: "run 2 (shape [3, 4])"
    request: RequestParams
    status: Status
    message: str
    expected: ExpectedRecord
    actual: ActualRecord
    mismatch: MismatchRecord | None
    reading: NotRequired[str | None]


class ResultRecord(TypedDict):
    """One (case, op, target) execution; the schema describes each key."""

    case: str
    op: str
    adapter: str
    route: str
    device: str
    status: Status
    message: str
    params: ParamsRecord
    expected: ExpectedRecord
    actual: ActualRecord
    mismatch: MismatchRecord | None
    timing: TimingRecord
    reading: NotRequired[str | None]
    ambiguous: NotRequired[bool]
    known_issue: NotRequired[KnownIssueRecord | None]
    worker: NotRequired[WorkerRecord | None]
    reproducer: NotRequired[ReproducerRecord | None]
    run: NotRequired[int]
    runs: NotRequired[list[CaseRunRecord]]
    judged: NotRequired[Judged]
    defect: NotRequired[Defect]
    crash: NotRequired[CrashRecord]


class SuiteRecord(TypedDict):
    """The corpus that was run."""

    version: str
    digest: str
    cases: int
    files: NotRequired[list[str]]


class MemcpyRecord(TypedDict):
    bytes: int
    gbps: float


class MergedRunRecord(TypedDict):
    """One run joined into a merged file (``run.merged``)."""

    path: str
    host: dict[str, Any]
    python: NotRequired[str | None]
    command: list[str]
    shard: str | None
    selection: NotRequired[dict[str, Any]]
    targets: NotRequired[list[str]]
    start: str
    end: str
    wall_s: NotRequired[float | None]
    interrupted: bool
    results: int
    memcpy: NotRequired[list[MemcpyRecord]]


class RunInfoRecord(TypedDict):
    """When, where and how the run happened."""

    start: str
    end: str
    host: dict[str, Any]
    python: str
    command: list[str]
    jobs: NotRequired[int]
    timeout_s: NotRequired[float]
    repeat: NotRequired[int]
    selection: NotRequired[dict[str, Any]]
    wall_s: NotRequired[float]
    interrupted: NotRequired[bool]
    merged: NotRequired[list[MergedRunRecord]]
    memcpy: NotRequired[list[MemcpyRecord]]
    crash_review: NotRequired[CrashReviewRecord]


class TargetRecord(TypedDict):
    """One target (adapter, route, device) as the file's ``adapters`` list describes it."""

    name: str
    route: str
    device: str
    backend: str
    version: str
    options: dict[str, str]
    description: NotRequired[str]


class FindingRecord(TypedDict):
    """One distinct problem: the non-pass results that share a signature (results/findings.py)."""

    id: str
    target: str
    family: str
    status: Status
    kind: str
    message: str
    known_issue: str | None
    count: int
    ops: list[str]
    items: list[str]
    representative: str


class ResultsDocument(TypedDict):
    """A whole results file."""

    schema: str
    suite: SuiteRecord
    run: RunInfoRecord
    adapters: list[TargetRecord]
    results: list[ResultRecord]
    findings: NotRequired[list[FindingRecord]]
