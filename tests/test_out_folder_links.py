"""The output folder is the suite's alone, as CI systems share it between jobs and a pull request
can populate it: a link planted at a name the suite writes (``.lock``, ``previous``, ``workers``,
the journal) is refused by name, never followed (it truncated, replaced or deleted the files it
pointed to); ``previous/`` holding someone's files is refused, never a reason to delete the
earlier run; every verb writing into a folder a run holds is refused; and a run killed after its
results but before its pages says how to write them, its half-written files removed by the next
writer."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.errors import UsageError
from conformance.storage import no_links, out_lock
from conformance.storage.journal import Journal

CASES = """\
defaults: {source: link tests, data: {dtype: float32}, ops: [numpy.array_split]}
cases:
  - {id: fine, title: t, data: {shape: [6, 2]}, axis: 0, indices: [2]}
"""
PAGES = ("index.html", "compat.html", "compat.md")


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "few.yaml").write_text(CASES, encoding="utf-8")
    return tmp_path


def run(corpus: Path, out: Path, *extra: str) -> int:
    """A real run of the numpy adapter on one item."""
    command = ["run", "--cases", str(corpus / "cases"), "--adapter", "numpy", "--repeat", "0", "-j", "1"]
    return main([*command, "--out", str(out), *extra])


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every file under ``folder`` by its path, links by where they point (never followed)."""
    found: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        name = str(path.relative_to(folder))
        if path.is_symlink():
            found[name] = f"-> {os.readlink(path)}"
        elif path.is_file():
            found[name] = path.read_bytes()
    return found


def outside(corpus: Path) -> Path:
    """Someone else's folder: another run's results and logs, and a precious file."""
    folder = corpus / "elsewhere"
    (folder / "workers").mkdir(parents=True)
    for name in (
        "results.json",
        "index.html",
        "precious.txt",
        "worker-1.log",
        "zygote.log",
        "worker-1.phase",
    ):
        (folder / name).write_text(f"not the suite's: {name}\n")
    return folder


@pytest.mark.parametrize(
    ("name", "target"),
    [
        pytest.param(".lock", "precious.txt", id="lock"),
        pytest.param("previous", ".", id="previous"),
        pytest.param("workers", ".", id="workers"),
        pytest.param("journal.jsonl", "precious.txt", id="journal"),
        pytest.param("journal.jsonl", "missing.txt", id="dangling-journal"),
    ],
)
def test_a_link_planted_in_the_output_folder_is_refused_by_name(
    corpus: Path, capsys: pytest.CaptureFixture[str], name: str, target: str
) -> None:
    out, elsewhere = corpus / "out", outside(corpus)
    assert run(corpus, out) == 0
    if name == "workers":
        for log in (out / "workers").iterdir():
            log.unlink()
        (out / "workers").rmdir()
    (out / name).unlink(missing_ok=True)
    (out / name).symlink_to(elsewhere / target)
    before, theirs = snapshot(out), snapshot(elsewhere)
    capsys.readouterr()
    assert run(corpus, out) == 2
    err = capsys.readouterr().err
    assert f"--out {out}: {out / name} is a symbolic link;" in err
    assert "remove the link or give another --out" in err
    assert snapshot(elsewhere) == theirs  # nothing written, moved or deleted through the link
    assert snapshot(out) == before


