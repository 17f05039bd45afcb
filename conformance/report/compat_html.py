"""The compatibility page as HTML: one self-contained, static page (no script), readable at 1,280 px.

Two tables of the window's width open it, one row a behaviour: what each framework's spec answers
to the row's example, then which backends depart (numbered after the known issues). Their column
names are written upwards and their cells break only between words or after a dot, hyphen or
underscore, so no name breaks inside a word. One section a behaviour follows, with every op's
answers beside every backend's verdict.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence

from conformance.report import page as shell
from conformance.report.compat_wording import (
    CLASSES,
    SYMBOLS,
    Piece,
    Reports,
    cell,
    reasons,
    report_links,
    safe_link,
    tally,
)
from conformance.report.markup import Content, Html, join, tag, text
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

TITLE = "Operator conformance: compatibility by behaviour"
#: Where an op name or a request may break across lines: after a dot, a hyphen, an underscore,
#: a comma or an at sign (``jnp.`` / ``array_`` / ``split``, ``Split-`` / ``18``), never inside a word.
BREAKS = re.compile(r"(?<=[.\-_,@/])(?=.)")
INTRO = (
    "One row a behaviour of an operator family. The first table says what each framework's spec "
    "answers to the row's example request: a Split's piece lengths along the axis (3,3,1), a "
    "Slice's output shape ([2,2]), or error; a cell "
    "names the ops that give each answer. The second says which backends depart from their op's "
    "spec on this behaviour, and which known issue explains it: a departure is marked on the rows "
    "where its problem is commonest, not on every row its requests fall in. Each behaviour's own "
    "section, below, shows every op on its examples beside every backend, with how many results "
    "depart, for which problem and which row, and the issues' links."
)


def requests(count: int) -> str:
    return f"{count:,} request" + ("" if count == 1 else "s")


def facts(page: CompatPage) -> str:
    """What the page was made from, in a line."""
    targets = sum(len(found) for found in page.adapters.values())
    digest = str(page.suite.get("digest", ""))
    generated = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    return (
        f"{page.results:,} results on {targets} targets of {len(page.adapters)} adapters; suite "
        f"{page.suite.get('version', '?')} ({digest[:19]}…); generated {generated}"
    )


def _link(href: str | None, content: Content, title: str | None = None) -> Html:
    return tag("a", content, {"href": href, "title": title}) if href else join(content)


def pieces(found: Sequence[Piece]) -> Html:
    """Words and links (:mod:`conformance.report.compat_wording`) as HTML."""
    return join(
        piece
        if isinstance(piece, str)
        else _link(piece.href, tag("code", piece.label) if piece.code else piece.label, piece.title or None)
        for piece in found
    )


def _ops(label: str) -> Html:
    """Op names that break between names, or at a name's own break points (``SplitToSequence-``
    / ``11``), never inside a word."""
    return tag("span", breakable(label), {"class": "ops"})


def breakable(value: str) -> Html:
    """``value`` as text with a line-break opportunity at each of :data:`BREAKS` (and its spaces)."""
    return Html("<wbr>".join(text(part) for part in BREAKS.split(value)))


def _answers(row: Row, framework: str) -> Html:
    """A framework's cell of the first table: each answer to the first example, with its ops."""
    found = grouped(row.examples[0].answers, framework_ops(row, framework))
    if not found:
        return tag("span", "—", {"class": "none", "title": "no op of this framework takes the request"})
    answers = [
        tag("div", [tag("code", breakable(said)), " ", _ops(ops)], {"class": "answer"}) for said, ops in found
    ]
    return join(answers)


def _group_row(group: str, columns: int) -> Html:
    return tag("tr", tag("th", group, {"colspan": columns, "scope": "colgroup"}), {"class": "group"})


def _overview_table(
    table_id: str, columns: list[Html], head: list[str], turned: list[str], body: list[Html]
) -> Html:
    """A table of the window's width: the ``head`` columns keep their widths (``col`` classes);
    the ``turned`` ones (a framework or an adapter each) have their names written upwards, so a
    name never breaks and a column is as narrow as its cells' longest word."""
    names = [tag("th", name, {"scope": "col"}) for name in head]
    names += [tag("th", tag("span", name), {"scope": "col", "class": "turned"}) for name in turned]
    return tag(
        "table",
        [tag("colgroup", columns), tag("thead", tag("tr", names)), tag("tbody", body)],
        {"class": "compat-overview", "id": table_id},
    )


