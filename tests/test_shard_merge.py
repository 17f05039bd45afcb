"""Scale-out: ``run --shard I/N`` splits a run, ``merge`` joins the parts; merged equals unsharded.

Each run here is a separate ``conformance run`` process, as on separate CI machines; shards run
concurrently. Timing and worker fields legitimately differ between runs and are left out of every
comparison; everything else (keys, order, statuses, messages, expected, actual, mismatch,
reproducers) must be identical.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shlex
import time
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import jsonschema
import pytest
import yaml
from processes import run_cli, start_cli

from conformance.cli import build_parser, main
from conformance.corpus.loader import load_paths
from conformance.corpus.selection import select
from conformance.errors import ResultsFileError, UsageError
from conformance.results import document as results_file
from conformance.results import merge
from conformance.storage.shard import Shard, bucket
from scripts import adapter_table

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
WORKFLOW = ROOT / ".github" / "workflows" / "conformance.yml"

CASES = """\
defaults: {source: shard tests, data: {dtype: float32}}
cases:
""" + "".join(
    f"  - {{id: c{n:02}, title: t, data: {{shape: [{6 + n % 5}, 3]}}, axis: 0, indices: [1, 3]}}\n"
    for n in range(30)
)
FAKE = ("--adapter", "fake_adapters:Liar", "--adapter", "fake_adapters:Slicer")
FAKE_OPTIONS = ("--option", "fake_adapters:Liar.on=c1*", "--repeat", "1")
#: the real adapter on part of the real corpus: both NumPy routes, some 640 jobs (not the 2 GiB cases)
NUMPY = ("--adapter", "numpy", "--op", "numpy.array_split", "--op", "torch.chunk", "-k", "not large")


def _run_all(cwd: Path, out: Path, *args: str, shards: int = 3) -> None:
    """The unsharded run and each shard, as concurrent separate processes."""
    runs = [("--out", str(out / "full"))] + [
        ("--shard", f"{index}/{shards}", "--out", str(out / f"shard-{index}"))
        for index in range(1, shards + 1)
    ]
    processes = [start_cli(cwd, "run", *args, *extra) for extra in runs]
    for process in processes:
        _, err = process.communicate(timeout=300)
        assert process.returncode in (0, 1), err  # 1: a red (but complete) run


def _verdicts(path: Path) -> list[dict[str, Any]]:
    body = json.loads(path.read_text(encoding="utf-8"))
    return [{k: v for k, v in result.items() if k not in ("timing", "worker")} for result in body["results"]]


def _key(result: dict[str, Any]) -> str:
    return f"{result['case']}::{result['op']}@{result['adapter']}/{result['route']}/{result['device']}"


def _check_merged_equals_unsharded(out: Path, shards: int = 3) -> list[int]:
    """Merge the shards and compare with the unsharded run; returns the shards' sizes."""
    parts = [out / f"shard-{index}" / "results.json" for index in range(1, shards + 1)]
    done = run_cli(ROOT, "merge", *map(str, parts), "-o", str(out / "merged"))
    assert done.returncode == 0, done.stderr
    full, merged = _verdicts(out / "full" / "results.json"), _verdicts(out / "merged" / "results.json")
    assert [_key(r) for r in merged] == [_key(r) for r in full]  # same keys, same order
    assert merged == full  # statuses, messages, expected, actual, mismatch, reproducers
    keys = [{_key(r) for r in _verdicts(part)} for part in parts]
    assert sum(map(len, keys)) == len(full) and set().union(*keys) == {_key(r) for r in full}  # each once
    body = json.loads((out / "merged" / "results.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(results_file.schema()).validate(body)
    assert [run["shard"] for run in body["run"]["merged"]] == [f"{i}/{shards}" for i in range(1, shards + 1)]
    assert body["run"]["selection"]["shard"] is None and body["run"]["interrupted"] is False
    assert (out / "merged" / "index.html").stat().st_size > 0

    def cases(path: Path) -> list[tuple[str | None, str | None]]:
        return [
            (c.get("classname"), c.get("name")) for c in ElementTree.parse(path).getroot().iter("testcase")
        ]

    assert cases(out / "merged" / "junit.xml") == cases(out / "full" / "junit.xml")
    return [len(part) for part in keys]


def _corpus(directory: Path) -> Path:
    (directory / "cases").mkdir()
    (directory / "cases" / "few.yaml").write_text(CASES, encoding="utf-8")
    return directory


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return _corpus(tmp_path)


@pytest.fixture(scope="module")
def fake_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fake adapters' unsharded run and its 3 shards (out/full, out/shard-I), made once."""
    corpus = _corpus(tmp_path_factory.mktemp("fake"))
    _run_all(corpus, corpus / "out", *FAKE, *FAKE_OPTIONS)
    return corpus


@pytest.mark.slow
def test_sharded_runs_merged_equal_the_unsharded_run_on_fake_adapters(fake_runs: Path) -> None:
    out = fake_runs / "out"
    statuses = {r["status"] for r in _verdicts(out / "full" / "results.json")}
    assert statuses == {"pass", "fail"}  # the comparison covers mismatches and reproducers too
    sizes = _check_merged_equals_unsharded(out)
    assert sum(sizes) == 120 and min(sizes) > 0
    shard_2 = json.loads((out / "shard-2" / "results.json").read_text(encoding="utf-8"))
    assert shard_2["run"]["selection"]["shard"] == "2/3"


@pytest.mark.slow
def test_sharded_runs_merged_equal_the_unsharded_run_with_numpy_on_the_real_corpus(tmp_path: Path) -> None:
    _run_all(ROOT, tmp_path, *NUMPY, "--repeat", "1")
    sizes = _check_merged_equals_unsharded(tmp_path)
    suite = load_paths([ROOT / "cases"])
    items = select(suite.cases, ("numpy.array_split", "torch.chunk"), keyword="not large")
    # numpy.array_split runs on the numpy route, torch.chunk on the emulated one: each item once
    assert sum(sizes) == len(items)
    third = sum(sizes) / 3
    assert all(abs(size - third) < 0.2 * third for size in sizes), sizes  # binomial: about a third +- 6 %


def test_shard_arguments_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    for bad in ("0/3", "4/3", "x", "3", "1/0", "-1/3", "1/3/3"):
        assert main(["run", "--adapter", "numpy", f"--shard={bad}"]) == 2, bad
        err = capsys.readouterr().err
        assert f"--shard {bad!r}" in err, err
    assert Shard.parse(" 2 / 3 ") == Shard(2, 3) and str(Shard.parse("3/3")) == "3/3"
    with pytest.raises(UsageError, match="between 1 and N"):
        Shard(4, 3)


def test_assignment_is_a_stable_partition() -> None:
    keys = [f"c{n}::numpy.split@numpy/numpy/cpu" for n in range(3000)]
    shards = [Shard(index, 3) for index in (1, 2, 3)]
    owners = [[shard for shard in shards if shard.owns(key)] for key in keys]
    assert all(len(found) == 1 for found in owners)  # every key in exactly one shard
    # SHA-256, not Python's salted hash(): every machine and process agrees (pinned values)
    key = "vsplit-doc-1::openvino.VariadicSplit-1@openvino/native/CPU"
    assert (bucket(key, 3), bucket(key, 7), bucket(key, 1000)) == (0, 3, 368)
    # a growing corpus moves no existing job
    before = {key: bucket(key, 3) for key in keys[:2000]}
    assert all(bucket(key, 3) == shard for key, shard in before.items())


def _shard_files(fake_runs: Path) -> list[Path]:
    return [fake_runs / "out" / f"shard-{index}" / "results.json" for index in (1, 2, 3)]


def _edited(path: Path, target: Path, edit: Any) -> Path:
    body = json.loads(path.read_text(encoding="utf-8"))
    edit(body)
    target.write_text(json.dumps(body), encoding="utf-8")
    return target


@pytest.mark.slow
def test_merge_refuses_what_is_not_one_run(fake_runs: Path, tmp_path: Path) -> None:
    one, two, three = _shard_files(fake_runs)
    corpus = tmp_path
    other = "sha256:" + "0" * 64
    alien = _edited(two, corpus / "alien.json", lambda body: body["suite"].update(digest=other))
    done = run_cli(corpus, "merge", str(one), str(alien), "-o", str(corpus / "m"))
    assert done.returncode == 2
    digest = json.loads(one.read_text(encoding="utf-8"))["suite"]["digest"]
    assert "different case corpora" in done.stderr and str(one) in done.stderr and str(alien) in done.stderr
    assert digest in done.stderr and other in done.stderr
    assert not (corpus / "m" / "results.json").exists()

    def flip(body: dict[str, Any]) -> None:
        body["results"][0]["status"] = "error"

    changed = _edited(one, corpus / "rerun.json", flip)
    key = _key(json.loads(one.read_text(encoding="utf-8"))["results"][0])
    with pytest.raises(
        merge.MergeError, match=re.escape(f"{key} is in {one} (pass) and in {changed} (error)")
    ):
        merge.write([one, changed], corpus / "m")
    merged, _ = merge.write([one, two, three, changed], corpus / "m", prefer_last=True)
    assert next(r for r in merged.document["results"] if _key(r) == key)["status"] == "error"
    assert merged.duplicates == len(json.loads(one.read_text(encoding="utf-8"))["results"])

    newer = _edited(two, corpus / "newer.json", lambda body: body["adapters"][0].update(version="99"))
    with pytest.raises(merge.MergeError, match="target liar/slices/cpu differs between"):
        merge.write([one, newer], corpus / "m")
    broken = _edited(two, corpus / "broken.json", lambda body: body["results"][3].pop("status"))
    with pytest.raises(ResultsFileError, match=re.escape(f"{broken}: results/3 lacks status")):
        merge.write([one, broken], corpus / "m")
    with pytest.raises(merge.MergeError, match="is one of the files being merged"):
        merge.write([one, two], one.parent)


@pytest.mark.slow
def test_merge_takes_identical_duplicates_and_reports_missing_shards(fake_runs: Path, tmp_path: Path) -> None:
    one, two, three = _shard_files(fake_runs)
    corpus = tmp_path
    merged, _ = merge.write([one, two, three, one], corpus / "m")  # the same verdicts twice: fine
    assert merged.incomplete == [] and merged.duplicates > 0

    def reword(body: dict[str, Any]) -> None:  # a backend's text varies by process, not the verdict
        body["results"][0]["message"] += " (node Split_79119)"

    reworded = _edited(one, tmp_path / "reworded.json", reword)
    merged, _ = merge.write([one, two, three, reworded], corpus / "m")
    first = _key(json.loads(one.read_text(encoding="utf-8"))["results"][0])
    found = next(r for r in merged.document["results"] if _key(r) == first)
    assert found["message"].endswith("(node Split_79119)")
    done = run_cli(corpus, "merge", str(one), str(three), "-o", str(corpus / "partial"))
    assert (
        done.returncode == 1
        and "shard 2/3 of the run on liar/slices/cpu, slicer/slices/cpu is missing" in (done.stderr)
    )
    partial = json.loads((corpus / "partial" / "results.json").read_text(encoding="utf-8"))
    assert len(partial["results"]) == sum(len(_verdicts(path)) for path in (one, three))
    # a merge of merges flattens the list of runs and equals the one-step merge
    again = run_cli(
        corpus, "merge", str(corpus / "partial" / "results.json"), str(two), "-o", str(corpus / "re")
    )
    assert again.returncode == 0, again.stderr
    assert _verdicts(corpus / "re" / "results.json") == _verdicts(fake_runs / "out" / "full" / "results.json")
    runs = json.loads((corpus / "re" / "results.json").read_text(encoding="utf-8"))["run"]["merged"]
    assert sorted(run["shard"] for run in runs) == ["1/3", "2/3", "3/3"]


@pytest.mark.slow
def test_a_shard_resumes_only_as_the_same_shard(corpus: Path) -> None:
    shard = Shard(1, 3)
    mine = [f"c{n:02}" for n in range(30) if shard.owns(f"c{n:02}::numpy.array_split@hanger/slices/cpu")]
    args = (
        "--adapter",
        "fake_adapters:Hanger",
        "--op",
        "numpy.array_split",
        "--repeat",
        "1",
        "--shard",
        "1/3",
    )
    process = start_cli(
        corpus, "run", *args, "--option", f"fake_adapters:Hanger.on={mine[-1]}", "--timeout", "60"
    )
    assert len(mine) >= 2
    journal, deadline = corpus / "reports" / "journal.jsonl", time.monotonic() + 120
    while not journal.exists() or len(journal.read_text(encoding="utf-8").splitlines()) < len(mine):
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.05)
    process.send_signal(2)  # SIGINT, as Ctrl-C; the last item of the shard hangs until then
    process.communicate(timeout=60)
    other = run_cli(corpus, "run", *args[:-1], "2/3", "--resume")
    assert other.returncode == 2 and "different selection" in other.stderr
    done = run_cli(
        corpus, "run", *args, "--option", f"fake_adapters:Hanger.on={mine[-1]}", "--timeout", "2", "--resume"
    )
    assert f"resuming: {len(mine) - 1} results already journaled, 1 to go" in done.stderr
    body = json.loads((corpus / "reports" / "results.json").read_text(encoding="utf-8"))
    assert [r["case"] for r in body["results"]] == mine and body["run"]["selection"]["shard"] == "1/3"


@pytest.mark.slow
def test_the_pytest_plugin_selects_the_same_shard(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makefile(".yaml", few=CASES)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]))
    result = pytester.runpytest_subprocess(
        "few.yaml", "--adapter", "fake_adapters:Slicer", "--conformance-shard", "2/3"
    )
    shard = Shard(2, 3)
    keys = [
        f"c{n:02}::{op}@slicer/slices/cpu"
        for n in range(30)
        for op in ("numpy.array_split", "torch.tensor_split")
    ]
    kept = [key for key in keys if shard.owns(key)]
    result.assert_outcomes(passed=len(kept), deselected=len(keys) - len(kept))
    body = json.loads((pytester.path / "reports" / "results.json").read_text(encoding="utf-8"))
    assert {_key(r) for r in body["results"]} == set(kept) and body["run"]["selection"]["shard"] == "2/3"
    bad = pytester.runpytest_subprocess(
        "few.yaml", "--adapter", "fake_adapters:Slicer", "--conformance-shard", "4/3"
    )
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*--conformance-shard '4/3': I must be between 1 and N*"])


