"""CI entry points. Every install goes through constraints.txt, which pins the backends CI
judges (and torch to its CPU build: an unpinned torch pulls gigabytes of CUDA packages)."""

from __future__ import annotations

import nox

nox.options.sessions = ["tests"]
nox.options.reuse_existing_virtualenvs = True

CONSTRAINTS = ("-c", "constraints.txt")
#: The built-in adapters, each its own distribution registered through the entry-point group.
ADAPTERS = ("numpy", "onnxruntime", "openvino", "torch")


def _install_all(session: nox.Session, *extra: str) -> None:
    editable = [arg for name in ADAPTERS for arg in ("-e", f"adapters/{name}")]
    session.install(*CONSTRAINTS, "-e", ".", *editable, *extra)


@nox.session(python=None)
def tests(session: nox.Session) -> None:
    """The project's own tests, with every built-in adapter installed."""
    _install_all(session, "-e", ".[test]")
    session.run("python", "-m", "pytest", *session.posargs)


@nox.session(python=None)
def suite(session: nox.Session) -> None:
    """The main job: every case through every built-in adapter; results in reports/."""
    _install_all(session)
    session.run("conformance", "validate")
    session.run("conformance", "adapters")
    session.run("conformance", "run", "-j", "2", *session.posargs)


@nox.session(python=None)
def benchmark(session: nox.Session) -> None:
    """Figures for a full run: backend vs harness time, -j 2 speed-up, worker memory."""
    _install_all(session)
    session.run("python", "benchmarks/full_run.py", *session.posargs)


@nox.session(python=None)
def lint(session: nox.Session) -> None:
    session.install("ruff")
    session.run("ruff", "check", "conformance", "adapters", "tests", "benchmarks", "noxfile.py")


@nox.session(python=None)
def typecheck(session: nox.Session) -> None:
    _install_all(session, "-e", ".[test]", "mypy", "types-PyYAML", "types-jsonschema")
    session.run("mypy", "conformance")
