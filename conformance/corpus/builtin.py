"""Where the corpus is when no ``--cases`` is given.

The suite's judgement is only as good as its cases, so the corpus travels with the package: a
wheel carries ``cases/`` (profiles included) as ``conformance/corpus/builtin/``, copied there
when the wheel is built (``setup.py``), and ``pip install split-conformance`` plus an adapter is
enough to run and certify from any directory. In order:

1. ``cases/`` in the working directory: a checkout, or a corpus of your own laid out the same way;
2. the corpus installed with the package (a wheel);
3. ``cases/`` of the checkout the package is imported from (an editable install, run elsewhere).
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
