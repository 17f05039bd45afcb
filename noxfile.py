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
(_install_once); nothing goes into the environment nox runs in.

The backend-version matrix (``versions``) installs each released backend version in its own venv,
under a constraints file derived from constraints.txt with that version pinned (and whatever
older wheels need, e.g. a lower numpy), runs the suite with raw statuses and the results
labelled ``backend@version``, and merges the runs into reports/versions/.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import nox

nox.options.sessions = ["tests"]
nox.options.reuse_existing_virtualenvs = True

CONSTRAINTS = ("-c", "constraints.txt")
#: what ruff checks: the tests session its pyflakes rules, the lint session all of pyproject.toml's
LINTED = ("conformance", "adapters", "tests", "benchmarks", "examples", "noxfile.py")
#: The built-in adapters, each its own distribution registered through the entry-point group.
ADAPTERS = (
    "numpy",
    "onnx",
    "onnxruntime",
    "openvino",
    "torch",
    "tensorflow",
    "keras",
    "mlx",
    # TF.js runs in Node.js: installing the adapter also runs `npm ci` in its node folder (_tfjs_node)
    "tfjs",
    # its routes have workers of their own (Route.own_worker): Paddle segfaults imported after TensorFlow
    "paddle",
)
#: Built-in adapters none of whose targets is in the default run: installed by ``tests`` and
#: ``extra_targets`` only, so that ``suite`` does not install a backend it never runs (a test
#: checks that each has no default route and each adapter of ADAPTERS has one).
EXTRA_ADAPTERS = (
    "litert",
    "jax",
    "tract",
    "tvm",
    "iree",
    # CuPy's route needs a GPU; its wheel is an extra: installed without it, the adapter loads and
    # answers `unsupported` ("no CUDA device")
    "cupy",
    # converters in child processes, over 100 ms an item
    "mnn",
    "ncnn",
    "executorch",
)
#: The extras of ADAPTERS that serve only routes off the default run (Keras's JAX backend,
#: OpenVINO's TensorFlow Lite frontend, ONNX Runtime's onnxsim route): ``suite`` leaves them out.
EXTRA_ROUTE_EXTRAS = frozenset({"jax", "tflite", "onnxsim"})
#: What one adapter's conformance run installs beside the project: its distribution with the extras
#: its routes read from (OpenVINO's ONNX, PyTorch, TensorFlow and TensorFlow Lite frontends take onnx files,
#: torch modules, traced tf.functions and .tflite files; ONNX Runtime's conversion routes torch and tf2onnx).
ADAPTER_INSTALL = {
    "numpy": "adapters/numpy",
    "onnx": "adapters/onnx",
    "onnxruntime": "adapters/onnxruntime[torch,tensorflow,onnxsim,onnxslim,onnxoptimizer]",
    "openvino": "adapters/openvino[onnx,pytorch,tensorflow,tflite]",
    "torch": "adapters/torch",
    "tensorflow": "adapters/tensorflow",
    "litert": "adapters/litert[onnx2tf]",
    "jax": "adapters/jax",
    "keras": "adapters/keras[tensorflow,jax,torch,openvino]",
    "tract": "adapters/tract",
    "tvm": "adapters/tvm",
    "iree": "adapters/iree",
    "cupy": "adapters/cupy",
    "mlx": "adapters/mlx",
    "tfjs": "adapters/tfjs",
    "paddle": "adapters/paddle",
    "mnn": "adapters/mnn",
    "ncnn": "adapters/ncnn",
    "executorch": "adapters/executorch",
}
#: Packages installed without their dependencies once the adapter is in, each at its pin in
#: constraints.txt: their own requirements would replace the project's pins (onnx2tf 1.29 pins
#: TensorFlow 2.19, onnx 1.19, onnxruntime 1.23, numpy 1.26; tf-keras asks for the GPU
#: `tensorflow` wheel by name). What they really import comes with the adapter's extra, and
#: tests/adapters/test_onnx2tf.py checks that the pins survived and the conversion runs.
NO_DEPS = {
    "litert": ("onnx2tf", "tf-keras"),
    "paddle": ("paddlepaddle",),  # it pins opt_einsum 3.3.0
    "ncnn": ("pnnx",),  # it pulls a CUDA build of torch
}
#: NO_DEPS packages that serve only a route off the default run, installed by ``tests`` and
#: ``extra_targets`` alone: paddle2onnx (onnxruntime/paddle2onnx) asks for onnx<=1.17, which would
#: replace the project's onnx; its export imports only Paddle, which the paddle adapter installs.
EXTRA_ROUTE_NO_DEPS = {"onnxruntime": ("paddle2onnx",)}
#: The typed packages mypy --strict checks: the engine and each adapter's import package.
TYPED = ("conformance", *(f"adapters/{name}/conformance_{name}" for name in (*ADAPTERS, *EXTRA_ADAPTERS)))

