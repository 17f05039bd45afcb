"""The compatibility page as GitHub Markdown: the content of :mod:`conformance.report.compat_page`.

Only what GitHub renders is used (pipe tables, ``<br>`` in a cell, ``<a id>`` anchors, so links do
not depend on a site's heading slugs), and every piece of data is escaped: a ``|`` cannot end a
cell, nor a ``<`` open a tag.
"""

from __future__ import annotations

import re

from conformance.report.compat_page import (
    INTRO,
    SYMBOLS,
    TITLE,
    facts,
    report_link,
    requests,
    safe_link,
)
from conformance.report.viewdata import request_text
from conformance.results.compat import (
    FRAMEWORKS,
    CompatPage,
    Row,
    Verdict,
    by_group,
    framework_ops,
    grouped,
    routes,
    spec_lines,
)

#: The first line of every page written here: how ``conformance compat`` knows a file is its own.
MARKER = "<!-- Split conformance: compatibility page written by `conformance compat` -->"
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


def _spec_table(page: CompatPage, report: str | None) -> list[str]:
    head = ["Behaviour", "Example request", *[FRAMEWORKS.get(name, name) for name in page.frameworks]]
    cells = [
        [_behaviour(row, report), code(request_text(row.examples[0].request))]
        + [_answers(row, name) for name in page.frameworks]
        for row in page.rows
    ]
    return table(head, _grouped_rows(page, len(head), cells))


def _behaviour(row: Row, report: str | None) -> str:
    refer = report_link(report, behaviour=row.behaviour.slug)
    where = f"<br>{requests(len(row.cases))}" + (f", {_link('in the report', refer)}" if refer else "")
    return _link(text(row.behaviour.title), f"#{row.behaviour.slug}") + where


def _symbol(page: CompatPage, verdict: Verdict) -> str:
    numbers = sorted(page.known_number(issue_id) for issue_id in verdict.known)
    return " ".join([SYMBOLS[verdict.word][0], *[_link(str(n), f"#ki-{n}") for n in numbers]])


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


def verdict_text(page: CompatPage, verdict: Verdict, adapter: str) -> str:
    """A backend's verdict in words, with the known issues' names and links."""
    parts = [f"**{text(verdict.word or 'not run')}**"]
    every = page.adapters[adapter]
    for issue_id in sorted(verdict.known, key=page.known_number):
        issue, targets = verdict.known[issue_id]
        parts.append(_link(code(issue_id), safe_link(issue["link"])) + _on(routes(targets, every)))
    if verdict.unexplained:
        count = sum(verdict.unexplained.values())
        parts.append(f"{count:,} unexplained" + _on(routes(set(verdict.unexplained), every)))
    return "<br>".join(parts)


def _on(found: list[str]) -> str:
    return " on " + ", ".join(map(code, found)) if found else ""


def section(page: CompatPage, row: Row, report: str | None) -> list[str]:
    """One behaviour: its examples under every op, then every backend on them and on the row."""
    refer = report_link(report, behaviour=row.behaviour.slug)
    count = len({op for found in row.cases.values() for op in found})
    counts = f"{requests(len(row.cases))} under {count} ops, {row.results:,} results"
    see = f"; {_link('see them in the report', refer)}" if refer else ""
    lines = [f'### <a id="{row.behaviour.slug}"></a>{text(row.behaviour.title)}', ""]
    lines += [f"{text(row.behaviour.group)}: {counts}{see}.", ""]
    for number, example in enumerate(row.examples, 1):
        title = _link(text(example.title), report_link(report, q=example.case))
        lines.append(f"- ({number}) {title}: {code(request_text(example.request))}")
    lines.append("")
    specs = [
        [text(FRAMEWORKS.get(name, name)), text(ops), *[code(one.text) if one else "—" for one in answers]]
        for name in page.frameworks
        for ops, answers in spec_lines(row, name)
    ]
    numbers = [f"({number})" for number in range(1, len(row.examples) + 1)]
    backends = [
        [text(adapter)]
        + [verdict_text(page, example.verdicts[adapter], adapter) for example in row.examples]
        + [verdict_text(page, row.verdicts[adapter], adapter)]
        for adapter in row.ran(sorted(page.adapters))
    ]
    every = f"all {requests(len(row.cases))}"
    return lines + table(["Spec", "Op", *numbers], specs) + table(["Backend", *numbers, every], backends)


def _known_line(number: int, issue_id: str, reason: str, link: str) -> str:
    safe = safe_link(link)
    shown = f" {_link(text(link), safe)}" if safe else ""
    return f'{number}. <a id="ki-{number}"></a>{code(issue_id)}: {text(reason)}{shown}'


def render(page: CompatPage, report: str | None) -> str:
    """The Markdown page; ``report`` is the report's path or URL relative to it (None: no links)."""
    lines = [MARKER, "", f"# {TITLE}", "", text(facts(page)), "", text(INTRO), ""]
    lines += ["## What each spec says", "", *_spec_table(page, report)]
    lines += ["## Which backends depart", "", *_backend_table(page)]
    lines += ["## Each behaviour", ""]
    for row in page.rows:
        lines += section(page, row, report)
    lines += ["## Known issues", ""]
    lines += [_known_line(n, one["id"], one["reason"], one["link"]) for n, one in enumerate(page.known, 1)]
    return "\n".join(lines) + "\n"
