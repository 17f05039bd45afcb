"""The compatibility page as HTML: one self-contained, static page (no script), readable at 1,280 px.

Two tables of fixed layout open it, one row a behaviour: what each framework's spec answers to the
row's example, then which backends depart (numbered after the known issues). One section a
behaviour follows, with every op's answers beside every backend's verdict.
"""

from __future__ import annotations

import datetime
from urllib.parse import urlsplit

from conformance.report import page as shell
from conformance.report import urlkeys
from conformance.report.markup import Content, Html, join, tag, text
from conformance.report.viewdata import request_text
from conformance.results.compat import (
    FRAMEWORKS,
    CompatPage,
    Example,
    Row,
    Verdict,
    by_group,
    framework_ops,
    grouped,
    routes,
    spec_lines,
)

TITLE = "Split conformance: compatibility by behaviour"
#: The symbols of the backends table, with what each says (its legend).
SYMBOLS: dict[str, tuple[str, str]] = {
    "conforms": ("✓", "conforms on every request of the row, on every target"),
    "departs": ("✗", "departs; the numbers are the known issues below"),
    "departs (unexplained)": ("✗ ?", "departs where no known issue explains it"),
    "not judged": ("!", "not judged: the adapter's own code or the suite failed"),
    "unsupported": ("\u2013", "unsupported: the adapter cannot express these requests"),  # an en dash
    "": ("·", "not run"),
}
#: Op names up to this long never break inside (``Split-18``, ``tensor_split``); longer ones may,
#: after a dot or a hyphen, where a column of the first table is too narrow for them.
UNBROKEN = 14
INTRO = (
    "One row a behaviour of Split. The first table says what each framework's spec answers to the "
    "row's example request: the lengths of the pieces along the axis (3,3,1), or error; a cell "
    "names the ops that give each answer. The second says which backends depart from their op's "
    "spec on any request of the row, and which known issue explains it. Each behaviour's own "
    "section, below, shows every op on its examples beside every backend, with the issues' links."
)


def requests(count: int) -> str:
    return f"{count:,} request" + ("" if count == 1 else "s")


def report_link(report: str | None, **state: str) -> str | None:
    """A link into the report's compatibility view, or None when there is no report."""
    return None if report is None else report + urlkeys.link({"view": "compat", **state})


def safe_link(url: str) -> str | None:
    """``url`` when it is http(s), the only links that may leave the page; None otherwise."""
    return url if urlsplit(url).scheme in ("http", "https") else None


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


def _ops(label: str) -> Html:
    """Op names that break between names, and inside only a long one (``SplitToSequence-11``)."""
    names = [[", " if number else "", _op(name)] for number, name in enumerate(label.split(", "))]
    return tag("span", names, {"class": "ops"})


def _op(name: str) -> Html:
    if len(name) <= UNBROKEN:
        return tag("span", name, {"class": "op"})
    return Html(text(name).replace(".", ".<wbr>"))


def _answers(row: Row, framework: str) -> Html:
    """A framework's cell of the first table: each answer to the first example, with its ops."""
    found = grouped(row.examples[0].answers, framework_ops(row, framework))
    if not found:
        return tag("span", "—", {"class": "none", "title": "no op of this framework takes the request"})
    return join(tag("div", [tag("code", said), " ", _ops(ops)], {"class": "answer"}) for said, ops in found)


def _group_row(group: str, columns: int) -> Html:
    return tag("tr", tag("th", group, {"colspan": columns, "scope": "colgroup"}), {"class": "group"})


def _fixed_table(table_id: str, columns: list[Html], head: list[str], body: list[Html]) -> Html:
    """A table of the window's width whose columns keep their widths (``col`` classes)."""
    return tag(
        "table",
        [
            tag("colgroup", columns),
            tag("thead", tag("tr", [tag("th", name, {"scope": "col"}) for name in head])),
            tag("tbody", body),
        ],
        {"class": "compat-fixed", "id": table_id},
    )