#: The backend-version matrix: released versions per backend, oldest first, each with the pins it
#: needs beyond the backend itself and why (checked against the wheels' metadata).
VERSION_MATRIX: dict[str, dict[str, dict[str, tuple[str, str]]]] = {
    "openvino": {
        "2024.6.0": {"numpy": ("2.1.3", "openvino 2024.6 requires numpy<2.2")},
        "2025.2.0": {"numpy": ("2.2.6", "openvino 2025.2 requires numpy<2.3")},
        "2025.4.1": {"numpy": ("2.3.5", "openvino 2025.4 requires numpy<2.4")},
        "2026.0.0": {},
        "2026.4.1": {},
    },
    "onnxruntime": {
        "1.20.1": {},
        "1.22.1": {},
        "1.24.4": {},
        "1.27.0": {},
        "1.31.1": {},
    },
}
#: The targets each backend's matrix runs (every route the adapter has, device CPU).
VERSION_TARGETS = {
    "onnxruntime": ("--target", "onnxruntime/default/*"),
    "openvino": (
        "--target",
        "openvino/native/*",
        "--target",
        "openvino/onnx/*",
        "--target",
        "openvino/pytorch/*",
    ),
}
VERSIONS_DIR = Path("reports/versions")


#: The extras that pull a heavy backend into another adapter's install, by the backend's adapter:
#: leaving torch out also drops OpenVINO's and ONNX Runtime's torch-reading routes' extras.
HEAVY_EXTRAS = {
    "torch": frozenset({"torch", "pytorch"}),
    "tensorflow": frozenset({"tensorflow", "tf2onnx", "litert", "tflite", "onnx2tf"}),
    "jax": frozenset({"jax"}),
    "openvino": frozenset({"openvino"}),
}
#: Built-in adapters that cannot be installed without another one's backend.
NEEDS = {"litert": frozenset({"tensorflow"})}
#: Set to a comma-separated list of built-in adapters to leave out of suite, tests and benchmark.
LEAVE_OUT = "CONFORMANCE_LEAVE_OUT"


def installed_adapters(session: nox.Session, *, extra: bool = False) -> list[str]:
    """The adapters to install: every built-in one but those $CONFORMANCE_LEAVE_OUT names, each with
    the extras the left-out backends would bring in dropped (``adapters/openvino[onnx]``); with
    ``extra``, the EXTRA_ADAPTERS too."""
    names = (*ADAPTERS, *EXTRA_ADAPTERS) if extra else ADAPTERS
    leave = {name.strip() for name in os.environ.get(LEAVE_OUT, "").split(",") if name.strip()}
    # an adapter whose backend needs a left-out one goes too (LiteRT's converter is TensorFlow's)
    leave |= {name for name, needs in NEEDS.items() if needs & leave}
    unknown = sorted(leave - {*ADAPTERS, *EXTRA_ADAPTERS})
    if unknown:
        session.error(f"{LEAVE_OUT} names {', '.join(unknown)}; built-in adapters: {', '.join(names)}")
    dropped = frozenset().union(*(HEAVY_EXTRAS.get(name, frozenset()) for name in leave))
    if not extra:  # the default run's install
        dropped |= EXTRA_ROUTE_EXTRAS
    if leave:
        session.log(f"leaving out {', '.join(sorted(leave))} ({LEAVE_OUT})")
    specs = []
    for name in names:
        if name in leave:
            continue
        path, _, extras = ADAPTER_INSTALL[name].partition("[")
        kept = [extra for extra in extras.rstrip("]").split(",") if extra and extra not in dropped]
        specs.append(f"{path}[{','.join(kept)}]" if kept else path)
    return specs