def test_writers_open_no_link_even_when_one_appears_after_the_checks(tmp_path: Path) -> None:
    """The opens themselves follow no link (O_NOFOLLOW), for a link planted after a front door
    checked the folder: the lock, a new journal and a journal resumed."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    out = tmp_path / "out"
    out.mkdir()
    for name in (".lock", "journal.jsonl"):
        (out / name).symlink_to(victim)
    with pytest.raises(UsageError, match=r"/out/\.lock is a symbolic link"):
        no_links.open_file(out, out / ".lock", os.O_RDWR | os.O_CREAT)
    with pytest.raises(UsageError, match=r"/out/journal\.jsonl is a symbolic link"):
        Journal.start(out / "journal.jsonl", {"selection": {}})
    with pytest.raises(UsageError, match="symbolic link"):
        no_links.folder(out, out / "journal.jsonl" / "inside")
    assert victim.read_text() == "precious\n"


def test_a_previous_holding_someone_elses_files_keeps_the_earlier_run(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = corpus / "out"
    assert run(corpus, out) == 0
    (out / "previous").mkdir()
    (out / "previous" / "notes.txt").write_text("my notes\n")
    before = snapshot(out)
    capsys.readouterr()
    assert run(corpus, out) == 2
    err = capsys.readouterr().err
    assert f"--out {out}: a new run moves the earlier results into {out / 'previous'}/" in err
    assert "(previous/notes.txt)" in err and "move those files elsewhere or give another --out" in err
    assert snapshot(out) == before  # the earlier run is where it was, nothing deleted
    # a previous/ the suite wrote keeps a file someone adds there, beside the run set aside
    (out / "previous" / "notes.txt").unlink()
    assert run(corpus, out) == 0
    earlier = (out / "results.json").read_bytes()
    (out / "previous" / "notes.txt").write_text("my notes\n")
    assert run(corpus, out) == 0
    assert (out / "previous" / "notes.txt").read_text() == "my notes\n"
    assert (out / "previous" / "results.json").read_bytes() == earlier


def test_no_verb_writes_into_a_folder_a_run_holds(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source, out = corpus / "source", corpus / "out"
    assert run(corpus, source) == 0 and run(corpus, out) == 0
    results = str(source / "results.json")
    verbs = {
        "merge": ["merge", results, "-o", str(out)],
        "report": ["report", results, "-o", str(out / "index.html")],
        "compat": ["compat", results, "-o", str(out / "compat.md")],
        "diff": ["diff", results, results, "--html", str(out / "index.html")],
        "versions": ["versions", results, "-o", str(out / "versions.html")],
    }
    before = snapshot(out)
    with out_lock.locked(out, ["conformance", "run", "--out", str(out)]):
        held = snapshot(out)
        capsys.readouterr()
        for verb, words in verbs.items():
            assert main(words) == 2, verb
            assert f"{out} is being written by another run (process {os.getpid()}: conformance run" in (
                capsys.readouterr().err
            ), verb
        assert snapshot(out) == held
    assert snapshot(out).keys() == before.keys()
    assert main(verbs["merge"]) == 0  # once the run is over, the merge is written
    assert '"merged"' in (out / "results.json").read_text()


def test_a_run_killed_before_its_pages_says_how_to_write_them(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What a SIGKILL after the results (and the journal's removal) and before the pages leaves:
    the results, no pages, a half-written temporary; ``--resume`` names the commands that write
    the pages, and the first writer to take the folder's lock removes the temporaries."""
    out = corpus / "out"
    assert run(corpus, out) == 0
    for name in PAGES:
        (out / name).unlink()
    (out / ".index.html.k3x9q2ab").write_text("<!DOCTYPE html> half")
    (out / ".notes.txt.k3x9q2ab").write_text("a file of the user's, named alike")
    capsys.readouterr()
    assert run(corpus, out, "--resume") == 2
    err = capsys.readouterr().err
    assert f"the run there finished (its results are {out / 'results.json'})" in err
    assert "stopped before it wrote index.html, compat.html, compat.md; write them with: " in err
    commands = err.strip().split("write them with: ", 1)[1].split(" && ")
    for command in commands:
        words = shlex.split(command)
        assert words[0] == "conformance"
        assert main(words[1:]) == 0, command
    assert all((out / name).is_file() for name in PAGES)
    assert not (out / ".index.html.k3x9q2ab").exists()
    assert (out / ".notes.txt.k3x9q2ab").is_file()
    assert run(corpus, out, "--resume") == 2
    assert "the run there finished: its results are" in capsys.readouterr().err