def _spec_table(page: CompatPage, report: Reports) -> Html:
    head = ["Behaviour", "Example request"]
    frameworks = [FRAMEWORKS.get(name, name) for name in page.frameworks]
    columns = [tag("col", None, {"class": "behaviour"}), tag("col", None, {"class": "example"})]
    body: list[Html] = []
    for group, rows in by_group(page.rows):
        body.append(_group_row(group, len(head) + len(frameworks)))
        for row in rows:
            behaviour = [
                tag("a", row.behaviour.title, {"href": f"#{row.behaviour.slug}"}),
                tag("div", [requests(len(row.cases)), _report_ref(page, report, row)], {"class": "meta"}),
            ]
            example = tag(
                "td", tag("code", breakable(request_text(row.examples[0].request))), {"class": "example"}
            )
            answers = [tag("td", _answers(row, name)) for name in page.frameworks]
            body.append(tag("tr", [tag("th", behaviour, {"scope": "row"}), example, *answers]))
    columns += [tag("col") for _ in page.frameworks]
    return _overview_table("specs", columns, head, frameworks, body)


def _report_ref(page: CompatPage, report: Reports, row: Row) -> Html:
    """`` · in the report``, or `` · in the reports: a, b`` for a row from several results files."""
    links = report_links(page, report, row.documents, behaviour=row.behaviour.slug)
    if not links:
        return Html("")
    said: list[Piece] = [" · " if len(links) == 1 else " · in the reports: "]
    for number, link in enumerate(links):
        said += [", " if number else "", link]
    return pieces(said)


def _symbol(page: CompatPage, verdict: Verdict) -> Html:
    """A backend cell of the second table: a symbol, the numbers of the known issues, and the
    results not judged."""
    symbol, issues, more = cell(page, verdict)
    meaning = SYMBOLS[verdict.word][1]
    content = [symbol, [[" ", pieces([issue])] for issue in issues], [" ", more] if more else ""]
    return tag(
        "td", content, {"class": f"verdict {CLASSES[verdict.word]}", "title": f"{meaning} ({tally(verdict)})"}
    )


def _backend_table(page: CompatPage) -> Html:
    adapters = sorted(page.adapters)
    body: list[Html] = []
    for group, rows in by_group(page.rows):
        body.append(_group_row(group, len(adapters) + 1))
        for row in rows:
            behaviour = tag("a", row.behaviour.title, {"href": f"#{row.behaviour.slug}"})
            cells = [_symbol(page, row.verdicts[name]) for name in adapters]
            body.append(tag("tr", [tag("th", behaviour, {"scope": "row"}), *cells]))
    columns = [tag("col", None, {"class": "behaviour"}), *[tag("col") for _ in adapters]]
    return _overview_table("backends", columns, ["Behaviour"], adapters, body)


def _legend() -> Html:
    entries = [tag("li", [tag("b", symbol), " ", meaning]) for symbol, meaning in SYMBOLS.values()]
    return tag("ul", entries, {"class": "legend", "aria-label": "symbols"})


def verdict_html(page: CompatPage, verdict: Verdict, adapter: str, *, brief: bool = False) -> Html:
    """A backend's verdict in words: each departure with its count, finding, known issue and the
    rows it belongs to, then the results not judged. ``brief`` (an example's cell): the table's
    symbol, then the counts on one line."""
    found = reasons(page, verdict, adapter, brief=brief)
    if brief:
        symbol, meaning = SYMBOLS[verdict.word]
        return join(
            [tag("b", symbol, {"class": "symbol", "title": meaning}), [[" ", pieces(part)] for part in found]]
        )
    listed = [tag("span", pieces(part), {"class": "why"}) for part in found]
    return join([tag("b", verdict.word or "not run", {"class": "word"}), listed])