def _spec_table(page: CompatPage, report: str | None) -> Html:
    head = ["Behaviour", "Example request", *[FRAMEWORKS.get(name, name) for name in page.frameworks]]
    columns = [tag("col", None, {"class": "behaviour"}), tag("col", None, {"class": "example"})]
    body: list[Html] = []
    for group, rows in by_group(page.rows):
        body.append(_group_row(group, len(head)))
        for row in rows:
            behaviour = [
                tag("a", row.behaviour.title, {"href": f"#{row.behaviour.slug}"}),
                tag("div", [requests(len(row.cases)), _report_ref(report, row)], {"class": "meta"}),
            ]
            example = tag("td", tag("code", request_text(row.examples[0].request)), {"class": "example"})
            answers = [tag("td", _answers(row, name)) for name in page.frameworks]
            body.append(tag("tr", [tag("th", behaviour, {"scope": "row"}), example, *answers]))
    return _fixed_table("specs", columns + [tag("col") for _ in page.frameworks], head, body)


def _report_ref(report: str | None, row: Row) -> Html:
    href = report_link(report, behaviour=row.behaviour.slug)
    return join([" · ", tag("a", "in the report", {"href": href})]) if href else Html("")


def _symbol(page: CompatPage, verdict: Verdict) -> Html:
    """A backend cell of the second table: a symbol, and the numbers of the known issues."""
    symbol, meaning = SYMBOLS[verdict.word]
    numbers = sorted(page.known_number(issue_id) for issue_id in verdict.known)
    links = [[" ", tag("a", str(n), {"href": f"#ki-{n}", "title": page.known[n - 1]["id"]})] for n in numbers]
    counts = f"{verdict.conforms:,} conform, {sum(verdict.unexplained.values()):,} depart unexplained"
    word = verdict.word.partition(" ")[0] or "none"
    return tag("td", [symbol, links], {"class": f"verdict v-{word}", "title": f"{meaning} ({counts})"})


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
    return _fixed_table("backends", columns, ["Behaviour", *adapters], body)


def _legend() -> Html:
    entries = [tag("li", [tag("b", symbol), " ", meaning]) for symbol, meaning in SYMBOLS.values()]
    return tag("ul", entries, {"class": "legend", "aria-label": "symbols"})


def verdict_html(page: CompatPage, verdict: Verdict, adapter: str) -> Html:
    """A backend's verdict in words: the known issues by name and link, the targets that depart."""
    every = page.adapters[adapter]
    parts: list[Content] = []
    for issue_id in sorted(verdict.known, key=page.known_number):
        issue, targets = verdict.known[issue_id]
        name = _link(safe_link(issue["link"]), tag("code", issue_id), issue["reason"][:300])
        parts.append([name, _on(routes(targets, every))])
    if verdict.unexplained:
        count = sum(verdict.unexplained.values())
        parts.append([f"{count:,} unexplained", _on(routes(set(verdict.unexplained), every))])
    listed = [["; " if number else "", part] for number, part in enumerate(parts)]
    return join(
        [tag("b", verdict.word or "not run", {"class": "word"}), tag("span", listed, {"class": "why"})]
    )


def _on(found: list[str]) -> str:
    return " on " + ", ".join(found) if found else ""


def _example_head(number: int, example: Example, report: str | None) -> Html:
    title = _link(report_link(report, q=example.case), example.title)
    request = tag("div", tag("code", request_text(example.request)))
    return tag("th", [f"({number}) ", title, request], {"scope": "col"})


def _section_specs(page: CompatPage, row: Row, report: str | None) -> Html:
    head = [tag("th", "Spec", {"scope": "col"}), tag("th", "Op", {"scope": "col"})]
    head += [_example_head(number, example, report) for number, example in enumerate(row.examples, 1)]
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
            + [tag("td", verdict_html(page, example.verdicts[adapter], adapter)) for example in row.examples]
            + [tag("td", verdict_html(page, row.verdicts[adapter], adapter))],
        )
        for adapter in row.ran(sorted(page.adapters))
    ]
    return tag("table", [tag("thead", tag("tr", head)), tag("tbody", body)], {"class": "section-backends"})


def section(page: CompatPage, row: Row, report: str | None) -> Html:
    """One behaviour on one screen: its examples under every op, beside every backend."""
    slug = row.behaviour.slug
    ops = len({op for found in row.cases.values() for op in found})
    meta: list[Content] = [
        f"{row.behaviour.group} · {requests(len(row.cases))} under {ops} ops, {row.results:,} results",
        _report_ref(report, row),
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


def render(page: CompatPage, report: str | None) -> str:
    """The HTML page; ``report`` is the report's path or URL relative to the page (None: no links)."""
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