def _install_all(session: nox.Session, *extra: str, extra_adapters: bool = False) -> None:
    specs = installed_adapters(session, extra=extra_adapters)

    def install() -> None:
        editable = [arg for spec in specs for arg in ("-e", spec)]
        # about 20 local projects, built in this venv with the pinned setuptools: a fresh build
        # environment for each took most of a new venv's install time
        session.install(*CONSTRAINTS, "setuptools")
        session.install(*CONSTRAINTS, "--no-build-isolation", "-e", ".", *editable, *extra)
        names = [spec.partition("[")[0].removeprefix("adapters/") for spec in specs]
        _install_without_dependencies(session, names, extra=extra_adapters)
        _tfjs_node(session, names)

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
        files = [
            Path("constraints.txt"),
            *(Path(TFJS_NODE, name) for name in ("package.json", "package-lock.json")),
        ]
        files += [folder / name for folder in local for name in ("pyproject.toml", "setup.py", "setup.cfg")]
        digest = hashlib.sha256()
        for word in [*words, str(shutil.which("npm")), str(Path(TFJS_NODE, "node_modules").is_dir())]:
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


#: The tfjs adapter's Node.js side: package.json and the package-lock.json that pins TF.js.
TFJS_NODE = "adapters/tfjs/conformance_tfjs/node"


def _tfjs_node(session: nox.Session, adapters: list[str]) -> None:
    """TF.js for the tfjs adapter: `npm ci` in its node folder (about 66 MB of npm packages), after
    Debian's nodejs and npm where no `node` is on PATH (as Chromium, by apt-get as root or sudo)."""
    if "tfjs" not in adapters:
        return
    if not shutil.which("node") and shutil.which("apt-get") and not os.environ.get("CONFORMANCE_NO_APT"):
        sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
        session.log("no Node.js for the tfjs adapter: installing Debian's nodejs and npm with apt-get")
        session.run_install(*sudo, "apt-get", "update", "-q", external=True)
        session.run_install(*sudo, "apt-get", "install", "-y", "-q", "nodejs", "npm", external=True)
    if not shutil.which("npm"):
        session.warn("no npm: the tfjs adapter's items will be unsupported (install Node.js 20 and npm)")
        return
    with session.chdir(TFJS_NODE):
        session.run_install("npm", "ci", "--no-audit", "--no-fund", external=True)


def _install_without_dependencies(session: nox.Session, adapters: list[str], *, extra: bool = False) -> None:
    """The NO_DEPS packages of ``adapters`` (with ``extra``, their EXTRA_ROUTE_NO_DEPS too), at their
    pins, without their own requirements."""
    chosen = (NO_DEPS, EXTRA_ROUTE_NO_DEPS) if extra else (NO_DEPS,)
    packages = [package for table in chosen for name in adapters for package in table.get(name, ())]
    if packages:
        session.install(*CONSTRAINTS, "--no-deps", *packages)


def _has_chromium() -> bool:
    """Whether the browser tests find a Chromium (as benchmarks/headless.py looks for it)."""
    return bool(
        os.environ.get("CONFORMANCE_CHROMIUM")
        or shutil.which("chromium")
        or Path("/usr/bin/chromium").exists()
    )


def apt_plan(simulation: str) -> dict[str, list[str]]:
    """What an ``apt-get -s install`` transcript would do: the packages it installs new, the
    installed ones it upgrades (an ``Inst`` line naming the old version in brackets) and the ones
    it removes."""
    plan: dict[str, list[str]] = {"install": [], "upgrade": [], "remove": []}
    for line in simulation.splitlines():
        match = re.match(r"(Inst|Remv) (\S+)( \[)?", line)
        if match:
            kind = "remove" if match[1] == "Remv" else "upgrade" if match[3] else "install"
            plan[kind].append(match[2])
    return plan


def _confirmed(question: str) -> bool:
    """Ask at a terminal (never in CI, nor without one on standard input: there the answer is yes)."""
    if os.environ.get("CI") or not sys.stdin.isatty():
        return True
    return input(f"nox > {question} [y/N] ").strip().lower() in ("y", "yes")


