"""The field names of the compact arrays the report embeds, written down once for both sides.

A result is a short array rather than an object (names on every row would add about a fifth to the
page). :func:`pack` builds each array from named values, and the page gets :func:`fields`
(``D.fields``), so its scripts read ``row[RES_AT.status]``, never a bare ``row[2]``.
"""

from __future__ import annotations

from typing import Any, Final

#: A result (``D.res``): its item (into ``D.items``), target (into ``D.targets``), status (into
#: ``D.statuses``), message (into ``D.s``), actual answer (into ``D.act``) and its one-line text
#: (into ``D.s``), timing (a ``timing`` array, or 0 when nothing was timed), and the index of its
#: extra fields in ``D.extra`` (-1: none).
RESULT: Final = ("item", "target", "status", "message", "actual", "actual_text", "timing", "extra")
#: An item, a (case, op) pair (``D.items``): case (into ``D.cases``), op (into ``D.ops``), the
#: reference's answer (into ``D.exp``) and its one-line text (into ``D.s``), 1 when ambiguous, and
#: the behaviours the request falls in (into ``D.bsets``, lists of indices into ``D.behaviours``).
ITEM: Final = ("case", "op", "expected", "expected_text", "ambiguous", "behaviours")
#: A result's timing, in milliseconds (null for a phase that did not happen).
TIMING: Final = ("build", "compile", "first", "steady")
#: For a case with runs, the expectation of the run that decided (``extra.re``).
DECIDED: Final = ("expected", "expected_text")
#: One run of a case with runs (``extra.ru``): its label (into ``D.s``), status, message (into ``D.s``).
RUN: Final = ("label", "status", "message")

ARRAYS: Final = {"res": RESULT, "items": ITEM, "timing": TIMING, "decided": DECIDED, "runs": RUN}


def pack(names: tuple[str, ...], **values: Any) -> list[Any]:
    """The array for ``values`` in the order ``names`` gives; a missing or unknown name is an error."""
    if values.keys() != set(names):
        raise ValueError(f"fields {sorted(values)} are not {sorted(names)}")
    return [values[name] for name in names]


def fields() -> dict[str, dict[str, int]]:
    """Every array's field name -> index table, for the page's scripts (``D.fields``)."""
    return {array: {name: index for index, name in enumerate(names)} for array, names in ARRAYS.items()}
