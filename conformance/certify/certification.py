"""``conformance certify``: run a profile's items on one adapter and write its certificate.

The run is an ordinary run (:func:`conformance.run.runner.execute`, the one path every run takes)
narrowed to the profile's items and the targets asked for; the certificate is then derived from
the results file as written, so ``conformance certify --verify`` can recompute it from the two files.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TextIO

from conformance import plugin
from conformance.certify import certificate, profiles
from conformance.certify.profiles import Profile
from conformance.corpus.loader import load_paths
from conformance.errors import CertifyError, ConformanceError
from conformance.loading import registry
from conformance.results import document as results_file
from conformance.results.records import ResultsDocument
from conformance.results.result import JSON
from conformance.run import planning, resumption, runner
from conformance.storage import out_folder


@dataclass(frozen=True)
class CertifyRequest:
    """What ``conformance certify`` was asked: the adapter, the profile and how to run them."""

    adapter: str  # entry-point name or module:Class
    profile: str  # profile id (looked up in <cases>/profiles/) or the path of a profile file
    route: str | None = None
    device: str | None = None
    options: Mapping[str, str] = field(default_factory=dict)
    case_paths: tuple[str, ...] = ("cases",)
    out: Path | None = None  # default: reports/certify/<adapter>-<profile>/
    jobs: int = 1
    timeout: float = 120.0
    #: seconds for the crash review (``--crash-budget``; see conformance.verdict.crash_review)
    crash_budget_s: float = 300.0
    command: tuple[str, ...] = ()
    #: finish the interrupted certification in ``out`` from its journal
    resume: bool = False


@dataclass(frozen=True)
class Certified:
    """A sealed certificate and the files written for it (certificate.json, then the run's);
    no certificate when the run was interrupted (it would judge a part as the whole)."""

    certificate: JSON | None
    out: Path
    written: list[Path]
    interrupted: bool = False


def certify(request: CertifyRequest, stream: TextIO | None = None) -> Certified:
    """Run the profile on the adapter and write certificate.json; a ConformanceError for unusable
    input, before running anything. When interrupted, the finished results and no certificate."""
    stream = stream or sys.stderr
    profile = _profile(request.profile, request.case_paths)
    out = output_folder(request, profile)
    out_folder.check(out)
    if request.resume:
        resumption.require_journal(out)
    suite = load_paths(request.case_paths)
    scope = profile.scope(suite)
    config = planning.RunConfig(
        case_paths=request.case_paths,
        adapters=(request.adapter,),
        options={request.adapter: dict(request.options)},
        ops=profile.ops,
        items=tuple(scope.roles),
        targets=(f"*/{request.route or '*'}/{request.device or '*'}",),
        jobs=request.jobs,
        timeout=request.timeout,
        crash_budget_s=request.crash_budget_s,
        repeat=0,  # timing is no part of a certificate
        out=out,
        junit=False,
        command=request.command,
        resume=request.resume,
    )
    plan = planning.plan(config)
    targets = sorted({job.target.id for job in plan.jobs})
    if not targets:
        raise CertifyError(_nothing_to_run(plan.loaded[0], profile, request))
    if request.resume:
        runner.check_resumable(plan, config)
    print(
        f"certifying {request.adapter} against {profile.id}: {len(scope.roles)} items "
        f"({scope.count('required')} required, {scope.count('optional')} optional, "
        f"{scope.count('ambiguous')} ambiguous) on {', '.join(targets)}",
        file=stream,
    )
    for stale in (certificate.FILE_NAME, certificate.HTML_NAME):  # never beside results it does not match
        (out / stale).unlink(missing_ok=True)
    outcome = runner.execute(plan, config, stream)
    if outcome.interrupted:
        return Certified(None, out, outcome.written, interrupted=True)
    document, results = results_file.read(out / results_file.FILE_NAME)  # certify what was written
    header = _header(profile, plan.loaded[0], document, targets)
    sealed = certificate.build(header, scope.roles, scope.reasons, targets, results)
    json_path = out / certificate.FILE_NAME
    results_file.write(json_path, sealed)
    return Certified(sealed, out, [json_path, *outcome.written])


def output_folder(request: CertifyRequest, profile: Profile | None = None) -> Path:
    """``--out``, or by default ``reports/certify/<adapter>-<profile id>``."""
    if request.out is not None:
        return request.out
    profile = profile or _profile(request.profile, request.case_paths)
    return Path("reports") / "certify" / f"{out_folder.path_safe(request.adapter)}-{profile.id}"


#: Failures the terminal summary names; the certificate lists them all.
PRINTED_FAILURES = 20


def print_verdict(done: Certified) -> int:
    """The verb's output: the verdict per op and the first failures; 0 when certified."""
    sealed = done.certificate
    assert sealed is not None, "an interrupted certification has no verdict"
    verdict = sealed["verdict"]
    for row in verdict["ops"]:
        mark = "certified" if row["certified"] else "NOT certified"
        counts = ", ".join(f"{status} {count}" for status, count in row["statuses"].items())
        print(f"{row['target']:<28} {row['op']:<26} {mark:<14} ({counts})")
    for entry in verdict["failures"][:PRINTED_FAILURES]:
        message = " ".join(entry["message"].split())
        print(f"  {entry['status']:<11} {entry['item']} @ {entry['target']}: {message[:160]}")
    if len(verdict["failures"]) > PRINTED_FAILURES:
        print(f"  ... and {len(verdict['failures']) - PRINTED_FAILURES} more (all in the certificate)")
    word = "CERTIFIED" if sealed["certified"] else "NOT CERTIFIED"
    print(f"{word}: {sealed['adapter']['name']} against {sealed['profile']['id']}; {sealed['digest']}")
    print(f"wrote {', '.join(str(path) for path in done.written)}")
    return 0 if sealed["certified"] else 1


def verify_verb(certificate_path: Path, results_path: Path | None, case_paths: Sequence[str]) -> int:
    """The verb's ``--verify``: 0 when the certificate holds, 1 when it does not."""
    checked = verify(certificate_path, results_path, case_paths)
    for note in checked.notes:
        print(f"note: {note}")
    for problem in checked.problems:
        print(f"{certificate_path}: {problem}")
    if checked.problems:
        print(f"NOT VERIFIED: {len(checked.problems)} problem(s)")
        return 1
    claim = "CERTIFIED" if checked.certified else "NOT CERTIFIED"
    print(f"verified: {certificate_path} ({claim}) follows from its results")
    return 0


def options_for(adapter: str, pairs: Sequence[str]) -> dict[str, str]:
    """``--option ADAPTER.KEY=VALUE`` strings (as ``conformance run`` takes them) for the one adapter."""
    parsed = planning.parse_options(pairs, [adapter])
    others = sorted(set(parsed) - {adapter})
    if others:
        raise CertifyError(f"--option for {', '.join(others)}: only adapter {adapter} is being certified")
    return parsed.get(adapter, {})


@dataclass(frozen=True)
class Verification:
    problems: list[str]  # each a reason the certificate does not hold
    notes: list[str]  # what could not be checked, and why
    certified: bool = False  # what the certificate claims


def verify(certificate_path: Path, results_path: Path | None, case_paths: Sequence[str] = ()) -> Verification:
    """Check a certificate against its results file (by default the one it names), and with the
    certified corpus and profile at hand derive its scope again, else say so in a note."""
    try:
        claimed: JSON = json.loads(certificate_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise CertifyError(f"{certificate_path}: cannot read a certificate: {error}") from None
    except RecursionError:
        raise CertifyError(f"{certificate_path}: cannot read a certificate: nested too deeply") from None
    if not isinstance(claimed, dict) or claimed.get("schema") != certificate.SCHEMA:
        found = claimed.get("schema") if isinstance(claimed, dict) else type(claimed).__name__
        raise CertifyError(
            f"{certificate_path}: not a certificate of schema {certificate.SCHEMA} (got {found!r})"
        )
    run = claimed.get("run")
    named = run.get("results", results_file.FILE_NAME) if isinstance(run, dict) else results_file.FILE_NAME
    results_path = results_path or certificate_path.parent / str(named)
    document, results = results_file.read(results_path)  # a ResultsFileError names the file
    problems = certificate.verify(claimed, results, document["suite"]["digest"])
    if problems or not case_paths:
        notes = [] if problems else ["scope not re-derived: no corpus given"]
        return Verification(problems, notes, claimed.get("certified") is True)
    return replace(_rederive_scope(claimed, case_paths), certified=claimed.get("certified") is True)


def _rederive_scope(claimed: JSON, case_paths: Sequence[str]) -> Verification:
    recorded = claimed.get("profile")
    if not isinstance(recorded, dict) or not {"id", "file", "digest"} <= set(recorded):
        return Verification(["the certificate does not say which profile it follows"], [])
    try:
        by_id = profiles_directory(case_paths) / f"{recorded['id']}.yaml"
        profile = _profile(str(by_id if by_id.is_file() else recorded["file"]), case_paths)
        suite = load_paths(case_paths)
    except ConformanceError as error:
        return Verification([], [f"scope not re-derived: {error}"])
    if profile.digest != recorded["digest"]:
        return Verification([], [f"scope not re-derived: {profile.file} has changed since the certification"])
    if suite.digest != claimed["suite"]["digest"]:
        return Verification([], [f"scope not re-derived: {', '.join(case_paths)} is another corpus"])
    scope = profile.scope(suite)
    derived = {"items": dict(scope.roles), "optional_reasons": dict(scope.reasons)}
    if derived != {key: claimed["scope"][key] for key in derived}:
        return Verification([f"the scope is not what profile {profile.id} selects from {suite.digest}"], [])
    return Verification([], [])


def profiles_directory(case_paths: Sequence[str]) -> Path:
    """Where profile ids are looked up: ``profiles/`` in the first case directory given."""
    directories = [Path(path) for path in case_paths if Path(path).is_dir()]
    return (directories[0] if directories else Path("cases")) / profiles.DIRECTORY


def _profile(name: str, case_paths: Sequence[str]) -> Profile:
    return profiles.find(name, profiles_directory(case_paths))


def _nothing_to_run(loaded: registry.LoadedAdapter, profile: Profile, request: CertifyRequest) -> str:
    """Why no target of the adapter can run the profile: wrong route, wrong device, or no op."""
    info = loaded.info
    routes = {route.name: loaded.route_ops(route.name) for route in info.routes}
    if request.route and request.route not in routes:
        return f"--route {request.route}: adapter {info.name} has routes {', '.join(routes)}"
    if request.device and request.device not in info.devices:
        return (
            f"--device {request.device}: adapter {info.name} targets {', '.join(info.devices)}; "
            f"choose devices with --option {request.adapter}.device={request.device} if it has that option"
        )
    wanted = ", ".join(profile.ops)
    if request.route:
        return (
            f"route {request.route} of adapter {info.name} runs none of profile {profile.id}'s ops ({wanted})"
        )
    listing = "; ".join(f"{name}: {', '.join(ops)}" for name, ops in routes.items())
    return f"no route of adapter {info.name} runs an op of profile {profile.id} ({wanted}); routes: {listing}"


def _header(
    profile: Profile, loaded: registry.LoadedAdapter, document: ResultsDocument, targets: Sequence[str]
) -> JSON:
    """Everything a certificate states besides its verdict: what, by whom, where, with which."""
    info = loaded.info
    described = {route.name: route.description for route in info.routes}
    run = document["run"]
    adapter = plugin.installed_distribution(loaded.import_path.partition(":")[0].split(".")[0])
    package = adapter[0] if adapter else None
    found = [plugin.installed_distribution(name) for name in ("split-conformance", "numpy")] + [adapter]
    packages = dict(entry for entry in found if entry is not None)
    return {
        "profile": profile.to_json(),
        "suite": {key: document["suite"][key] for key in ("version", "digest", "cases")},
        "adapter": {
            "name": info.name,
            "spec": loaded.requested,
            "reference": loaded.import_path,
            "package": package,
            "backend": info.backend,
            "backend_version": info.version,
            "options": dict(info.options),
        },
        "targets": [
            {"id": target, "route": route, "device": device, "description": described.get(route, "")}
            for target in targets
            for _, route, device in [target.split("/", 2)]
        ],
        "environment": {"host": run["host"], "python": run["python"], "packages": packages},
        "run": {
            "start": run["start"],
            "end": run["end"],
            "command": run["command"],
            "results": results_file.FILE_NAME,
            "report": "index.html",
        },
    }