def _chromium(session: nox.Session) -> None:
    """Install Debian's Chromium for the report's browser tests when it is missing and apt can
    (as root, or with sudo that asks no password); anywhere else, say loudly that those tests
    will be skipped. A browser download by the test tool is not used: it needs network access
    beyond the package registries.

    apt may upgrade installed system packages to satisfy Chromium's dependencies (systemd's
    libraries among them), so what it would install, upgrade and remove is logged first, from
    ``apt-get -s install chromium``: at a terminal (not in CI) an upgrade is asked about first,
    and a removal is never done here. ``CONFORMANCE_NO_APT=1`` leaves apt alone altogether;
    a Chromium installed beforehand, or ``CONFORMANCE_CHROMIUM=/path/to/chromium``, is used as it is.
    """
    if _has_chromium():
        return
    sudo = [] if hasattr(os, "geteuid") and os.geteuid() == 0 else ["sudo", "-n"]
    if os.environ.get("CONFORMANCE_NO_APT", "") not in ("", "0"):
        session.log("CONFORMANCE_NO_APT is set: Chromium is not installed by apt")
    elif shutil.which("apt-get") and (not sudo or shutil.which("sudo")):
        session.log("no Chromium for the report's browser tests: installing it with apt-get (about a minute)")
        with contextlib.suppress(nox.command.CommandFailed):
            _apt_install_chromium(session, sudo)
    if not _has_chromium():
        session.warn(
            "WARNING: no Chromium on the PATH (or $CONFORMANCE_CHROMIUM), and it was not installed "
            "(apt-get as root or password-less sudo): the report's browser tests will be SKIPPED. "
            "On Debian or Ubuntu: sudo apt-get install chromium"
        )


def _apt_install_chromium(session: nox.Session, sudo: list[str]) -> None:
    """apt-get install chromium, after logging what apt would install, upgrade and remove."""
    session.run(*sudo, "apt-get", "update", "-q", external=True)
    simulation = session.run("apt-get", "-s", "install", "chromium", external=True, silent=True)
    if not isinstance(simulation, str):  # nox --install-only: nothing ran
        return
    plan = apt_plan(simulation)
    for kind, what in (
        ("install", "install {} new packages"),
        ("upgrade", "UPGRADE {} installed packages"),
        ("remove", "REMOVE {} installed packages"),
    ):
        if plan[kind] or kind == "upgrade":  # the upgrades always said, none included
            names = ": " + " ".join(plan[kind]) if plan[kind] else ""
            session.log(f"apt-get install chromium would {what.format(len(plan[kind]))}{names}")
    if plan["remove"]:
        session.warn(
            "apt-get install chromium would REMOVE installed packages: not done here; "
            "install Chromium yourself (apt-get install chromium) if that is what you want"
        )
        return
    upgrades = f"upgrade {len(plan['upgrade'])} installed system packages"
    if plan["upgrade"]:
        if not _confirmed(f"Install Chromium and {upgrades}?"):
            return
        session.log(f"installing Chromium, which will {upgrades} (listed above)")
    session.run(
        *sudo,
        "apt-get",
        "install",
        "-y",
        "-q",
        "chromium",
        external=True,
        env={"DEBIAN_FRONTEND": "noninteractive"},
    )


@nox.session(python=None)
def tests(session: nox.Session) -> None:
    """The project's own tests, in .nox/tests; may install Chromium by apt (see below).

    The venv holds every built-in adapter and the example vendor adapter. The report's browser tests
    need Chromium: where none is found, apt installs it when it can, which may upgrade installed
    system packages (``_chromium`` logs them first; ``CONFORMANCE_NO_APT=1`` leaves apt alone)."""
    _install_all(session, "-e", ".[test]", "-e", "examples/acme-adapter", "ruff", extra_adapters=True)
    _chromium(session)
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
    chosen = (
        []
        if any(arg == "-m" or arg.startswith("-m") for arg in session.posargs)
        else ["-m", "not main_job and not covered_by_main_job and not extra_targets"]
    )
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


