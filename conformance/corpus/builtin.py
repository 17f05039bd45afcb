"""Where the corpus is when no ``--cases`` is given: ``cases/`` here, else the one a wheel carries
(``setup.py`` copies ``cases/``, profiles included, so an installed package runs from any
directory), else ``cases/`` of the checkout the package is imported from (an editable install).
"""

from __future__ import annotations

from pathlib import Path

from conformance.errors import UsageError

PACKAGED = Path(__file__).resolve().parent / "builtin"
CHECKOUT = Path(__file__).resolve().parents[2] / "cases"


def find() -> Path | None:
    """The corpus to use without ``--cases`` (see the module's docstring), or None."""
    return next((candidate for candidate in (Path("cases"), PACKAGED, CHECKOUT) if candidate.is_dir()), None)


def default_cases() -> Path:
    """The corpus to use without ``--cases``; a usage error when there is none."""
    found = find()
    if found is not None:
        return found
    raise UsageError(
        "no corpus: there is no cases/ directory here and none was installed with the package; "
        "pass --cases PATH (a case file or directory)"
    )
