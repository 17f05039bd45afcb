"""certificate.html: the certificate as one self-contained, static page a vendor can publish, built
with :mod:`conformance.report.markup` (every string escaped); each failure shows its evidence and
links to its result in the run's report.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from conformance import ids
from conformance.report import page, urlkeys
from conformance.report.markup import Content, Html, definitions, folded, join, table, tag
from conformance.report.status_tables import safe_link, status_badge
from conformance.results.document import write_atomically
from conformance.results.result import JSON
from conformance.run.rerun import describe_expected

#: Failures shown in full; the rest are listed one line each (every one is in certificate.json).
DETAILED = 200


def render(certificate: JSON) -> str:
    profile, adapter, verdict = certificate["profile"], certificate["adapter"], certificate["verdict"]
    certified = bool(certificate["certified"])
    title = f"{'Certified' if certified else 'Not certified'}: {adapter['name']} — {profile['title']}"
    banner = _verdict_badge(certified, upper=True)
    summary = (
        f"{adapter['name']} ({adapter['backend']} {adapter['backend_version']}) against profile "
        f"{profile['id']}: {len(verdict['failures'])} failing item(s), {len(verdict['ambiguous'])} ambiguous "
        f"shown, {len(verdict['optional_unsupported'])} optional item(s) unsupported"
    )
    header = page.header([banner, " ", title], summary)
    body = join(
        [
            _facts(certificate),
            tag("h2", "Required ops"),
            _ops(verdict["ops"]),
            tag("h2", f"Failures: {len(verdict['failures'])}"),
            _grouped_failures(verdict),
            folded("Ambiguous items (shown, never scored)", _ambiguous(verdict["ambiguous"])),
            folded(
                f"Optional items left unsupported: {len(verdict['optional_unsupported'])}",
                table(
                    ["item", "target", "why optional", "message"],
                    [
                        [tag("code", row["item"]), row["target"], row["reason"], row["message"]]
                        for row in verdict["optional_unsupported"]
                    ],
                ),
            ),
            _died_once(verdict.get("died_once", [])),
            _rules(profile),
        ]
    )
    return page.document(title, header, body)


def _died_once(rows: Sequence[JSON]) -> Html:
    """The items a worker died on once but not alone: scored by the rerun, shown apart."""
    if not rows:
        return Html("")
    return folded(
        f"Crashes that did not reproduce alone: {len(rows)} (scored by the rerun in a fresh worker)",
        table(
            ["item", "target", "status alone", "how the worker died", "the item that broke it"],
            [
                [
                    tag("code", row["item"]),
                    row["target"],
                    row["status"],
                    f"{row['exit']} ({row['phase']})",
                    tag("code", row["culprit"]) if row["culprit"] else row["search"],
                ]
                for row in rows
            ],
        ),
    )


def write(certificate: JSON, out: Path) -> Path:
    write_atomically(out, render(certificate))
    return out


def _facts(certificate: JSON) -> Html:
    profile, adapter, suite = certificate["profile"], certificate["adapter"], certificate["suite"]
    environment, run = certificate["environment"], certificate["run"]
    host = environment["host"]
    packages = ", ".join(f"{name} {version}" for name, version in environment["packages"].items())
    package = adapter["package"] or "not installed"
    targets = [
        [Html("<br>") if number else None, tag("code", t["id"]), f" {t['description']}"]
        for number, t in enumerate(certificate["targets"])
    ]
    report = tag("a", "report", {"href": run["report"]})
    results = [tag("a", run["results"], {"href": run["results"]}), " (", report, ")"]
    titled = f" — {profile['title']} ({profile['file']}, "
    verify = f"conformance certify --verify certificate.json --results {run['results']}"
    return definitions(
        [
            ("profile", [tag("b", profile["id"]), titled, tag("code", profile["digest"]), ")"]),
            ("claims", profile["description"]),
            ("adapter", [tag("b", adapter["name"]), f" ({adapter['reference']}; package {package})"]),
            ("backend", f"{adapter['backend']} {adapter['backend_version']}"),
            ("options", ", ".join(f"{k}={v}" for k, v in sorted(adapter["options"].items())) or "none"),
            ("targets", targets),
            ("suite", [f"{suite['version']}, {suite['cases']} cases, ", tag("code", suite["digest"])]),
            (
                "host",
                f"{host.get('platform')}, {host.get('cpus')} CPUs, {host.get('memory_mib')} MiB; "
                f"Python {environment['python']}",
            ),
            ("packages", packages),
            ("run", f"{run['start']} to {run['end']}: {' '.join(run['command'])}"),
            ("results", results),
            ("results digest", tag("code", certificate["results_digest"])),
            ("certificate digest", tag("code", certificate["digest"])),
            ("verify", tag("code", verify)),
        ]
    )


def _verdict_badge(certified: bool, *, upper: bool = False) -> Html:
    words = "certified" if certified else "not certified"
    return tag(
        "span",
        [tag("b", "✓" if certified else "✗"), " ", words.upper() if upper else words],
        {"class": f"badge st-{'pass' if certified else 'fail'}"},
    )


def _ops(rows: Sequence[JSON]) -> Html:
    counts = ("required", "optional", "passed", "failed", "ambiguous")
    cells: list[list[Content]] = [
        [
            tag("code", row["op"]),
            tag("code", row["target"]),
            _verdict_badge(row["certified"]),
            *(row[count] for count in counts),
            [[status_badge(status, count), " "] for status, count in row["statuses"].items()],
        ]
        for row in rows
    ]
    return table(["op", "target", "verdict", *counts, "statuses"], cells)


def _grouped_failures(verdict: JSON) -> Html:
    """The failures by finding: its signature, one representative's evidence and its items
    (certificates older than findings list the failures one by one)."""
    found = verdict.get("findings")
    if found is None or not verdict["failures"]:
        return _failures(verdict["failures"])
    by_key = {ids.result_key(entry["item"], entry["target"]): entry for entry in verdict["failures"]}
    grouped: set[str] = set()
    blocks = []
    for finding in found:
        items = [ids.result_key(item, finding["target"]) for item in finding["items"]]
        grouped.update(items)
        known = f"; known issue {finding['known_issue']}" if finding["known_issue"] else ""
        title = (
            f"{finding['count']} \u00d7 {finding['status']} on {finding['target']} ({finding['family']}): "
            f"{finding['kind']}{known}"
        )
        listed = table(
            ["item", "message"],
            [[tag("code", key), by_key[key]["message"]] for key in items if key in by_key],
        )
        representative = by_key.get(finding["representative"])
        blocks.append(
            tag(
                "section",
                [
                    tag("h3", title),
                    tag("p", tag("code", finding["message"]), {"class": "rule"}),
                    _failure(representative) if representative else None,
                    folded(f"its {len(items)} items", listed),
                ],
                {"class": "finding"},
            )
        )
    missing = [entry for key, entry in by_key.items() if key not in grouped]  # no result at all
    return join([*blocks, _failures(missing) if missing else None])


def _failures(failures: Sequence[JSON]) -> Html:
    if not failures:
        return tag("p", "none: every deciding item passes")
    shown = [_failure(entry) for entry in failures[:DETAILED]]
    rest = failures[DETAILED:]
    listed = table(
        ["item", "target", "status", "message"],
        [[tag("code", e["item"]), e["target"], status_badge(e["status"]), e["message"]] for e in rest],
    )
    return join([*shown, folded(f"{len(rest)} more failures", listed) if rest else None])


def _failure(entry: JSON) -> Html:
    """One failing item: the verdict, the evidence in a line each, the reproducers, the report link."""
    case, _ = ids.split_item_id(entry["item"])
    key = ids.result_key(entry["item"], entry["target"])
    link = "index.html" + urlkeys.link({"view": "matrix", "q": case, "open": key})
    evidence: list[tuple[str, Content]] = []
    if entry.get("expected"):
        evidence.append(("expected", describe_expected(entry["expected"])))
    if entry.get("actual"):
        evidence.append(("actual", _describe_actual(entry["actual"])))
    if entry.get("mismatch"):
        evidence.append(("mismatch", tag("pre", json.dumps(entry["mismatch"]), {"class": "code"})))
    issue = entry.get("known_issue")
    if issue:
        evidence.append(
            ("known issue", [f"{issue.get('id')}: {issue.get('reason')} ", safe_link(issue.get("link"))])
        )
    reproducer = entry.get("reproducer") or {}
    if reproducer.get("command"):
        evidence.append(("rerun", tag("pre", reproducer["command"], {"class": "code"})))
    if reproducer.get("python"):
        snippet = tag("pre", reproducer["python"], {"class": "code"})
        evidence.append(("backend only", tag("details", [tag("summary", "standalone Python"), snippet])))
    in_report = tag("a", "(in the report)", {"href": link})
    return tag(
        "section",
        [
            tag("h3", [tag("code", entry["item"]), f" on {entry['target']} ({entry['role']})"]),
            tag("p", [status_badge(entry["status"]), " ", entry["message"], " ", in_report]),
            definitions(evidence),
        ],
    )


def _describe_actual(actual: JSON) -> str:
    """One line from a result's ``actual`` field: the outputs' shapes and types, or the refusal."""
    raised = actual.get("raised")
    if raised:
        return f"raised in {raised.get('phase')}: {raised.get('type')}: {raised.get('message')}"
    outputs = actual.get("outputs") or []
    shapes = ", ".join(f"{output.get('shape')} {output.get('dtype')}" for output in outputs)
    return f"{len(outputs)} outputs: {shapes}" if outputs else "no outputs"


def _ambiguous(rows: Sequence[JSON]) -> Html:
    cells = [
        [tag("code", r["item"]), r["target"], status_badge(r["status"]), r["reading"] or "none", r["message"]]
        for r in rows
    ]
    return table(["item", "target", "status", "reading matched", "message"], cells)


def _rules(profile: JSON) -> Html:
    optional = [
        tag(
            "li",
            [rule["reason"], " ", tag("code", json.dumps({k: v for k, v in rule.items() if k != "reason"}))],
        )
        for rule in profile["optional"]
    ]
    return join(
        [
            tag("h2", "How this certificate is decided"),
            tag(
                "p",
                "Every item of the profile's ops counts, rejections included. An item passes with status "
                "pass (or xpass). A known issue (xfail), an unsupported item the profile does not make "
                "optional, a missing result and every other status fail it. Ambiguous items are shown and "
                "never decide.",
            ),
            tag("p", "Optional items (may be unsupported; must pass when run):") if optional else None,
            tag("ul", optional) if optional else None,
        ]
    )


__all__ = ["render", "write"]