#: The targets left out of the default run, and what selects them: routes whose conversion takes
#: a second or so per item, and OpenVINO's virtual devices (each repeats the CPU plugin's work).
EXTRA_TARGETS = (
    ("--option", "openvino.device=CPU,AUTO,HETERO:CPU,MULTI:CPU"),
    ("--target", "onnxruntime/torch-onnx/*"),
    ("--target", "openvino/torch-export/CPU"),
    *(
        ("--target", f"openvino/{route}/{device}")
        for route in ("native", "onnx")
        for device in ("AUTO", "HETERO:CPU", "MULTI:CPU")
    ),
    ("--target", "torch/compile/*"),
    ("--target", "tensorflow/xla/*"),
    ("--target", "litert/converter/*"),
    # one device: about 0.4 s per item converting; on builtin it answers as on xnnpack (the same model)
    ("--target", "litert/onnx2tf/xnnpack"),
    ("--target", "openvino/tensorflow/CPU"),
    ("--target", "openvino/tflite/CPU"),
    ("--target", "onnxruntime/tf2onnx/*"),
    # about 50 ms per item tracing, saving and exporting (and a worker per abort)
    ("--target", "onnxruntime/paddle2onnx/*"),
    ("--target", "onnxruntime/onnxsim/*"),
    ("--target", "jax/*"),
    ("--target", "keras/jax/*"),
    ("--target", "keras/openvino/*"),
    ("--target", "tract/*"),
    ("--target", "tvm/*"),
    # 0.5 s per item compiling: 3,459 items, about 25 minutes at -j 1
    ("--target", "iree/onnx/local-task"),
    # about 0.25 s per item tracing with paddle.jit.to_static
    ("--target", "paddle/static/*"),
    # a converter child process per item: about 0.1 s (MNN) and 1 to 2 s (pnnx)
    ("--target", "mnn/*"),
    ("--target", "ncnn/*"),
    # about 1 s per item exporting and lowering, on both devices (XNNPACK claims no split operator)
    ("--target", "executorch/edge/*"),
)


#: The parts CI runs the extra targets in (each ``--shard I/N``: an even share of every target's items),
#: so that no part runs past 15 minutes: the whole selection takes about 80 minutes at -j 2 (the
#: most in ExecuTorch's xnnpack route, onnx2tf, IREE and ONNX Runtime's torch-onnx route).
EXTRA_SHARDS = 8


@nox.session(python=None)
def extra_targets(session: nox.Session) -> None:
    """The targets the default run leaves out (conversion routes, OpenVINO's virtual devices);
    results in reports/extra/ (about 80 minutes at -j 2 here; CI runs it in EXTRA_SHARDS parts,
    each with ``-- --shard I/N``)."""
    _install_all(session, extra_adapters=True)
    selection = [arg for pair in EXTRA_TARGETS for arg in pair]
    session.run("conformance", "run", *selection, "-j", "2", "--out", "reports/extra", *session.posargs)


#: The nightly exploration's default time: long enough to reach every op on every default target.
EXPLORE_BUDGET_S = "1200"


@nox.session(python=None)
def explore(session: nox.Session) -> None:
    """Generated requests on every default target for a fixed time (default 20 minutes; pass
    ``-- --budget S --seed N`` to change), each finding shrunk; results in reports/explore/, the
    findings' cases in reports/explore/cases/ for review. Exits 1 when a finding is not a known issue."""
    _install_all(session)
    args = list(session.posargs)
    if "--budget" not in args and "--max-examples" not in args:
        args += ["--budget", EXPLORE_BUDGET_S]
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
@nox.parametrize("adapter", ADAPTERS)
def conformance(session: nox.Session, adapter: str) -> None:
    """The suite on one adapter, in a venv holding the project and only that adapter."""
    session.install(*CONSTRAINTS, "-e", ".", "-e", ADAPTER_INSTALL[adapter])
    _install_without_dependencies(session, [adapter])
    _tfjs_node(session, [adapter])
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


def derived_constraints(backend: str, version: str, pins: dict[str, tuple[str, str]]) -> str:
    """constraints.txt with ``backend`` pinned to ``version`` and ``pins`` replacing the file's own."""
    wanted = {backend: (version, "the version under test"), **pins}
    lines = [f"# constraints.txt for the backend-version matrix: {backend} {version}"]
    seen = set()
    for line in Path("constraints.txt").read_text(encoding="utf-8").splitlines():
        name = re.split(r"[=<>!~\[ ;]", line.strip(), maxsplit=1)[0].lower()
        if name in wanted:
            pinned, why = wanted[name]
            lines.append(f"{name}=={pinned}  # {why} (constraints.txt: {line.strip()})")
            seen.add(name)
        else:
            lines.append(line)
    missing = set(wanted) - seen
    if missing:
        raise ValueError(f"noxfile VERSION_MATRIX pins {sorted(missing)}, which constraints.txt does not pin")
    return "\n".join(lines) + "\n"


#: The execution provider certified as the worked vendor example: its package replaces onnxruntime
#: (both install the ``onnxruntime`` import package), so it gets a venv of its own.
EP_PACKAGE = ("onnxruntime-openvino", "1.24.1")
EP_OPTIONS = (
    "--option",
    "onnxruntime.providers=OpenVINOExecutionProvider,CPUExecutionProvider",
    "--option",
    # the EP's CPU device, float precision pinned like the OpenVINO adapter's own CPU target
    "onnxruntime.provider_options=OpenVINOExecutionProvider:device_type=CPU,precision=FP32",
    "--option",
    "onnxruntime.device=openvino-ep",
)
EP_PROFILES = ("onnx-split13", "onnx-split18")


