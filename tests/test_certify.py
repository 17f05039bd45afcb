"""Certification: the example vendor adapter is installed with pip and certified; flawed variants
are not; ambiguous items never decide; a tampered certificate or results file fails verification."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance import cli
from conformance.certify import certificate
from conformance.certify import certification as certify
from conformance.certify.profiles import Role
from conformance.corpus.loader import load_paths
from conformance.loading import registry
from conformance.results import document as results_file
from conformance.results.result import Result

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
EXAMPLE = ROOT / "examples" / "acme-adapter"
PROFILES = ROOT / "cases" / "profiles"

Certificate = dict[str, Any]


@pytest.fixture(scope="session")
def acme_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """An environment in which ``acme`` is an installed adapter, found through its entry point.

    CI installs the example with the project (noxfile.py); elsewhere a copy of it is pip-installed
    once into a directory of its own on PYTHONPATH, leaving the environment and the tree as they were.
    """
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    if "acme" in registry.installed():
        return env
    site, source = tmp_path_factory.mktemp("acme-site"), tmp_path_factory.mktemp("acme") / "src"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", ".*cache"))
    command = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation"]
    subprocess.run([*command, "--target", str(site), str(source)], check=True, timeout=300)
    env["PYTHONPATH"] = os.pathsep.join([str(site), env["PYTHONPATH"]])
    return env


def run_certify(
    env: dict[str, str], out: Path, *args: str
) -> tuple[subprocess.CompletedProcess[str], Certificate]:
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "certify", *args, "--out", str(out), "-j", "2"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    path = out / certificate.FILE_NAME
    assert path.exists(), done.stderr
    return done, json.loads(path.read_text())


@pytest.fixture(scope="module")
def certified(acme_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example adapter certified against numpy-split on the whole corpus: its output directory."""
    out = tmp_path_factory.mktemp("acme-numpy-split")
    done, _ = run_certify(acme_env, out, "--adapter", "acme", "--profile", "numpy-split")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "CERTIFIED: acme against numpy-split" in done.stdout
    return out


