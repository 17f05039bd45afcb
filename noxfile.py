"""CI entry points. Every install goes through constraints.txt, which pins the backends CI
judges (and torch to its CPU build: an unpinned torch pulls gigabytes of CUDA packages)."""

from __future__ import annotations

import nox

nox.options.sessions = ["tests"]
nox.options.reuse_existing_virtualenvs = True

CONSTRAINTS = ("-c", "constraints.txt")


@nox.session(python=None)
def tests(session: nox.Session) -> None:
    """The project's own tests."""
    session.install(*CONSTRAINTS, "-e", ".[test]")
    session.run("python", "-m", "pytest", *session.posargs)


@nox.session(python=None)
def suite(session: nox.Session) -> None:
    """The main job: validate the corpus and list what it covers."""
    session.install(*CONSTRAINTS, "-e", ".")
    session.run("conformance", "validate", "cases")
    session.run("conformance", "list", "--totals", "cases")


@nox.session(python=None)
def lint(session: nox.Session) -> None:
    session.install("ruff")
    session.run("ruff", "check", "conformance", "tests", "noxfile.py")


@nox.session(python=None)
def typecheck(session: nox.Session) -> None:
    session.install(*CONSTRAINTS, "-e", ".[test]", "mypy", "types-PyYAML", "types-jsonschema")
    session.run("mypy", "conformance")
