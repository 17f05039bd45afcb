"""``run --resume`` after the case files changed: the journal keeps a digest of each case's
content, so a comment or a new layout keeps every journaled result, an edited case's items run
again, a removed case's results go, and the run names the cases (it once refused any edit, a
comment included, with "written for a different digest", and named no file). And the deaths a
crash review had not finished are rebuilt from the journal with the items their worker ran."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.corpus.loader import load_paths
from conformance.results import document as results_file
from conformance.results.records import CrashRecord
from conformance.results.result import Result
from conformance.run import resumption
from conformance.run.planning import RunConfig, plan
from conformance.run.runner import execute
from conformance.storage.journal import Journaled

ADAPTER = "fake_adapters:Liar"


def line(n: int, shape: int | None = None) -> str:
    """Case ``item-N`` on one line (its file's line 3 + N), its data of ``shape`` rows."""
    data = f"data: {{shape: [{shape or 6 + n}, 3]}}"
    return f"  - {{id: item-{n}, title: t, {data}, axis: 0, indices: [1, 3]}}\n"


HEAD = "defaults: {source: resume tests, data: {dtype: float32}, ops: [numpy.array_split]}\ncases:\n"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "few.yaml").write_text(HEAD + "".join(line(n) for n in range(8)), encoding="utf-8")
    return tmp_path


def config(corpus: Path) -> RunConfig:
    out = corpus / "out"
    command = ("conformance", "run", "--cases", str(corpus / "cases"), "--adapter", ADAPTER)
    return RunConfig(
        case_paths=(str(corpus / "cases"),),
        adapters=(ADAPTER,),
        repeat=0,
        out=out,
        command=(*command, "--repeat", "0", "--out", str(out)),
    )


def interrupted(corpus: Path, after: int) -> list[str]:
    """A run stopped by Ctrl-C after ``after`` results; the cases its journal holds, in order."""
    seen: list[object] = []

    def stop(result: object) -> None:
        seen.append(result)
        if len(seen) == after:
            raise KeyboardInterrupt

    configured = config(corpus)
    assert execute(plan(configured), configured, on_result=stop).interrupted
    lines = (corpus / "out" / "journal.jsonl").read_text(encoding="utf-8").splitlines()[1:]
    return [json.loads(text)["case"] for text in lines]