def _example_head(page: CompatPage, number: int, example: Example, report: Reports) -> Html:
    """An example's title, linking to its results in the report (in each report they are in,
    named, when they come from several results files)."""
    links = report_links(page, report, example.documents, q=example.case)
    if len(links) == 1:
        title = _link(links[0].href, example.title)
    else:
        named = [[", " if n else "", pieces([link])] for n, link in enumerate(links)]
        title = join([example.title, [" (", named, ")"] if links else ""])
    request = tag("div", tag("code", request_text(example.request)))
    return tag("th", [f"({number}) ", title, request], {"scope": "col"})


def _section_specs(page: CompatPage, row: Row, report: Reports) -> Html:
    head = [tag("th", "Spec", {"scope": "col"}), tag("th", "Op", {"scope": "col"})]
    head += [_example_head(page, number, example, report) for number, example in enumerate(row.examples, 1)]
    body: list[Html] = []
    for name in page.frameworks:
        lines = spec_lines(row, name)
        for number, (ops, answers) in enumerate(lines):
            framework = FRAMEWORKS.get(name, name)
            first = [] if number else [tag("th", framework, {"rowspan": len(lines), "scope": "rowgroup"})]
            cells = [
                tag("td", tag("code", found.text, {"title": found.detail}) if found else "—")
                for found in answers
            ]
            body.append(tag("tr", [*first, tag("td", ops), *cells]))
    return tag("table", [tag("thead", tag("tr", head)), tag("tbody", body)], {"class": "section-specs"})


def _section_backends(page: CompatPage, row: Row) -> Html:
    head = [tag("th", "Backend", {"scope": "col"})]
    head += [tag("th", f"({number})", {"scope": "col"}) for number in range(1, len(row.examples) + 1)]
    head.append(tag("th", f"all {requests(len(row.cases))}", {"scope": "col"}))
    body = [
        tag(
            "tr",
            [tag("th", adapter, {"scope": "row"})]
            + [
                tag("td", verdict_html(page, example.verdicts[adapter], adapter, brief=True))
                for example in row.examples
            ]
            + [tag("td", verdict_html(page, row.verdicts[adapter], adapter))],
        )
        for adapter in row.ran(sorted(page.adapters))
    ]
    return tag("table", [tag("thead", tag("tr", head)), tag("tbody", body)], {"class": "section-backends"})


def section(page: CompatPage, row: Row, report: Reports) -> Html:
    """One behaviour on one screen: its examples under every op, beside every backend."""
    slug = row.behaviour.slug
    ops = len({op for found in row.cases.values() for op in found})
    meta: list[Content] = [
        f"{row.behaviour.group} · {requests(len(row.cases))} under {ops} ops, {row.results:,} results",
        _report_ref(page, report, row),
        " · ",
        tag("a", "back to the tables", {"href": "#specs"}),
    ]
    pair = [
        tag("div", [tag("h4", "What each spec says"), _section_specs(page, row, report)]),
        tag("div", [tag("h4", "What each backend does"), _section_backends(page, row)]),
    ]
    return tag(
        "section",
        [
            tag("h3", tag("a", row.behaviour.title, {"href": f"#{slug}"})),
            tag("p", meta, {"class": "meta"}),
            tag("div", pair, {"class": "pair"}),
        ],
        {"id": slug, "class": "behaviour"},
    )


def _known_list(page: CompatPage) -> Html:
    items = []
    for n, one in enumerate(page.known, 1):
        link = _link(safe_link(one["link"]), one["link"])
        items.append(tag("li", [tag("code", one["id"]), ": ", one["reason"], " ", link], {"id": f"ki-{n}"}))
    return tag("section", [tag("h2", "Known issues"), tag("ol", items)], {"id": "known-issues"})


def render(page: CompatPage, report: Reports) -> str:
    """The HTML page; ``report`` is the report's path or URL relative to the page, or one for each
    results document (None: no links)."""
    header = shell.header(TITLE, facts(page))
    body = tag(
        "div",
        [
            tag("p", INTRO, {"class": "rule"}),
            tag("h2", "What each spec says"),
            _spec_table(page, report),
            tag("h2", "Which backends depart"),
            _legend(),
            _backend_table(page),
            tag("h2", "Each behaviour"),
            *[section(page, row, report) for row in page.rows],
            _known_list(page),
        ],
        {"class": "compat-page"},
    )
    return shell.document(TITLE, header, body)
