"""A job's case crosses to the worker as bytes made once per case and is rebuilt once per case:
the messages a full run sends carry about 1,200 cases in 33,000 jobs."""

from __future__ import annotations

import dataclasses
import pickle
from multiprocessing.reduction import ForkingPickler

from conformance.corpus.case import Case, DataSpec, Form, Location
from conformance.plugin import Target
from conformance.run import case_wire
from conformance.run.worker import Job


def _case(name: str, values: list[float]) -> Case:
    data = DataSpec((4,), "float64", "values", values=values)
    return Case(name, "t", "s", data, Form("parts", 2), Location("f.yaml", 1), axis=0)


def _jobs(case: Case) -> list[Job]:
    targets = [Target("numpy", route, "cpu") for route in ("numpy", "emulated")]
    return [
        Job(n, "numpy", target, case, "numpy.split", 3, {"o": "1"}, "values", ("numpy",))
        for n, target in enumerate(targets)
    ]


def test_every_field_of_a_job_is_sent() -> None:
    # every field but the case (compared by repr: a case with NaN is never == itself) arrives equal
    (sent,) = _jobs(_case("fields", [1.0, 2.0, 3.0, 4.0]))[:1]
    received = pickle.loads(bytes(ForkingPickler.dumps(sent)))
    for field in dataclasses.fields(Job):
        assert repr(getattr(received, field.name)) == repr(getattr(sent, field.name)), field.name


def test_a_job_arrives_whole_and_its_case_is_rebuilt_once() -> None:
    case = _case("with-nan", [1.0, float("nan"), -0.0, 2.0])
    sent = _jobs(case)
    received = [pickle.loads(bytes(ForkingPickler.dumps(job))) for job in sent]
    assert [repr(job) for job in received] == [repr(job) for job in sent]
    assert [job.key for job in received] == [job.key for job in sent]
    assert received[0].case is received[1].case  # one case object for both of its jobs
    assert received[0].case is not case  # rebuilt from the bytes, not shared with the sender


def test_the_parent_pickles_a_case_once_and_tells_equal_cases_apart_by_their_bytes() -> None:
    case = _case("once", [1.0, 2.0, 3.0, 4.0])
    assert case_wire.wire(case) is case_wire.wire(case)
    other = _case("once", [1.0, 2.0, 3.0, 5.0])  # same id, other data: another case to the worker
    assert case_wire.case_of(case_wire.wire(other)).data.values == [1.0, 2.0, 3.0, 5.0]
    assert case_wire.case_of(case_wire.wire(case)).data.values == [1.0, 2.0, 3.0, 4.0]


def test_the_caches_start_again_past_their_limit(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(case_wire, "LIMIT", 3)
    cases = [_case(f"c{n}", [float(n)] * 4) for n in range(7)]
    for case in cases:
        assert case_wire.case_of(case_wire.wire(case)).id == case.id
    assert len(case_wire._sent) <= 3 and len(case_wire._received) <= 3