@pytest.fixture(scope="module")
def sloppy(acme_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> tuple[int, Path]:
    """A variant that accepts what numpy.split must reject, on the count and invalid cases."""
    out = tmp_path_factory.mktemp("sloppy")
    done, _ = run_certify(
        acme_env,
        out,
        *("--adapter", "acme_variants:Sloppy", "--profile", str(PROFILES / "numpy-split.yaml")),
        *("--cases", "cases/counts.yaml", "--cases", "cases/invalid.yaml"),
    )
    return done.returncode, out


def read(out: Path) -> tuple[Certificate, list[Result]]:
    return json.loads((out / certificate.FILE_NAME).read_text()), results_file.read(out / "results.json")[1]


# --- the example adapter -------------------------------------------------------------------------


def test_the_example_adapter_is_installed_under_its_entry_point(acme_env: dict[str, str]) -> None:
    probe = (
        "from conformance.loading import registry; a = registry.load('acme'); "
        "print(a.import_path, a.info.version)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], env=acme_env, capture_output=True, text=True, check=False
    )
    assert done.stdout.split() == ["acme_conformance:AcmeAdapter", "1.0.0"], done.stderr


@pytest.mark.slow
def test_the_example_adapter_is_certified(certified: Path) -> None:
    body, results = read(certified)
    profile = body["profile"]
    assert body["schema"] == "conformance.certificate/1" and body["certified"] is True
    assert profile["id"] == "numpy-split" and profile["digest"] == file_digest(PROFILES / "numpy-split.yaml")
    suite = load_paths([ROOT / "cases"])
    assert body["suite"]["digest"] == suite.digest and body["suite"]["cases"] == len(suite.cases)
    adapter = body["adapter"]
    assert (adapter["name"], adapter["package"], adapter["backend"], adapter["backend_version"]) == (
        "acme",
        "acme-conformance",
        "acme-kernels",
        "1.0.0",
    )
    assert [target["id"] for target in body["targets"]] == ["acme/kernels/cpu"]
    assert body["targets"][0]["device"] == "cpu"
    assert body["environment"]["packages"]["acme-conformance"] == "1.0.0"
    assert body["environment"]["python"] and body["environment"]["host"]["cpus"]
    verdict = body["verdict"]
    assert [(row["op"], row["certified"]) for row in verdict["ops"]] == [
        ("numpy.split", True),
        ("numpy.array_split", True),
    ]
    assert verdict["failures"] == [] and verdict["targets"] == {"acme/kernels/cpu": True}
    assert len(results) == len(body["scope"]["items"]) == sum(row["passed"] for row in verdict["ops"])
    assert {result.status for result in results} == {"pass"}
    # both digests recompute from the files alone
    assert certificate.results_digest(results) == body["results_digest"]
    assert certificate.sha256({k: v for k, v in body.items() if k != "digest"}) == body["digest"]
    page = (certified / certificate.HTML_NAME).read_text()
    assert "CERTIFIED" in page and "NOT CERTIFIED" not in page and "<script" not in page
    assert body["results_digest"] in page and 'href="index.html"' in page


def file_digest(path: Path) -> str:
    return f"sha256:{hashlib.sha256(path.read_bytes()).hexdigest()}"


@pytest.mark.slow
def test_the_example_adapter_is_certified_for_the_pytorch_family(
    acme_env: dict[str, str], tmp_path: Path
) -> None:
    done, body = run_certify(acme_env, tmp_path, "--adapter", "acme", "--profile", "pytorch-split")
    assert done.returncode == 0, done.stdout + done.stderr
    assert body["certified"] and {row["op"] for row in body["verdict"]["ops"]} == {
        "torch.split",
        "torch.tensor_split",
        "torch.chunk",
    }
    shown = body["verdict"]["ambiguous"]  # torch.split with a size on an empty dimension
    assert shown and all(entry["status"] == "pass" and entry["reading"] for entry in shown)


@pytest.mark.slow
def test_numpy_is_certified_for_basic_slicing(tmp_path: Path) -> None:
    """A second family's profile, on the real NumPy: every Slice case basic slicing can state."""
    done, body = run_certify(dict(os.environ), tmp_path, "--adapter", "numpy", "--profile", "numpy-slice")
    assert done.returncode == 0, done.stdout + done.stderr
    assert body["certified"] and [row["op"] for row in body["verdict"]["ops"]] == ["numpy.ndarray.__getitem__"]
    judged = body["verdict"]["ops"][0]
    assert judged["required"] > 100 and judged["passed"] == judged["required"] and judged["failed"] == 0
    assert certify.verify(tmp_path / certificate.FILE_NAME, None, [str(ROOT / "cases")]).problems == []


@pytest.mark.slow
def test_a_certificate_verifies_from_its_files(certified: Path) -> None:
    checked = certify.verify(certified / certificate.FILE_NAME, None, [str(ROOT / "cases")])
    assert checked.problems == [] and checked.notes == []  # the scope was derived again, too
    assert cli.main(["certify", "--verify", str(certified / certificate.FILE_NAME)]) == 0


# --- what fails a certificate, and what never does ------------------------------------------------


@pytest.mark.slow
def test_a_flawed_variant_is_not_certified_and_its_failures_carry_evidence(sloppy: tuple[int, Path]) -> None:
    returncode, out = sloppy
    body, _ = read(out)
    assert returncode == 1 and body["certified"] is False
    by_op = {row["op"]: row for row in body["verdict"]["ops"]}
    assert by_op["numpy.array_split"]["certified"] and not by_op["numpy.split"]["certified"]
    failures = body["verdict"]["failures"]
    assert failures and len(failures) == by_op["numpy.split"]["failed"]
    for entry in failures:
        assert entry["item"].endswith("::numpy.split") and entry["status"] == "fail"
        assert entry["expected"]["rejected"]["rule"] == "sections-divide"
        assert entry["actual"]["outputs"] and entry["message"].startswith(
            "accepted an input the spec rejects"
        )
        assert entry["reproducer"]["command"].startswith("conformance run")
        assert "kernels.numpy_array_split(data" in entry["reproducer"]["python"]
    page = (out / certificate.HTML_NAME).read_text()
    assert "NOT CERTIFIED" in page and failures[0]["item"] in page and "sections-divide" in page
    # an honest negative certificate verifies too
    assert certify.verify(out / certificate.FILE_NAME, None).problems == []


@pytest.mark.slow
def test_ambiguous_items_never_decide(acme_env: dict[str, str], tmp_path: Path) -> None:
    done, body = run_certify(
        acme_env,
        tmp_path,
        *("--adapter", "acme_variants:Unsure", "--profile", str(PROFILES / "pytorch-split.yaml")),
        *("--cases", "cases/ambiguous.yaml", "--cases", "cases/counts.yaml"),
    )
    shown = body["verdict"]["ambiguous"]
    assert done.returncode == 0 and body["certified"], done.stdout
    assert shown and {entry["status"] for entry in shown} == {"fail"}
    assert all(entry["reading"] is None for entry in shown) and body["verdict"]["failures"] == []


@pytest.mark.slow
def test_unsupported_fails_a_certificate_unless_the_profile_makes_it_optional(
    acme_env: dict[str, str], tmp_path: Path
) -> None:
    corpus = ("--cases", "cases/dtypes.yaml")
    done, strict = run_certify(
        acme_env,
        tmp_path / "strict",
        "--adapter",
        "acme_variants:NoBfloat16",
        "--profile",
        "numpy-split",
        *corpus,
    )
    assert done.returncode == 1 and not strict["certified"]
    assert strict["verdict"]["failures"] and {e["status"] for e in strict["verdict"]["failures"]} == {
        "unsupported"
    }
    lenient = tmp_path / "numpy-lenient.yaml"
    lenient.write_text(
        (PROFILES / "numpy-split.yaml").read_text().replace("id: numpy-split", "id: numpy-lenient")
        + "optional:\n  - {reason: bfloat16 is not a NumPy type, dtypes: [bfloat16]}\n"
    )
    done, body = run_certify(
        acme_env,
        tmp_path / "lenient",
        "--adapter",
        "acme_variants:NoBfloat16",
        "--profile",
        str(lenient),
        *corpus,
    )
    skipped = body["verdict"]["optional_unsupported"]
    assert done.returncode == 0 and body["certified"], done.stdout
    assert len(skipped) == len(strict["verdict"]["failures"])
    assert {entry["reason"] for entry in skipped} == {"bfloat16 is not a NumPy type"}


# --- tampering -----------------------------------------------------------------------------------


@pytest.fixture
def copied(certified: Path, tmp_path: Path) -> Iterator[Path]:
    for name in (certificate.FILE_NAME, "results.json"):
        shutil.copy(certified / name, tmp_path / name)
    yield tmp_path


def _reseal(body: Certificate) -> Certificate:
    body = {key: value for key, value in body.items() if key != "digest"}
    return {**body, "digest": certificate.sha256(body)}


@pytest.mark.slow
def test_an_edited_certificate_fails_verification(copied: Path) -> None:
    path = copied / certificate.FILE_NAME
    body = json.loads(path.read_text())
    body["adapter"]["backend_version"] = "2.0.0"
    path.write_text(json.dumps(body))
    assert certify.verify(path, None).problems == [
        "the certificate was altered: its digest does not match its content"
    ]
    assert cli.main(["certify", "--verify", str(path)]) == 1


def test_edited_results_fail_verification(copied: Path) -> None:
    results = copied / "results.json"
    document = json.loads(results.read_text())
    document["results"][3]["status"] = "fail"
    results.write_text(json.dumps(document))
    problems = certify.verify(copied / certificate.FILE_NAME, None).problems
    assert "the results differ from those certified: results_digest does not match" in problems
    assert any("the verdict does not follow from the results" in problem for problem in problems)
    document["results"][3]["status"] = "pass"  # timing is no part of the digest
    document["results"][3]["timing"]["first_run_ms"] = 12345.0
    results.write_text(json.dumps(document))
    assert certify.verify(copied / certificate.FILE_NAME, None).problems == []


def test_a_forged_verdict_fails_verification(sloppy: tuple[int, Path], tmp_path: Path) -> None:
    _, out = sloppy
    shutil.copy(out / "results.json", tmp_path / "results.json")
    body, _ = read(out)
    forged = copy.deepcopy(body)
    forged["certified"] = forged["verdict"]["certified"] = True
    forged["verdict"]["failures"] = []
    (tmp_path / certificate.FILE_NAME).write_text(json.dumps(_reseal(forged)))
    problems = certify.verify(tmp_path / certificate.FILE_NAME, None).problems
    assert problems == [
        "the verdict does not follow from the results: they give certified=False, "
        f"{len(body['verdict']['failures'])} failure(s)"
    ]


def test_demoting_failures_to_ambiguous_is_caught_by_the_scope(
    sloppy: tuple[int, Path], tmp_path: Path
) -> None:
    """A consistent forgery (roles changed, verdict and digests recomputed) matches its results;
    deriving the scope again from the profile and the corpus exposes it."""
    _, out = sloppy
    shutil.copy(out / "results.json", tmp_path / "results.json")
    body, results = read(out)
    roles: dict[str, Role] = dict(body["scope"]["items"])
    for entry in body["verdict"]["failures"]:
        roles[entry["item"]] = "ambiguous"
    targets = body["scope"]["targets"]
    forged = copy.deepcopy(body)
    forged["scope"]["items"] = roles
    forged["verdict"] = json.loads(json.dumps(certificate.assess(roles, {}, targets, results)))
    forged["certified"] = forged["verdict"]["certified"]
    assert forged["certified"] is True
    path = tmp_path / certificate.FILE_NAME
    path.write_text(json.dumps(_reseal(forged)))
    assert certify.verify(path, None).problems == []  # consistent with its results ...
    corpus = [str(ROOT / "cases" / "counts.yaml"), str(ROOT / "cases" / "invalid.yaml")]
    checked = certify.verify(path, None, corpus)
    assert checked.problems and "the scope is not what profile numpy-split selects" in checked.problems[0]


# --- the rules, on synthetic results ----------------------------------------------------------------


def _result(item: str, status: str, **fields: Any) -> Result:
    case, _, op = item.partition("::")
    return Result(case, op, "acme", "kernels", "cpu", status, f"{status} message", **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("status", "role", "fails"),
    [
        ("pass", "required", False),
        ("xpass", "required", False),  # right answer; only the known-issues list is stale
        ("xfail", "required", True),  # a known issue is still a departure from the spec
        ("fail", "required", True),
        ("error", "required", True),
        ("crash", "required", True),
        ("timeout", "required", True),
        ("unsupported", "required", True),
        ("unsupported", "optional", False),
        ("fail", "optional", True),  # optional items may be unsupported, never wrong
        ("fail", "ambiguous", False),
        ("crash", "ambiguous", False),
    ],
)
def test_the_rules(status: str, role: Role, fails: bool) -> None:
    roles: dict[str, Role] = {"a::numpy.split": "required", "b::numpy.split": role}
    results = [_result("a::numpy.split", "pass"), _result("b::numpy.split", status)]
    verdict = certificate.assess(roles, {}, ["acme/kernels/cpu"], results)
    assert verdict["certified"] is not fails
    assert [entry["item"] for entry in verdict["failures"]] == (["b::numpy.split"] if fails else [])


def test_a_missing_result_fails_and_says_why() -> None:
    roles: dict[str, Role] = {"a::numpy.split": "required", "b::torch.chunk": "required"}
    verdict = certificate.assess(roles, {}, ["acme/kernels/cpu"], [_result("a::numpy.split", "pass")])
    assert not verdict["certified"]
    assert (
        verdict["failures"][0]["status"] == "missing"
        and "does not offer torch.chunk" in verdict["failures"][0]["message"]
    )
    assert [(row["op"], row["certified"]) for row in verdict["ops"]] == [
        ("torch.chunk", False),
        ("numpy.split", True),
    ]


def test_the_results_digest_covers_what_decides_and_nothing_else() -> None:
    base = _result("a::numpy.split", "pass", expected={"outputs": []})
    digest = certificate.results_digest([base])
    reworded = Result(**{**base.__dict__, "message": "other words", "worker": {"pid": 1}})
    assert certificate.results_digest([reworded]) == digest
    changes: list[dict[str, Any]] = [
        {"status": "fail"},
        {"expected": {"outputs": [1]}},
        {"actual": {"raised": {}}},
        {"device": "gpu"},
    ]
    for changed in changes:
        assert certificate.results_digest([Result(**{**base.__dict__, **changed})]) != digest


# --- the command line ------------------------------------------------------------------------------


def test_usage_errors_name_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["certify", "--adapter", "fake_adapters:Slicer"]) == 2
    assert "--adapter and --profile are required" in capsys.readouterr().err
    assert cli.main(["certify", "--adapter", "fake_adapters:Slicer", "--profile", "numpy-splt"]) == 2
    assert "no profile 'numpy-splt' (did you mean 'numpy-split'?)" in capsys.readouterr().err
    args = [
        "certify",
        "--adapter",
        "fake_adapters:Slicer",
        "--profile",
        "numpy-split",
        "--cases",
        "cases/counts.yaml",
    ]
    assert cli.main([*args, "--option", "numpy.device=cpu"]) == 2
    assert (
        "--option for numpy: only adapter fake_adapters:Slicer is being certified" in capsys.readouterr().err
    )
    assert cli.main([*args, "--route", "eager"]) == 2
    assert "--route eager: adapter slicer has routes slices" in capsys.readouterr().err
    assert cli.main([*args, "--profile", "onnx-split13"]) == 2
    assert (
        "no route of adapter slicer runs an op of profile onnx-split13 (onnx.Split-13)"
        in capsys.readouterr().err
    )
