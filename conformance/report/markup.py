"""Server-side HTML, built so that no piece of data can become markup: data reaches the page through
:func:`text` (``html.escape`` with quotes), and markup is only assembled from :class:`Html` values,
so forgetting to escape is a type error rather than an injection.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping


class Html(str):
    """A string known to be safe markup (escaped data or literal tags written here)."""

    __slots__ = ()


Content = Html | str | int | float | None | Iterable["Content"]


def text(value: object) -> Html:
    """Data as text: every character that could open a tag, an entity or an attribute is escaped."""
    return Html(html.escape("" if value is None else str(value), quote=True))


def join(parts: Content) -> Html:
    """Concatenate markup; plain strings and numbers among ``parts`` are escaped."""
    if parts is None:
        return Html("")
    if isinstance(parts, Html):
        return parts
    if isinstance(parts, (str, int, float)):
        return text(parts)
    return Html("".join(join(part) for part in parts))


def tag(name: str, content: Content = None, attrs: Mapping[str, object] | None = None) -> Html:
    """``<name attrs>content</name>`` with escaped attribute values and content (``name`` and the
    attribute names are always literals in this package, never data)."""
    rendered = "".join(
        f' {key}="{html.escape(str(value), quote=True)}"'
        for key, value in (attrs or {}).items()
        if value is not None and value is not False
    )
    return Html(f"<{name}{rendered}>{join(content)}</{name}>")


def table(head: Iterable[Content], rows: Iterable[Iterable[Content]], cls: str | None = None) -> Html:
    """A table with a header row; each cell is escaped unless it is already :class:`Html`."""
    header = tag("thead", tag("tr", [tag("th", cell, {"scope": "col"}) for cell in head]))
    body = tag("tbody", [tag("tr", [tag("td", cell) for cell in row]) for row in rows])
    return tag("table", [header, body], {"class": cls})


def definitions(pairs: Iterable[tuple[str, Content]]) -> Html:
    """A ``<dl>`` of label / value pairs (run and target metadata)."""
    return tag("dl", [[tag("dt", label), tag("dd", value)] for label, value in pairs])


def folded(title: str, content: Content, heading: str = "h2", open_: bool = False) -> Html:
    """A ``<details>`` section under its ``heading``: keyboard accessible, and printed open."""
    attrs = {"open": "open" if open_ else None, "class": "diff-section"}
    return tag("details", [tag("summary", tag(heading, title)), content], attrs)


def wide(content: Html) -> Html:
    """A box that scrolls sideways itself when ``content`` is wider than the page."""
    return tag("div", content, {"class": "wide"})
