"""The compatibility page as GitHub Markdown: the content of :mod:`conformance.report.compat_html`.

Only what GitHub renders is used (pipe tables, ``<br>`` in a cell, ``<a id>`` anchors, so links do
not depend on a site's heading slugs), and every piece of data is escaped: a ``|`` cannot end a
cell, nor a ``<`` open a tag.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from conformance.report.compat_html import INTRO, TITLE, facts, requests
from conformance.report.compat_wording import (
    SYMBOLS,
    Piece,
    Reports,
    cell,
    reasons,
    report_links,
    safe_link,
)
from conformance.report.viewdata import request_text
from conformance.results.compat_table import (
    FRAMEWORKS,
    CompatPage,
    Example,
    Row,
    by_group,
    framework_ops,
    grouped,
    spec_lines,
)
from conformance.results.departures import Verdict

#: The first line of every page written here: how ``conformance compat`` knows a file is its own.
MARKER = "<!-- Operator conformance: compatibility page written by `conformance compat` -->"
_SPECIAL = re.compile(r"([\\`*_\[\]|<>#])")


def text(value: object) -> str:
    """Data as Markdown text: every character that could start markup is escaped."""
    return _SPECIAL.sub(r"\\\1", str(value).replace("&", "&amp;").replace("\n", " "))


def code(value: object) -> str:
    """Data as inline code; text that holds a backtick or a pipe is written as escaped text."""
    shown = str(value)
    return f"`{shown}`" if "`" not in shown and "|" not in shown and shown.strip() else text(shown)


def _link(label: str, href: str | None) -> str:
    return f"[{label}]({href.replace(' ', '%20').replace(')', '%29')})" if href else label


def pieces(found: Sequence[Piece]) -> str:
    """Words and links (:mod:`conformance.report.compat_wording`) as Markdown, every word escaped."""
    return "".join(piece_text(piece) for piece in found)


def piece_text(piece: Piece) -> str:
    if isinstance(piece, str):
        return text(piece)
    return _link(code(piece.label) if piece.code else text(piece.label), piece.href)


def table(head: list[str], rows: list[list[str]]) -> list[str]:
    """A pipe table; cells are Markdown already (escaped by their makers)."""
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    lines += ["| " + " | ".join(cell or " " for cell in row) + " |" for row in rows]
    return [*lines, ""]


def _grouped_rows(page: CompatPage, width: int, cells: list[list[str]]) -> list[list[str]]:
    """``cells`` (one row a behaviour) with a bold row naming each group before its behaviours."""
    rows: list[list[str]] = []
    at = 0
    for group, members in by_group(page.rows):
        rows.append([f"**{text(group)}**", *[""] * (width - 1)])
        rows += cells[at : at + len(members)]
        at += len(members)
    return rows


def _answers(row: Row, framework: str) -> str:
    found = grouped(row.examples[0].answers, framework_ops(row, framework))
    return "<br>".join(f"{code(said)} {text(ops)}" for said, ops in found) or "—"


def _spec_table(page: CompatPage, report: Reports) -> list[str]:
    head = ["Behaviour", "Example request", *[FRAMEWORKS.get(name, name) for name in page.frameworks]]
    cells = [
        [_behaviour(page, row, report), code(request_text(row.examples[0].request))]
        + [_answers(row, name) for name in page.frameworks]
        for row in page.rows
    ]
    return table(head, _grouped_rows(page, len(head), cells))


def _behaviour(page: CompatPage, row: Row, report: Reports) -> str:
    where = f"<br>{requests(len(row.cases))}" + _report_ref(page, report, row, ", ")
    return _link(text(row.behaviour.title), f"#{row.behaviour.slug}") + where


def _report_ref(page: CompatPage, report: Reports, row: Row, before: str) -> str:
    """``, in the report``, or ``, in the reports: a, b`` for a row from several results files."""
    links = report_links(page, report, row.documents, behaviour=row.behaviour.slug)
    if not links:
        return ""
    named = ", ".join(piece_text(link) for link in links)
    return before + (named if len(links) == 1 else f"in the reports: {named}")


def _symbol(page: CompatPage, verdict: Verdict) -> str:
    symbol, issues, more = cell(page, verdict)
    return " ".join([symbol, *map(piece_text, issues), *([text(more)] if more else [])])


def _backend_table(page: CompatPage) -> list[str]:
    adapters = sorted(page.adapters)
    cells = [
        [_link(text(row.behaviour.title), f"#{row.behaviour.slug}")]
        + [_symbol(page, row.verdicts[adapter]) for adapter in adapters]
        for row in page.rows
    ]
    legend = [f"{code(symbol)} {text(meaning)}" for symbol, meaning in SYMBOLS.values()]
    rows = _grouped_rows(page, 1 + len(adapters), cells)
    return ["  \n".join(legend), "", *table(["Behaviour", *map(text, adapters)], rows)]


def verdict_text(page: CompatPage, verdict: Verdict, adapter: str, *, brief: bool = False) -> str:
    """A backend's verdict in words: each departure with its count, finding, known issue and the
    rows it belongs to, then the results not judged. ``brief`` (an example's cell): the table's
    symbol, then the counts."""
    found = [pieces(part) for part in reasons(page, verdict, adapter, brief=brief)]
    if brief:
        return " ".join([f"**{text(SYMBOLS[verdict.word][0])}**", *found])
    return "<br>".join([f"**{text(verdict.word or 'not run')}**", *found])


def _example_line(page: CompatPage, number: int, example: Example, report: Reports) -> str:
    links = report_links(page, report, example.documents, q=example.case)
    if len(links) == 1:
        title = _link(text(example.title), links[0].href)
    else:
        named = ", ".join(piece_text(link) for link in links)
        title = text(example.title) + (f" ({named})" if links else "")
    return f"- ({number}) {title}: {code(request_text(example.request))}"


def section(page: CompatPage, row: Row, report: Reports) -> list[str]:
    """One behaviour: its examples under every op, then every backend on them and on the row."""
    count = len({op for found in row.cases.values() for op in found})
    counts = f"{requests(len(row.cases))} under {count} ops, {row.results:,} results"
    see = _report_ref(page, report, row, "; see them ")
    lines = [f'### <a id="{row.behaviour.slug}"></a>{text(row.behaviour.title)}', ""]
    lines += [f"{text(row.behaviour.group)}: {counts}{see}.", ""]
    for number, example in enumerate(row.examples, 1):
        lines.append(_example_line(page, number, example, report))
    lines.append("")
    specs = [
        [text(FRAMEWORKS.get(name, name)), text(ops), *[code(one.text) if one else "—" for one in answers]]
        for name in page.frameworks
        for ops, answers in spec_lines(row, name)
    ]
    numbers = [f"({number})" for number in range(1, len(row.examples) + 1)]
    backends = [
        [text(adapter)]
        + [verdict_text(page, example.verdicts[adapter], adapter, brief=True) for example in row.examples]
        + [verdict_text(page, row.verdicts[adapter], adapter)]
        for adapter in row.ran(sorted(page.adapters))
    ]
    every = f"all {requests(len(row.cases))}"
    return lines + table(["Spec", "Op", *numbers], specs) + table(["Backend", *numbers, every], backends)


def _known_line(number: int, issue_id: str, reason: str, link: str) -> str:
    safe = safe_link(link)
    shown = f" {_link(text(link), safe)}" if safe else ""
    return f'{number}. <a id="ki-{number}"></a>{code(issue_id)}: {text(reason)}{shown}'


def render(page: CompatPage, report: Reports) -> str:
    """The Markdown page; ``report`` is the report's path or URL relative to it, or one for each
    results document (None: no links)."""
    lines = [MARKER, "", f"# {TITLE}", "", text(facts(page)), "", text(INTRO), ""]
    lines += ["## What each spec says", "", *_spec_table(page, report)]
    lines += ["## Which backends depart", "", *_backend_table(page)]
    lines += ["## Each behaviour", ""]
    for row in page.rows:
        lines += section(page, row, report)
    lines += ["## Known issues", ""]
    lines += [_known_line(n, one["id"], one["reason"], one["link"]) for n, one in enumerate(page.known, 1)]
    return "\n".join(lines) + "\n"