def _substitute(line: str, values: dict[str, Any]) -> str:
    return re.sub(r"\$\{\{\s*matrix\.(\w+)\s*\}\}", lambda match: str(values[match[1]]), line)


def _workflow_commands(workflow: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """(line, argv) for every `conformance ...` line, once per matrix combination."""
    found = []
    for job in workflow["jobs"].values():
        matrix = job.get("strategy", {}).get("matrix", {})
        combinations = [
            dict(zip(matrix, combo, strict=True)) for combo in itertools.product(*matrix.values())
        ]
        for step in job["steps"]:
            for line in str(step.get("run", "")).splitlines():
                for values in combinations:
                    text = _substitute(line, values)
                    if text.strip().startswith("conformance "):
                        found.append((text, shlex.split(text)[1:]))
    return found


def test_the_ci_workflow_parses_and_its_commands_exist() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert set(workflow) >= {"name", True, "jobs"}  # `on:` is YAML 1.1's True to PyYAML
    jobs = workflow["jobs"]
    matrix = jobs["shard"]["strategy"]["matrix"]
    adapters, shards = matrix["adapter"], matrix["shard"]
    assert len(adapters) * len(shards) >= 12 and all((ROOT / "adapters" / name).is_dir() for name in adapters)
    assert jobs["merge"]["needs"] == "shard" and jobs["merge"]["if"] == "always()"
    parser = build_parser()
    commands = _workflow_commands(workflow)
    verbs = {argv[0] for _, argv in commands}
    assert {"run", "merge", "validate", "adapters"} <= verbs
    for line, argv in commands:
        parsed = parser.parse_args(argv)  # exits (SystemExit) on an unknown flag or verb
        if parsed.verb == "run":
            shard = Shard.parse(parsed.shard)
            assert shard.count == len(shards), line
            assert parsed.out == f"reports/{parsed.adapter[0]}-{shard.index}", line
    assert len([argv for _, argv in commands if argv[0] == "run"]) == len(adapters) * len(shards)
    steps = [step for job in jobs.values() for step in job["steps"]]
    uses = {str(step.get("uses", "")).split("@")[0] for step in steps}
    assert {
        "actions/checkout",
        "actions/setup-python",
        "actions/upload-artifact",
        "actions/download-artifact",
    } <= uses
    setups = [step["with"] for step in steps if str(step.get("uses", "")).startswith("actions/setup-python")]
    assert all(s["python-version"] == "3.11" and s["cache"] == "pip" for s in setups)
    installs = [str(step["run"]) for step in steps if "pip install" in str(step.get("run", ""))]
    assert installs and all("-c constraints.txt" in run for run in installs)
    assert any(str(step.get("run", "")).strip() == ".ci/run" for step in jobs["tests"]["steps"])
    sessions = [
        str(step["run"]).split()[2] for step in steps if str(step.get("run", "")).startswith("nox -s ")
    ]
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    assert sessions and all(f"def {name}(" in noxfile for name in sessions), sessions
    assert (ROOT / ".ci" / "run").is_file() and (ROOT / "constraints.txt").is_file()


def test_the_extra_targets_run_in_the_parts_adapters_toml_sized() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    job = workflow["jobs"]["extra-targets"]
    parts = job["strategy"]["matrix"]["part"]
    shards = adapter_table.TABLES["extra_targets"]["shards"]
    assert parts == list(range(1, shards + 1))
    runs = [str(step.get("run", "")) for step in job["steps"]]
    assert f"nox -s extra_targets -- --shard ${{{{ matrix.part }}}}/{shards}" in runs
    assert workflow["jobs"]["extra-merge"]["needs"] == "extra-targets"