def resume(corpus: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    status = main(["run", "--resume", "--out", str(corpus / "out")])
    return status, capsys.readouterr().err


def located(corpus: Path) -> dict[str, str]:
    return {case.id: str(case.location) for case in load_paths([corpus / "cases"]).cases}


def test_a_comment_or_a_new_layout_keeps_every_journaled_result(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journaled = interrupted(corpus, after=2)
    pids = {r.case: r.worker for r in results_file.read(corpus / "out" / "results.json")[1]}
    path = corpus / "cases" / "few.yaml"
    relaid = "indices: [1,3],  axis: 0}  # why"
    text = path.read_text(encoding="utf-8").replace("axis: 0, indices: [1, 3]}", relaid)
    path.write_text("# the same cases, laid out anew\n\n" + text, encoding="utf-8")
    status, err = resume(corpus, capsys)
    assert status == 0, err
    assert "resuming: 2 results already journaled, 6 to go" in err and "changed" not in err
    _, results = results_file.read(corpus / "out" / "results.json")
    assert len(results) == 8 and {r.case: r.worker for r in results if r.case in journaled} == {
        case: pids[case] for case in journaled
    }  # not run again: the journal's results, worker and all
    where = located(corpus)
    assert {r.case: r.params["location"] for r in results} == where  # placed where the case is now


def test_after_a_case_changed_only_its_items_run_again_and_the_run_says_which(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edited, removed, kept = (int(case.removeprefix("item-")) for case in interrupted(corpus, after=3))
    path = corpus / "cases" / "few.yaml"
    cases = [line(n, shape=20 if n == edited else None) for n in range(8) if n != removed] + [line(8)]
    path.write_text(HEAD + "".join(cases), encoding="utf-8")
    status, err = resume(corpus, capsys)
    assert status == 0, err
    where = located(corpus)
    lines = err.splitlines()
    assert (
        f"resuming: 1 case(s) changed since the journal was written (item-{edited} in "
        f"{where[f'item-{edited}']}): their 1 journaled result(s) run again"
    ) in lines
    gone = f"item-{removed} in {corpus / 'cases' / 'few.yaml'}:{3 + removed}"
    said = f"resuming: 1 case(s) of the journal are no longer in the run ({gone}): their 1 result(s) "
    said += "are dropped"
    assert said in lines
    assert f"resuming: 1 new case(s) (item-8 in {where['item-8']}): their 1 item(s) run" in lines
    assert "resuming: 1 results already journaled, 7 to go" in lines
    _, results = results_file.read(corpus / "out" / "results.json")
    assert sorted(r.case for r in results) == sorted(where) and f"item-{kept}" in where
    assert next(r for r in results if r.case == f"item-{edited}").params["data"]["shape"] == [20, 3]


def test_a_cases_digest_is_its_content_not_its_text(tmp_path: Path) -> None:
    def digest(text: str) -> str:
        (tmp_path / "few.yaml").write_text(text, encoding="utf-8")
        (found,) = load_paths([tmp_path / "few.yaml"]).case_digests.values()
        return found

    plain = HEAD + line(0)
    same = (
        "# a comment\ndefaults:\n  ops: [numpy.array_split]\n  data: {dtype: float32}\n"
        "  source: resume tests\n"
        "cases:\n  - id: item-0\n    indices: [1,3]\n    axis: 0   # why\n    data:\n      shape: [6, 3]\n"
        "    title: t\n"
    )
    assert digest(same) == digest(plain)
    assert digest(plain.replace("[6, 3]", "[7, 3]")) != digest(plain)
    assert digest(plain.replace("dtype: float32", "dtype: float16")) != digest(plain)  # from the defaults
    assert digest(plain.replace("title: t", "title: u")) != digest(plain)


def test_a_dead_workers_items_are_rebuilt_from_the_journal(tmp_path: Path) -> None:
    """The review replays every item the dead worker ran before it (here 15, of which the crash
    record names the last ten), found by the worker's pid among the journal's results."""
    (tmp_path / "few.yaml").write_text(HEAD + "".join(line(n) for n in range(17)), encoding="utf-8")
    planned = plan(RunConfig(case_paths=(str(tmp_path / "few.yaml"),), adapters=(ADAPTER,), out=tmp_path))
    jobs = planned.jobs
    bare = [Result(job.case.id, job.op, "liar", "slices", "cpu", "pass", "") for job in jobs]

    def on(result: Result, pid: int) -> Result:
        return replace(result, worker={"pid": pid, "peak_rss_kib": 0, "elapsed_ms": 1.0})

    ran = [on(result, 7) for result in bare[:15]]
    ran.insert(4, on(bare[15], 8))  # another worker's result between them
    evidence: CrashRecord = {
        "outcome": "unconfirmed",
        "worker": "worker-1",
        "pid": 7,
        "exit": "killed by SIGFPE",
        "phase": "run",
        "ran_before": 15,
        "before": [result.key for result in ran if result.worker and result.worker["pid"] == 7][-10:],
        "last_output": "",
        "log": None,
    }
    died = replace(bare[16], status="crash", crash=evidence)
    held = Journaled({"cases": dict(planned.suite.case_digests)}, [*ran, died])
    (death,) = resumption.resumed(held, planned).deaths
    assert [job.key for job in death.before] == [job.key for job in jobs[:15]]
    assert death.job.key == died.key and death.status == "crash"

    held.results.remove(ran[0])  # a line lost: the count no longer agrees, the ten named remain
    (death,) = resumption.resumed(held, planned).deaths
    assert [job.key for job in death.before] == evidence["before"]

    held.marks.append((len(held.results), {"mark": resumption.REVIEW_ENDED, "record": {}}))
    assert resumption.resumed(held, planned).deaths == []  # a review that ended took it
