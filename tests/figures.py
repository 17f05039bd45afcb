"""The counts the documents state, each marked where it stands: ``<!-- figure:KEY -->1,280<!-- /figure -->``
(an HTML comment, so the page reads "1,280"). Tests compare each marked figure with what the code
counts, so the prose around a figure can be moved or reworded without breaking them; the figures
no test checks (times, measurements) are not marked."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the pages a marked figure may stand in
PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
MARKED = re.compile(r"<!-- figure:([a-z0-9-]+) -->([^<]*)<!-- /figure -->")
#: every key a test compares with the code (test_readme_figures.py; adapter-lines: test_adapter_contract.py)
CHECKED = frozenset(
    {"cases", "items", "targets", "results", "large", "large-2gib", "adapters", "adapter-lines"}
)


def marked(texts: Iterable[str]) -> list[tuple[str, str]]:
    """Every marked figure in ``texts``: (key, the figure as written)."""
    return [found for text in texts for found in MARKED.findall(text)]


def stated(key: str, texts: Iterable[str] | None = None) -> int:
    """The one count the pages mark as ``key`` (thousands commas allowed)."""
    pages = [page.read_text(encoding="utf-8") for page in PAGES] if texts is None else list(texts)
    values = {value for found, value in marked(pages) if found == key}
    assert values, f"no page marks the figure {key!r}: write it as <!-- figure:{key} -->N<!-- /figure -->"
    assert len(values) == 1, f"the pages state the figure {key!r} differently: {sorted(values)}"
    value = values.pop()
    assert re.fullmatch(r"\d{1,3}(,\d{3})*", value), f"figure {key!r} is {value!r}, not a count"
    return int(value.replace(",", ""))
