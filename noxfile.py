"""CI entry points. Every install goes through constraints.txt, which pins the backends CI
judges (and torch to its CPU build: an unpinned torch pulls gigabytes of CUDA packages).

    nox -s tests                                   # the project's own tests (the default)
    nox -s suite                                   # every case through every built-in adapter
    nox -s lint typecheck                          # ruff; mypy --strict on the engine and adapters
    nox -s conformance                             # one venv per adapter, results in reports/<adapter>/
    nox -s "conformance(adapter='onnxruntime')"    # just one of them
    nox -s report                                  # reports/index.html from every results file there
    nox -s versions                                # several releases of each backend, side by side

Each session installs into its own virtualenv, .nox/<session> (python=None: made with the Python
that runs nox), reused by the next run, which installs again only when what it installs changed
(_install_once). What they install and run is adapters.toml's; Debian's packages (Chromium, Node.js)
come from scripts/system_packages.py.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import nox

sys.path.insert(0, str(Path(__file__).resolve().parent))  # nox puts not the noxfile's folder there
from scripts import adapter_table as table

nox.options.sessions = ["tests"]
nox.options.reuse_existing_virtualenvs = True

CONSTRAINTS = ("-c", "constraints.txt")
#: what ruff checks: the tests session its pyflakes rules, the lint session all of pyproject.toml's
LINTED = ("conformance", "adapters", "tests", "benchmarks", "examples", "scripts", "noxfile.py")
#: the typed packages mypy --strict checks: the engine and each adapter's import package
TYPED = ("conformance", *(f"adapters/{name}/conformance_{name}" for name in table.BUILT_IN))
#: set to a comma-separated list of built-in adapters to leave out of suite, tests and benchmark
LEAVE_OUT = "CONFORMANCE_LEAVE_OUT"
SYSTEM_PACKAGES = "scripts/system_packages.py"  # exit status 1: the package is missing, said why


def _install_all(session: nox.Session, *extra: str, extra_adapters: bool = False) -> None:
    """The project, ``extra`` and every built-in adapter of the default run (with ``extra_adapters``,
    every one) but those $CONFORMANCE_LEAVE_OUT names, as adapter_table.install_specs says."""
    try:
        leave = table.left_out(os.environ.get(LEAVE_OUT, ""), extra=extra_adapters)
    except ValueError as error:
        session.error(f"{LEAVE_OUT} {error}")
    if leave:
        session.log(f"leaving out {', '.join(sorted(leave))} ({LEAVE_OUT})")
    specs = table.install_specs(leave, extra=extra_adapters)

    def install() -> None:
        editable = [arg for spec in specs for arg in ("-e", spec)]
        # about 20 local projects, built in this venv with the pinned setuptools: a fresh build
        # environment for each took most of a new venv's install time
        session.install(*CONSTRAINTS, "setuptools")
        session.install(*CONSTRAINTS, "--no-build-isolation", "-e", ".", *editable, *extra)
        names = [spec.partition("[")[0].removeprefix("adapters/") for spec in specs]
        if no_deps := table.no_deps(names, extra=extra_adapters):
            session.install(*CONSTRAINTS, "--no-deps", *no_deps)
        _npm(session, names)

    _install_once(session, [".", *specs, *extra, f"extra adapters: {extra_adapters}"], install)


#: the stamp in a session's venv: the hash of what decided its install (see _install_once)
INSTALLED = ".conformance-installed"


def _install_once(session: nox.Session, words: Sequence[str], install: Callable[[], None]) -> None:
    """``install()``, unless the venv's stamp holds the hash of the same inputs: pip's ``words`` (the
    adapters' specs, so what $CONFORMANCE_LEAVE_OUT leaves out), constraints.txt, each local
    project's pyproject.toml, setup.py and setup.cfg, TF.js's package files, and whether npm and
    node_modules are there. A reused venv then starts its command at once, where pip and
    `npm ci` took minutes each call; a changed input installs again, and so does a new venv
    (``nox -N``). Source edits need no install: the projects are installed editable."""

    def inputs() -> str:  # after the install too: it may bring npm (apt) and node_modules (npm ci)
        local = [Path(word.partition("[")[0]) for word in words if Path(word.partition("[")[0]).is_dir()]
        files = [Path("constraints.txt"), *table.NPM_FILES]
        files += [folder / name for folder in local for name in ("pyproject.toml", "setup.py", "setup.cfg")]
        digest = hashlib.sha256()
        there = [str(Path(folder, "node_modules").is_dir()) for folder in table.NPM_FOLDERS]
        for word in [*words, str(shutil.which("npm")), *there]:
            digest.update(word.encode() + b"\0")
        for path in files:
            digest.update(path.read_bytes() + b"\0" if path.is_file() else b"-\0")
        return digest.hexdigest()

    location = getattr(session.virtualenv, "location", None)  # none without a venv (nox --no-venv)
    stamp = Path(location, INSTALLED) if location else None
    if stamp and stamp.is_file() and stamp.read_text(encoding="utf-8") == inputs():
        session.log(f"install skipped: its inputs are unchanged since {stamp} (nox -N installs anew)")
        return
    install()
    if stamp:  # written by run_install, which nox --no-install skips: no stamp for an install not done
        write = "import pathlib, sys; pathlib.Path(sys.argv[1]).write_text(sys.argv[2], encoding='utf-8')"
        session.run_install("python", "-c", write, str(stamp), inputs(), silent=True)


def _npm(session: nox.Session, adapters: list[str]) -> None:
    """`npm ci` in the npm folder of each of ``adapters`` that has one (TF.js: about 66 MB of npm
    packages), after Debian's nodejs and npm where no `node` is on PATH."""
    folders = [str(table.BUILT_IN[name]["npm"]) for name in adapters if "npm" in table.BUILT_IN[name]]
    if not folders:
        return
    session.run_install("python", SYSTEM_PACKAGES, "nodejs", success_codes=[0, 1])  # 1: without it
    if not shutil.which("npm"):
        session.warn("no npm: the tfjs adapter's items will be unsupported (install Node.js 20 and npm)")
        return
    for folder in folders:
        with session.chdir(folder):
            session.run_install("npm", "ci", "--no-audit", "--no-fund", external=True)


@nox.session(python=None)
def tests(session: nox.Session) -> None:
    """The project's own tests, in .nox/tests; may install Chromium by apt.

    The venv holds every built-in adapter and the example vendor adapter. The report's browser tests
    need Chromium: where none is found, apt installs it when it can, which may upgrade installed
    system packages (scripts/system_packages.py says which first; ``CONFORMANCE_NO_APT=1`` leaves
    apt alone)."""
    _install_all(session, "-e", ".[test]", "-e", "examples/acme-adapter", "ruff", extra_adapters=True)
    session.run("python", SYSTEM_PACKAGES, "chromium", success_codes=[0, 1])  # 1: without Chromium
    # pyflakes' rules first: an undefined or stale name fails here in a second, not 20 minutes into pytest
    session.run("ruff", "check", "--select", "F", *LINTED)
    # three pytest workers on two cores: many tests wait on the suite's own worker processes, a
    # timeout or a signal, so -n 2 leaves cores idle. Work stealing: with xdist's default, tests
    # queued on one worker stay there while the others idle at the end
    chosen_n = any(arg.startswith(("-n", "--numprocesses")) for arg in session.posargs)
    parallel = [] if chosen_n else ["-n", "3", "--dist", "worksteal"]
    # left out unless -m selects them: the main job's test (CI runs the main job itself), the
    # adapters' own raw runs of default-run targets, which re-check what it checks, and the tests of
    # targets off the default run (a third of the time), which CI runs apart: `-- -m extra_targets`
    marked = any(arg.startswith("-m") for arg in session.posargs)
    chosen = [] if marked else ["-m", "not main_job and not covered_by_main_job and not extra_targets"]
    # -rs: a skipped test says why in the summary (a browser test without Chromium, above all);
    # --durations: the slowest tests in every log, where the session's ten minutes go
    session.run("python", "-m", "pytest", "-rs", "--durations=15", *parallel, *chosen, *session.posargs)


@nox.session(python=None)
def suite(session: nox.Session) -> None:
    """The main job: every case through every built-in adapter; results in reports/.

    Installs into .nox/suite (its CLI afterwards: .nox/suite/bin/conformance); arguments after
    ``--`` go to ``conformance run``."""
    _install_all(session)
    session.run("conformance", "validate")
    session.run("conformance", "adapters")
    session.run("conformance", "run", "-j", "2", *session.posargs)


@nox.session(python=None)
def extra_targets(session: nox.Session) -> None:
    """The targets the default run leaves out (adapters.toml's ``[extra_targets]``: conversion
    routes, OpenVINO's virtual devices); results in reports/extra/ (about 80 minutes at -j 2 here;
    CI runs it in its ``shards`` parts, each with ``-- --shard I/N``)."""
    _install_all(session, extra_adapters=True)
    chosen = table.TABLES["extra_targets"]
    selection = [*table.flags("--option", chosen["options"]), *table.flags("--target", chosen["targets"])]
    session.run("conformance", "run", *selection, "-j", "2", "--out", "reports/extra", *session.posargs)


@nox.session(python=None)
def explore(session: nox.Session) -> None:
    """Generated requests on every default target for a fixed time (default 20 minutes; pass
    ``-- --budget S --seed N`` to change), each finding shrunk; results in reports/explore/, the
    findings' cases in reports/explore/cases/ for review. Exits 1 when a finding is not a known issue."""
    _install_all(session)
    args = list(session.posargs)
    if "--budget" not in args and "--max-examples" not in args:
        args += ["--budget", "1200"]  # long enough to reach every op on every default target
    session.run("conformance", "explore", "-j", "2", "--write", "reports/explore/cases", *args)


@nox.session(python=None)
def benchmark(session: nox.Session) -> None:
    """Figures for a full run: backend vs harness time, -j 2 speed-up, worker memory."""
    _install_all(session)
    session.run("python", "benchmarks/full_run.py", *session.posargs)


@nox.session(python=None)
def lint(session: nox.Session) -> None:
    """ruff (the rules in pyproject.toml, and the formatting), and the architecture: import-linter's
    contracts in pyproject.toml, which keep the pipeline's stages importing one way."""
    session.install(*CONSTRAINTS, "ruff", "import-linter")
    session.run("ruff", "check", *LINTED)
    session.run("ruff", "format", "--check", *LINTED)
    # the package is read from the source tree (import-linter parses, it does not import)
    session.run("lint-imports", "--no-cache", env={"PYTHONPATH": str(Path.cwd())})


@nox.session(python=None)
def typecheck(session: nox.Session) -> None:
    """mypy --strict (pyproject.toml) on the engine and every adapter package.

    The adapters are checked by path: their import packages sit under adapters/<name>/, which
    mypy maps to the top-level modules conformance_<name> (no __init__.py above them).
    """
    _install_all(session, "-e", ".[test]", "mypy", "types-PyYAML", "types-jsonschema", extra_adapters=True)
    session.run("mypy", *TYPED, *session.posargs)


@nox.session(python=None)
@nox.parametrize("adapter", table.ADAPTERS)
def conformance(session: nox.Session, adapter: str) -> None:
    """The suite on one adapter, in a venv holding the project and only that adapter."""
    session.install(*CONSTRAINTS, "-e", ".", "-e", table.adapter_spec(adapter))
    if no_deps := table.no_deps([adapter]):
        session.install(*CONSTRAINTS, "--no-deps", *no_deps)
    _npm(session, [adapter])
    session.run("conformance", "adapters")
    session.run(
        "conformance", "run", "--adapter", adapter, "-j", "2", "--out", f"reports/{adapter}", *session.posargs
    )


@nox.session(python=None)
def report(session: nox.Session) -> None:
    """reports/index.html from every results file under reports/ (suite and per-adapter runs)."""
    found = sorted(str(path) for path in Path("reports").glob("*/results.json"))
    found += [path for path in ["reports/results.json"] if Path(path).is_file()]
    if not found:
        session.error("no results files under reports/: run `nox -s conformance` or `nox -s suite` first")
    session.install(*CONSTRAINTS, "-e", ".")
    session.run("conformance", "report", *found, "-o", "reports/index.html")


@nox.session(python=None)
def ep_certification(session: nox.Session) -> None:
    """The worked vendor certification: ONNX Runtime's OpenVINO execution provider (onnxruntime-openvino)
    certified against the onnx-split13 and onnx-split18 profiles, each certificate then verified;
    reports/certify/onnxruntime-<profile>/."""
    ep = table.TABLES["ep_certification"]
    constraints = Path(session.create_tmp()) / "constraints-ep.txt"
    constraints.write_text(table.ep_constraints(), encoding="utf-8")
    # the adapter without its dependencies: they name onnxruntime, which this venv must not hold
    session.install("-c", str(constraints), "-e", ".", ep["package"], "onnx", "numpy", "ml_dtypes")
    session.install("--no-deps", "-e", "adapters/onnxruntime")
    session.run("conformance", "adapters")
    for profile in ep["profiles"]:
        session.run(
            "conformance", "certify", "--adapter", "onnxruntime", "--profile", profile, "--route", "default",
            *table.flags("--option", ep["options"]), "-j", "2",
            success_codes=[0, 1],  # not certified is an answer, shown in the certificate
        )  # fmt: skip
        session.run(
            "conformance", "certify", "--verify", f"reports/certify/onnxruntime-{profile}/certificate.json"
        )


VERSIONS_DIR = Path("reports/versions")


@nox.session(python=None)
@nox.parametrize(("backend", "version"), [nox.param(*run, id="-".join(run)) for run in table.VERSION_RUNS])
def versions_run(session: nox.Session, backend: str, version: str) -> None:
    """One released backend version in its own venv, under constraints.txt with that version pinned and
    what older wheels need (adapters.toml's [versions]): raw statuses, results labelled backend@version."""
    constraints = Path(session.create_tmp()) / f"constraints-{backend}-{version}.txt"
    try:
        text = table.version_constraints(backend, version)
    except ValueError as error:
        session.error(str(error))
    constraints.write_text(text, encoding="utf-8")
    session.install("-c", str(constraints), "-e", ".", "-e", table.adapter_spec(backend))
    installed = session.run(
        "python", "-c", f"from importlib import metadata; print(metadata.version({backend!r}))", silent=True
    )
    if str(installed).strip() != version:
        session.error(f"{backend} {version} wanted, {str(installed).strip()} installed (see {constraints})")
    targets = table.flags("--target", table.TABLES["versions"][backend]["targets"])
    session.run(
        "conformance", "run", "--adapter", backend, "--label", f"{backend}@{version}", "--no-known-issues",
        *targets, "-j", "2", "--no-junit", "--out", str(VERSIONS_DIR / f"{backend}-{version}"),
        *session.posargs,
        success_codes=[0, 1],  # raw statuses: the failures are the findings, not a broken session
    )  # fmt: skip


@nox.session(python=None, requires=["versions_run"])
def versions(session: nox.Session) -> None:
    """The backend-version matrix: every versions_run, then one report with the versions side by side."""
    found = [
        str(path)
        for run in table.VERSION_RUNS
        if (path := VERSIONS_DIR / "-".join(run) / "results.json").is_file()
    ]
    if not found:
        session.error(f"no results under {VERSIONS_DIR}/: the versions_run sessions wrote none")
    session.install(*CONSTRAINTS, "-e", ".")
    session.run("conformance", "versions", *found, "-o", str(VERSIONS_DIR / "versions.html"))
    session.run("conformance", "report", *found, "-o", str(VERSIONS_DIR / "index.html"))
