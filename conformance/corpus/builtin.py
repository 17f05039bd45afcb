"""Where the corpus is when no ``--cases`` is given.

A wheel carries ``cases/`` (profiles included) as ``conformance/corpus/builtin/`` (``setup.py``
copies it), so an installed package can run from any directory. Tried in order: ``cases/`` in the
working directory, the corpus installed with the package, ``cases/`` of the checkout the package
is imported from (an editable install run elsewhere).
"""

from __future__ import annotations

from pathlib import Path

from conformance.errors import UsageError

#: The corpus a wheel carries (absent in a checkout).
PACKAGED = Path(__file__).resolve().parent / "builtin"
#: The checkout's corpus, for a package imported from a checkout.
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
