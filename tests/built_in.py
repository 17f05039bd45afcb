"""The built-in adapters as noxfile.py lists them (``ADAPTERS``): what the main job installs and
runs. Read from the file rather than imported, since the tests' environment has no nox."""

from __future__ import annotations

import ast
from pathlib import Path

NOXFILE = Path(__file__).resolve().parent.parent / "noxfile.py"


def adapters() -> tuple[str, ...]:
    """The names in noxfile.py's ``ADAPTERS`` tuple, in its order."""
    tree = ast.parse(NOXFILE.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "ADAPTERS" for t in node.targets):
            return tuple(ast.literal_eval(node.value))
    raise AssertionError(f"{NOXFILE} has no ADAPTERS")
