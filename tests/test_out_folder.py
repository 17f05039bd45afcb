"""Output folders: the suite writes only into a new folder, an empty one, or one it marked, and
never replaces or deletes a file it did not write (a user's ``--out .`` lost ``workers/notes.txt``
and ``index.html`` that way). Every verb that writes a folder or a page is checked, before any
work, and a refusal is a usage error (exit 2) that names the folder, its first files and what to
do instead."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.errors import UsageError
from conformance.results import document as results_file
from conformance.storage import out_folder

CASES = """\
defaults: {source: out folder tests, data: {dtype: float32}, ops: [numpy.array_split]}
cases:
  - {id: fine, title: t, data: {shape: [6, 2]}, axis: 0, indices: [2]}
  - {id: also-fine, title: t, data: {shape: [7, 2]}, axis: 0, indices: [1, 3]}
"""


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "few.yaml").write_text(CASES, encoding="utf-8")
    return tmp_path


def run(corpus: Path, out: Path | str, *extra: str) -> int:
    command = ["run", "--cases", str(corpus / "cases"), "--adapter", "fake_adapters:Liar", "--repeat", "0"]
    return main([*command, "--out", str(out), *extra])


def user_folder(path: Path) -> dict[str, str]:
    """The user's folder of the issue: notes under workers/ and their own index.html."""
    (path / "workers").mkdir(parents=True)
    (path / "workers" / "notes.txt").write_text("my notes\n")
    (path / "index.html").write_text("<p>my page</p>\n")
    return snapshot(path)


def snapshot(path: Path) -> dict[str, str]:
    return {
        str(file.relative_to(path)): file.read_text(errors="replace")
        for file in path.rglob("*")
        if file.is_file()
    }


def test_a_folder_of_someone_elses_files_is_refused_before_any_work(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = corpus / "mine"
    before = user_folder(mine)
    assert run(corpus, mine) == 2
    err = capsys.readouterr().err
    assert err == (
        f"conformance run: --out {mine}: the folder holds files the suite did not write (index.html, "
        f"workers/notes.txt) and no .conformance-run marker of an earlier run; the suite writes only "
        f"into a new folder, an empty one or one it wrote before, so that it never replaces or deletes "
        f"your files. Give a new folder, e.g. --out {mine}/conformance-reports\n"
    )
    assert snapshot(mine) == before  # nothing written, nothing removed: no marker, no lock
    # the advice works, and still leaves the user's files alone
    assert run(corpus, mine / "conformance-reports") == 0
    assert (mine / "conformance-reports" / "results.json").is_file()
    assert {name: snapshot(mine)[name] for name in before} == before


def test_a_refusal_names_the_first_files_only(tmp_path: Path) -> None:
    for number in range(9):
        (tmp_path / f"file-{number}.txt").write_text("x")
    with pytest.raises(UsageError, match=r"\(file-0.txt, file-1.txt, file-2.txt, file-3.txt, ...\)"):
        out_folder.check(tmp_path)


def test_a_file_is_no_output_folder(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (corpus / "afile.txt").write_text("mine\n")
    assert run(corpus, corpus / "afile.txt") == 2
    err = capsys.readouterr().err
    assert f"--out {corpus / 'afile.txt'}: is a file, not a folder; give a new or empty folder" in err
    assert "Traceback" not in err and (corpus / "afile.txt").read_text() == "mine\n"


def test_an_empty_folder_is_used_and_marked(corpus: Path) -> None:
    (corpus / "empty").mkdir()
    assert run(corpus, corpus / "empty") == 0
    marker = json.loads((corpus / "empty" / ".conformance-run").read_text())
    assert marker["schema"] == "conformance.out/1" and "leaves every other file alone" in marker["about"]


@pytest.mark.slow
def test_in_a_marked_folder_only_the_suites_own_files_are_replaced(corpus: Path) -> None:
    out = corpus / "reports"
    assert run(corpus, out) == 0
    (out / "notes.txt").write_text("mine\n")
    (out / "workers" / "notes.txt").write_text("mine too\n")
    (out / "workers" / "worker-99.log").write_text("an old worker's log\n")
    (out / "sub").mkdir()
    (out / "sub" / "kept.txt").write_text("kept\n")
    assert run(corpus, out) == 0
    assert (out / "notes.txt").read_text() == "mine\n"
    assert (out / "workers" / "notes.txt").read_text() == "mine too\n"
    assert (out / "sub" / "kept.txt").read_text() == "kept\n"
    assert not (out / "workers" / "worker-99.log").exists()  # the suite's own: the previous run's logs


@pytest.mark.parametrize(
    "verb",
    [
        ["explore", "--adapter", "fake_adapters:Planted", "--out", "{out}"],
        ["certify", "--adapter", "fake_adapters:Liar", "--profile", "numpy-split", "--out", "{out}"],
        ["merge", "{results}", "-o", "{out}"],
    ],
    ids=["explore", "certify", "merge"],
)
def test_every_verb_that_writes_a_folder_refuses_someone_elses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], verb: list[str]
) -> None:
    mine = tmp_path / "mine"
    before = user_folder(mine)
    given = [word.format(out=mine, results=tmp_path / "results.json") for word in verb]
    assert main(given) == 2
    err = capsys.readouterr().err
    assert f"{mine}: the folder holds files the suite did not write (index.html, workers/notes.txt)" in err
    assert snapshot(mine) == before
    (tmp_path / "afile").write_text("")
    assert (
        main([word.format(out=tmp_path / "afile", results=tmp_path / "results.json") for word in verb]) == 2
    )
    assert "is a file, not a folder" in capsys.readouterr().err


