"""The built-in adapters as noxfile.py lists them (``ADAPTERS``: what the main job installs and
runs; ``EXTRA_ADAPTERS``: those only ``nox -s extra_targets`` runs). Read from the file rather than
imported, since the tests' environment has no nox."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from _pytest.mark.structures import ParameterSet

NOXFILE = Path(__file__).resolve().parent.parent / "noxfile.py"


def _names(variable: str) -> tuple[str, ...]:
    tree = ast.parse(NOXFILE.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == variable for t in node.targets):
            return tuple(ast.literal_eval(node.value))
    raise AssertionError(f"{NOXFILE} has no {variable}")


def adapters() -> tuple[str, ...]:
    """The names in noxfile.py's ``ADAPTERS`` tuple, in its order: those with a target in the
    default run, which the main job installs and runs."""
    return _names("ADAPTERS")


def extra_adapters() -> tuple[str, ...]:
    """noxfile.py's ``EXTRA_ADAPTERS``: none of their targets is in the default run."""
    return _names("EXTRA_ADAPTERS")


def every_adapter() -> tuple[str, ...]:
    return (*adapters(), *extra_adapters())


def off_default_run(*values: object) -> ParameterSet:
    """A parametrised case that runs a target off the default run: marked ``extra_targets``, which
    ``nox -s tests`` leaves out (CI runs those in a step of their own, see noxfile.py)."""
    return pytest.param(*values, marks=pytest.mark.extra_targets)
