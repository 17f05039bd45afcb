"""The contracts between the layers: the results records against the JSON Schema, the one
results reader, the one error hierarchy and the status vocabulary shared with the report."""

from __future__ import annotations

import inspect
import json
import typing
from pathlib import Path
from typing import Any

import pytest
from report_fixtures import mixed_document

from conformance import errors, statuses
from conformance.cli import main
from conformance.report import viewdata
from conformance.results import combined, document, records
from conformance.results.result import Result

SCHEMA = document.schema()
DEFS = SCHEMA["$defs"]
RESULT = DEFS["result"]["properties"]


def keys(record: type) -> set[str]:
    return set(typing.get_type_hints(record, include_extras=True))


def required(record: type) -> set[str]:
    return set(record.__required_keys__)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("record", "schema"),
    [
        (records.ResultsDocument, SCHEMA),
        (records.SuiteRecord, SCHEMA["properties"]["suite"]),
        (records.RunInfoRecord, SCHEMA["properties"]["run"]),
        (records.TargetRecord, SCHEMA["properties"]["adapters"]["items"]),
        (records.ResultRecord, DEFS["result"]),
        (records.ExpectedRecord, RESULT["expected"]),
        (records.ActualRecord, RESULT["actual"]),
        (records.MismatchRecord, RESULT["mismatch"]),
        (records.TimingRecord, RESULT["timing"]),
        (records.ReproducerRecord, RESULT["reproducer"]),
        (records.MergedRunRecord, SCHEMA["properties"]["run"]["properties"]["merged"]["items"]),
        (records.ParamsRecord, RESULT["params"]),
        (records.FormParams, RESULT["params"]["properties"]["form"]),
        (records.DataParams, RESULT["params"]["properties"]["data"]),
        (records.KnownIssueRecord, RESULT["known_issue"]),
        (records.WorkerRecord, RESULT["worker"]),
        (records.RejectionRecord, DEFS["rejection"]),
        (records.ReadingRecord, RESULT["expected"]["properties"]["readings"]["items"]),
        (records.RaisedRecord, RESULT["actual"]["properties"]["raised"]),
        (records.ElementDiffRecord, RESULT["mismatch"]["properties"]["first"]["items"]),
        (records.OutputRecord, DEFS["outputs"]["items"]),
    ],
)
def test_each_record_has_the_keys_of_its_schema_object(record: type, schema: dict[str, Any]) -> None:
    """Both ways: what mypy lets a reader look up is what the reader has checked is there."""
    assert keys(record) == set(schema["properties"])
    assert required(record) == set(schema.get("required", []))


def test_the_status_type_is_the_schema_enum() -> None:
    assert list(typing.get_args(statuses.Status)) == list(statuses.STATUSES) == RESULT["status"]["enum"]


@pytest.mark.slow
def test_a_written_result_fits_the_schema_and_reads_back_equal(tmp_path: Path) -> None:
    results = [Result.from_json(body) for body in mixed_document()["results"]]
    body = document.assemble(
        {"version": "0", "digest": "sha256:" + "0" * 64, "cases": 1},
        {
            "start": "2026-01-01T00:00:00",
            "end": "2026-01-01T00:00:01",
            "host": {},
            "python": "3",
            "command": [],
        },
        [],
        [result.to_json() for result in results],
    )
    document.validate(body)
    document.write(tmp_path / "results.json", body)
    _, read = document.read(tmp_path / "results.json")
    assert read == results


def test_a_document_is_utf8_one_result_a_line_whatever_characters_its_messages_hold() -> None:
    """The writer joins bytes, not text: a result with a character beyond the Basic Multilingual
    Plane (as a hostile case's message can carry) and one beyond Latin-1 are written as UTF-8 on a
    line each, unescaped, and read back equal, next to an ASCII one."""
    results = [{"message": "plain"}, {"message": "bad \U0001f642 \x00 \u2192 é"}, {"message": "\u2192"}]
    body = {"schema": "s", "results": results, "empty": [], "note": "\u00e9"}
    text = document.encoded(body).decode("utf-8")
    lines = text.splitlines()
    assert lines[0] == "{" and lines[-1] == "}"
    assert lines[1:4] == [' "schema": "s",', ' "results": [', '  {"message": "plain"},']
    assert lines[4] == '  {"message": "bad \U0001f642 \\u0000 \u2192 é"},'
    assert lines[5:8] == ['  {"message": "\u2192"}', " ],", ' "empty": [],']
    assert json.loads(text) == body