def test_explore_writes_cases_over_its_own_files_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases"
    cases.mkdir()
    (cases / "explore-seed-7-torch-split.yaml").write_text("# my own cases\n")
    (cases / "other.yaml").write_text("# never touched\n")
    command = ["explore", "--adapter", "fake_adapters:Planted", "--seed", "7", "--out", str(tmp_path / "out")]
    assert main([*command, "--write", str(cases)]) == 2
    said = f"--write {cases}: explore-seed-7-torch-split.yaml exists and was not written by `conformance"
    assert said in capsys.readouterr().err
    assert not (tmp_path / "out").exists()  # refused before anything was made


def test_pages_replace_only_pages_the_suite_wrote(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(corpus, corpus / "reports") == 0
    results = str(corpus / "reports" / "results.json")
    mine = corpus / "index.html"
    mine.write_text("<p>my page</p>\n")
    for command in (
        ["report", results, "-o"],
        ["versions", results, "-o"],
        ["diff", results, results, "--html"],
    ):
        assert main([*command, str(mine)]) == 2, command
        assert "the file exists and is not a page the suite wrote" in capsys.readouterr().err
        assert mine.read_text() == "<p>my page</p>\n"
    page = corpus / "page.html"
    assert main(["report", results, "-o", str(page)]) == 0
    assert main(["report", results, "-o", str(page)]) == 0  # its own page: replaced
    assert main(["diff", results, results, "--html", str(page)]) == 0
    older = corpus / "older.html"  # a page a version before the Slice family wrote
    older.write_text("<!DOCTYPE html>\n<html><head><title>Split conformance report</title></head></html>\n")
    assert main(["report", results, "-o", str(older)]) == 0
    assert "<title>Operator conformance report" in older.read_text()


RUN_FILES = ("results.json", "junit.xml", "index.html")


@pytest.mark.slow  # seconds: subprocesses or imported backends
def test_a_run_of_another_selection_does_not_replace_a_complete_run(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reproducer command of one result, typed into the main job's folder, once replaced its
    34,104 results with one: a narrower run there is refused, a rerun of the same selection is
    not, and ``--replace`` says to replace."""
    out = corpus / "reports"
    assert run(corpus, out) == 0
    kept = {name: (out / name).read_bytes() for name in RUN_FILES}
    capsys.readouterr()
    assert run(corpus, out, "--item", "fine::numpy.array_split") == 2
    err = capsys.readouterr().err
    assert err == (
        f"conformance run: --out {out}: holds the complete run of every item of 1 case file on liar "
        "(results.json and its report); this run selects --item fine::numpy.array_split of 1 case file "
        f"on liar and would replace it. Give another folder, e.g. --out {out / 'fine_numpy.array_split'}, "
        "or --replace to replace it\n"
    )
    assert {name: (out / name).read_bytes() for name in RUN_FILES} == kept  # untouched
    assert not (out / "journal.jsonl").exists() and not (out / "previous").exists()

    assert run(corpus, out, "--item", "fine::numpy.array_split", "--out", str(out / "one")) == 0
    assert run(corpus, out) == 0  # the same selection again: a rerun replaces it
    assert run(corpus, out, "--item", "fine::numpy.array_split", "--replace") == 0
    _, results = results_file.read(out / "results.json")
    assert [result.case for result in results] == ["fine"]
    _, previous = results_file.read(out / "previous" / "results.json")  # what it replaced
    assert sorted(result.case for result in previous) == ["also-fine", "fine"]
