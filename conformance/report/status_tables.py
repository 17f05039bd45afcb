"""The summary section: what was run where, and how each target did, per status and per op.

Rendered on the server: it is small and must read well printed or with scripts off. Pass rate is
defined here, once: passes over judged results (unsupported are not judged; xfail is no pass).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from conformance import ids
from conformance.corpus.catalogue import op_order
from conformance.report import urlkeys
from conformance.report.markup import Content, Html, definitions, join, table, tag, text, wide
from conformance.report.viewdata import MINUS
from conformance.results.combined import CombinedResults
from conformance.results.records import KnownIssueRecord, ResultRecord
from conformance.statuses import LETTERS, NOT_JUDGED, STATUSES

RATE_RULE = (
    f"pass rate = pass / judged, where judged = all results {MINUS} unsupported; "
    "xfail (a known failure) is not a pass, xpass is not counted as a pass either"
)


def status_badge(status: str, count: int | None = None) -> Html:
    """A status as a coloured letter with its name, so colour is never the only cue."""
    label = status if count is None else f"{status} {count}"
    return tag("span", [tag("b", LETTERS.get(status, "?")), " ", label], {"class": f"badge st-{status}"})


def safe_link(url: object) -> Html:
    """A link only for http(s) URLs; anything else (``javascript:``, ``data:``) stays plain text."""
    value = str(url or "")
    if value.startswith(("https://", "http://")):
        return tag("a", value, {"href": value, "rel": "noopener noreferrer", "target": "_blank"})
    return text(value)


def rate(passed: int, judged: int) -> str:
    return f"{100 * passed / judged:.1f}%" if judged else "n/a"


def judged_count(counts: Counter[str]) -> int:
    """How many results are judged: all but the unsupported ones."""
    return sum(counts.values()) - sum(counts[status] for status in NOT_JUDGED)


def rate_level(counts: Counter[str]) -> str:
    """How a rate is coloured: ``full`` (every judged result passes), ``part``, ``zero`` (none
    does) or ``none`` (nothing judged)."""
    judged = judged_count(counts)
    if not judged:
        return "none"
    return "full" if counts["pass"] == judged else "zero" if not counts["pass"] else "part"


def _bar(counts: Counter[str], width: int = 160) -> Html:
    """A stacked bar of status shares, as inline SVG (no script, prints as it shows)."""
    total = sum(counts.values()) or 1
    x = 0.0
    parts = []
    for status in STATUSES:
        if counts[status]:
            share = width * counts[status] / total
            parts.append(
                tag(
                    "rect",
                    tag("title", f"{status}: {counts[status]}"),
                    {"x": f"{x:.2f}", "y": 0, "width": f"{share:.2f}", "height": 12, "class": f"f-{status}"},
                )
            )
            x += share
    label = ", ".join(f"{status} {counts[status]}" for status in STATUSES if counts[status])
    attrs = {"width": width, "height": 12, "viewBox": f"0 0 {width} 12", "role": "img", "aria-label": label}
    return tag("svg", parts, attrs)


def matrix_link(content: Content, **filters: str) -> Html:
    """``content`` as a link to the matrix filtered to ``filters`` (in the URL's hash)."""
    return tag("a", content, {"href": urlkeys.link({"view": "matrix", **filters}), "class": "filter-link"})


def status_table(combined: CombinedResults) -> Html:
    per_target: dict[str, Counter[str]] = defaultdict(Counter)
    for result in combined.results:
        per_target[ids.record_target(result)][result["status"]] += 1
    columns = STATUSES  # every status, whether or not any result has it
    everything: Counter[str] = sum(per_target.values(), Counter())
    rows: list[list[Content]] = []
    for target, counts in [*((t["id"], per_target[t["id"]]) for t in combined.targets), ("all", everything)]:
        where = {} if target == "all" else {"target": target}
        rows.append(
            [
                matrix_link(tag("code", target), **where),
                *[
                    matrix_link(tag("span", counts[s], {"class": f"n st-{s}"}), status=s, **where)
                    if counts[s]
                    else tag("span", 0, {"class": "n zero"})
                    for s in columns
                ],
                matrix_link(str(sum(counts.values())), **where),
                tag("span", [rate(counts["pass"], judged_count(counts))], {"title": RATE_RULE}),
                _bar(counts),
            ]
        )
    head = ["target", *[status_badge(s) for s in columns], "total", "pass rate", "shares"]
    return wide(table(head, rows, "counts"))


def rate_table(combined: CombinedResults) -> Html:
    """Pass rate of every op version on every target (and over all targets)."""
    cells: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for result in combined.results:
        cells[(result["op"], ids.record_target(result))][result["status"]] += 1
        cells[(result["op"], "all")][result["status"]] += 1
    op_list = sorted({op for op, _ in cells}, key=op_order)
    columns = [target["id"] for target in combined.targets] + ["all"]
    rows = []
    for op in op_list:
        row: list[Any] = [tag("code", op)]
        for column in columns:
            counts = cells.get((op, column))
            if not counts:
                row.append(tag("span", "·", {"class": "none", "title": "no result"}))
                continue
            judged = judged_count(counts)
            level = rate_level(counts)
            detail = ", ".join(f"{s} {counts[s]}" for s in STATUSES if counts[s])
            cell = tag(
                "span",
                [rate(counts["pass"], judged), tag("small", f" {counts['pass']}/{judged}")],
                {"class": f"rate {level}", "title": detail},
            )
            row.append(matrix_link(cell, op=op, **({} if column == "all" else {"target": column})))
        rows.append(row)
    head = ["op", *[tag("code", column) for column in columns]]
    return wide(table(head, rows, "rates"))


def known_issue_table(results: Iterable[ResultRecord]) -> Html:
    """The known issues that shaped this run (xfail / xpass), each with its reason and link."""
    issues: dict[str, KnownIssueRecord] = {}
    counts: Counter[str] = Counter()
    targets: dict[str, set[str]] = defaultdict(set)
    for result in results:
        issue = result.get("known_issue")
        if issue:
            key = issue["id"]
            issues[key] = issue
            counts[key] += 1
            targets[key].add(ids.record_target(result))
    if not issues:
        return Html("")
    rows: list[list[Content]] = [
        [
            matrix_link(tag("code", key), known=key),
            matrix_link(str(counts[key]), known=key),
            join(
                [
                    [Html("<br>") if index else "", tag("code", target)]
                    for index, target in enumerate(sorted(targets[key]))
                ]
            ),
            issue["reason"],
            safe_link(issue["link"]),
            tag("code", issue["source"], {"class": "path"}),
        ]
        for key, issue in sorted(issues.items())
    ]
    return join(
        [
            tag("h3", "Known issues applied"),
            wide(table(["id", "results", "targets", "reason", "link", "from"], rows, "known-issues")),
        ]
    )


def _host(host: Mapping[str, Any]) -> str:
    memory = host.get("memory_mib")
    return ", ".join(
        str(part)
        for part in (
            host.get("hostname"),
            host.get("platform"),
            host.get("processor") or host.get("machine"),
            f"{host.get('cpus')} CPUs" if host.get("cpus") else None,
            f"{memory} MiB" if memory else None,
        )
        if part
    )


def run_section(combined: CombinedResults) -> Html:
    suite = combined.suite
    replaced = f" ({combined.replaced} replaced by later files)" if combined.replaced else ""
    parts = [
        definitions(
            [
                ("suite version", suite.get("version", "")),
                ("suite digest", tag("code", suite.get("digest", ""))),
                ("cases in the corpus", suite.get("cases", "")),
                ("results shown", f"{len(combined.results)}{replaced}"),
            ]
        )
    ]
    for run in combined.runs:
        memcpy = ", ".join(
            f"{m.get('bytes', 0) // 1024 // 1024} MiB: {m.get('gbps')} GB/s" for m in run.get("memcpy") or []
        )
        interrupted = " (interrupted: incomplete)" if run.get("interrupted") else ""
        parts.append(tag("h3", ["Run from ", tag("code", run.get("source", ""))]))
        parts.append(
            definitions(
                [
                    ("started / ended", f"{run.get('start', '?')} / {run.get('end', '?')}"),
                    ("wall time", f"{run.get('wall_s', '?')} s{interrupted}"),
                    ("host", _host(run.get("host") or {})),
                    ("Python", run.get("python", "")),
                    ("command", tag("code", " ".join(str(arg) for arg in run.get("command") or []))),
                    (
                        "jobs, repeat, timeout",
                        f"-j {run.get('jobs', '?')}, {run.get('repeat', '?')} steady runs, "
                        f"{run.get('timeout_s', '?')} s per item",
                    ),
                    ("memory-copy baseline", memcpy or "not measured"),
                ]
            )
        )
    return join(parts)


def target_table(combined: CombinedResults) -> Html:
    rows = []
    for target in combined.targets:
        options = target.get("options") or {}
        rows.append(
            [
                tag("code", target["id"]),
                f"{target.get('backend', '')} {target.get('version', '')}",
                target.get("device", ""),
                tag("code", ", ".join(f"{key}={value}" for key, value in sorted(options.items()))),
                target.get("description", ""),
                combined.runs[int(target.get("run", 0))].get("source", ""),
            ]
        )
    return wide(table(["target", "backend", "device", "options", "route", "results file"], rows, "targets"))