@pytest.mark.parametrize(
    ("mangle", "complaint"),
    [
        (lambda d: d["results"][1].pop("status"), "results/1 lacks status"),
        (lambda d: d["results"][0].update(status="bogus"), "results/0/status 'bogus' is none of"),
        (lambda d: d["results"][0].update(params=[]), "results/0/params is a JSON array, not object"),
        (lambda d: d.update(results={}), "results is a JSON object, not array"),
        (lambda d: d["run"].pop("start"), "run lacks start"),
        (lambda d: d.update(schema="conformance.results/0"), "not a results file of schema"),
        (lambda d: d["adapters"].append({"name": "x"}), "adapters/"),
        (lambda d: d["results"][2].update(known_issue={"id": "k"}), "results/2/known_issue lacks reason"),
        (lambda d: d["results"][2]["params"]["data"].update(shape="abc"), "results/2/params/data/shape is a"),
        (
            lambda d: d["results"][2]["timing"].update(build_ms="1"),
            "results/2/timing/build_ms is a JSON string",
        ),
        (lambda d: d.update(results=[True]), "results/0 is a JSON boolean, not object"),
    ],
)
def test_the_one_reader_names_the_file_and_the_place(tmp_path: Path, mangle: Any, complaint: str) -> None:
    body = mixed_document()
    mangle(body)
    path = tmp_path / "results.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    with pytest.raises(errors.ResultsFileError, match=f"^{path}: .*{complaint}"):
        document.read_document(path)


def test_every_user_error_is_a_conformance_error() -> None:
    found = [
        value for value in vars(errors).values() if inspect.isclass(value) and issubclass(value, Exception)
    ]
    assert len(found) >= 9
    # the one that is not the user's: the machine stopped the verb (exit 4, not 2)
    machine = [error for error in found if not issubclass(error, errors.ConformanceError)]
    assert machine == [errors.EnvironmentFailure]
    from conformance.certify.profiles import ProfileError
    from conformance.corpus.loader import CaseFileError, CaseFileErrors

    assert all(
        issubclass(error, errors.CorpusError) for error in (CaseFileError, CaseFileErrors, ProfileError)
    )


@pytest.mark.slow
def test_the_front_door_turns_each_kind_into_exit_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "results.json"
    broken.write_text("[1, 2]", encoding="utf-8")
    assert main(["report", str(broken), "-o", str(tmp_path / "x.html")]) == 2  # ResultsFileError
    assert main(["run", "--shard", "0/2", "--out", str(tmp_path / "out")]) == 2  # UsageError
    assert main(["run", "--adapter", "no-such-adapter", "--out", str(tmp_path / "out")]) == 2  # PluginError
    err = capsys.readouterr().err
    assert f"conformance report: {broken}: the file is a JSON array, not object" in err
    assert "conformance run: --shard '0/2'" in err
    assert "conformance run: no adapter named 'no-such-adapter'" in err
    assert "Traceback" not in err


def test_the_report_filters_by_the_groups_the_statuses_module_defines() -> None:
    data = viewdata.view_data(combined.combine([mixed_document()]))
    named = {name: [data["statuses"][i] for i in members] for name, members in data["groups"].items()}
    assert named == statuses.groups()
    assert named["deviating"] == [s for s in statuses.STATUSES if s in statuses.DEVIATING]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("arguments", "complaint"),
    [
        (["run", "--adapter", "numpy", "--known-issues", "{tmp}/none.yaml"], "{tmp}/none.yaml: cannot read"),
        (["report", "{results}", "-o", "{tmp}"], "{tmp}: is a directory"),
        (["versions", "{results}", "-o", "/proc/no/such/x.html"], "/proc/no/such/x.html: cannot be written"),
        (["certify", "--verify", "{results}"], "{results}: not a certificate of schema"),
    ],
)
def test_bad_paths_are_usage_errors_naming_the_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], complaint: str
) -> None:
    results = tmp_path / "results.json"
    results.write_text(json.dumps(mixed_document()), encoding="utf-8")
    filled = [argument.format(tmp=tmp_path, results=results) for argument in arguments]
    assert main(filled) == 2
    err = capsys.readouterr().err
    assert complaint.format(tmp=tmp_path, results=results) in err and "Traceback" not in err


@pytest.mark.parametrize("option", [["-j", "0"], ["--timeout", "0"], ["--timeout", "-1"], ["--repeat", "-1"]])
def test_numbers_out_of_range_are_refused_before_anything_runs(
    option: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["run", *option])
    assert stopped.value.code == 2
    assert "must be" in capsys.readouterr().err