def ep_constraints() -> str:
    """constraints.txt with onnxruntime swapped for the execution provider's package."""
    name, version = EP_PACKAGE
    lines = [f"# constraints.txt for the execution-provider certification: {name} {version}"]
    for line in Path("constraints.txt").read_text(encoding="utf-8").splitlines():
        if line.strip().lower().startswith("onnxruntime=="):
            lines.append(f"{name}=={version}  # replaces {line.strip()} in this venv")
        else:
            lines.append(line)
    return "\n".join(lines) + "\n"


@nox.session(python=None)
def ep_certification(session: nox.Session) -> None:
    """The worked vendor certification: ONNX Runtime's OpenVINO execution provider (onnxruntime-openvino)
    certified against the onnx-split13 and onnx-split18 profiles, each certificate then verified;
    reports/certify/onnxruntime-<profile>/."""
    constraints = Path(session.create_tmp()) / "constraints-ep.txt"
    constraints.write_text(ep_constraints(), encoding="utf-8")
    name, _ = EP_PACKAGE
    # the adapter without its dependencies: they name onnxruntime, which this venv must not hold
    session.install("-c", str(constraints), "-e", ".", name, "onnx", "numpy", "ml_dtypes")
    session.install("--no-deps", "-e", "adapters/onnxruntime")
    session.run("conformance", "adapters")
    for profile in EP_PROFILES:
        session.run(
            "conformance", "certify", "--adapter", "onnxruntime", "--profile", profile, "--route", "default",
            *EP_OPTIONS, "-j", "2",
            success_codes=[0, 1],  # not certified is an answer, shown in the certificate
        )  # fmt: skip
        session.run(
            "conformance", "certify", "--verify", f"reports/certify/onnxruntime-{profile}/certificate.json"
        )


def _versions_runs() -> list[nox.param]:
    return [
        nox.param(backend, version, id=f"{backend}-{version}")
        for backend, versions in VERSION_MATRIX.items()
        for version in versions
    ]


@nox.session(python=None)
@nox.parametrize(("backend", "version"), _versions_runs())
def versions_run(session: nox.Session, backend: str, version: str) -> None:
    """One released backend version in its own venv: raw statuses, results labelled backend@version."""
    constraints = Path(session.create_tmp()) / f"constraints-{backend}-{version}.txt"
    try:
        text = derived_constraints(backend, version, VERSION_MATRIX[backend][version])
    except ValueError as error:
        session.error(str(error))
    constraints.write_text(text, encoding="utf-8")
    session.install("-c", str(constraints), "-e", ".", "-e", ADAPTER_INSTALL[backend])
    installed = session.run(
        "python", "-c", f"from importlib import metadata; print(metadata.version({backend!r}))", silent=True
    )
    if str(installed).strip() != version:
        session.error(f"{backend} {version} wanted, {str(installed).strip()} installed (see {constraints})")
    out = VERSIONS_DIR / f"{backend}-{version}"
    session.run(
        "conformance", "run", "--adapter", backend, "--label", f"{backend}@{version}", "--no-known-issues",
        *VERSION_TARGETS[backend], "-j", "2", "--no-junit", "--out", str(out), *session.posargs,
        success_codes=[0, 1],  # raw statuses: the failures are the findings, not a broken session
    )  # fmt: skip


@nox.session(python=None, requires=["versions_run"])
def versions(session: nox.Session) -> None:
    """The backend-version matrix: every versions_run, then one report with the versions side by side."""
    found = [
        str(path)
        for backend, versions in VERSION_MATRIX.items()
        for version in versions
        if (path := VERSIONS_DIR / f"{backend}-{version}" / "results.json").is_file()
    ]
    if not found:
        session.error(f"no results under {VERSIONS_DIR}/: the versions_run sessions wrote none")
    session.install(*CONSTRAINTS, "-e", ".")
    session.run("conformance", "versions", *found, "-o", str(VERSIONS_DIR / "versions.html"))
    session.run("conformance", "report", *found, "-o", str(VERSIONS_DIR / "index.html"))
