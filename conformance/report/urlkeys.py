"""The keys of the report's address: the view state (tab, filters, page, open result) a link
carries in its hash, listed once. The scripts get this list (``D.keys``), the summary's links are
checked against it (:func:`link`), and a test holds docs/report.md to it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final
from urllib.parse import urlencode

from conformance.statuses import DEFECTS as DEFECT_KINDS

#: The filters (keys that narrow the results), as the controls list them.
FILTERS: Final = ("op", "tag", "behaviour", "dtype", "status", "target", "known", "defect")
#: Every key, in the order the page writes them into its address.
KEYS: Final = ("view", *FILTERS, "q", "show", "page", "open")
#: Values of ``defect``: each kind of defect (conformance.statuses.DEFECTS: the adapter's own
#: code failed, or the suite did), or ``none``: the result is the backend's own verdict.
DEFECTS: Final = (*DEFECT_KINDS, "none")


def link(state: Mapping[str, str]) -> str:
    """``#key=value&...`` for ``state``; a key the page does not read is a bug, refused here."""
    unknown = sorted(set(state) - set(KEYS))
    if unknown:
        raise ValueError(f"the report's address has no key {', '.join(unknown)}")
    return "#" + urlencode({key: state[key] for key in KEYS if state.get(key)})
