"""The answer a report opens on: is the run green, and if not, what is unexplained.

The headline says the exit status in words, with the counts behind it as links into the matrix,
keeping apart what needs different people: unexplained findings, stale known issues (xpass),
adapter defects and harness failures (no verdict on the backend), and known issues (xfail).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from conformance.report import urlkeys
from conformance.report.markup import Content, Html, join, tag
from conformance.report.viewdata import defect_of
from conformance.results.combined import CombinedResults
from conformance.results.findings import findings
from conformance.results.records import FindingRecord, ResultRecord
from conformance.statuses import DEFECT_LABELS, DEFECTS, FAILING, PROBLEMS, STATUSES


@dataclass(frozen=True)
class Verdict:
    """The run's verdict and the counts behind it."""

    results: int
    targets: int
    counts: Counter[str]
    #: the backend's departures no known issue explains, as findings (no defect among them)
    unexplained: list[FindingRecord]
    #: departures a known issue explains (xfail), as findings
    known: list[FindingRecord]
    #: per defect kind (``adapter``, ``harness``): its findings, and how many results
    defects: dict[str, list[FindingRecord]] = field(default_factory=dict)
    defect_results: Counter[str] = field(default_factory=Counter)
    #: the known issues some result of which passed (xpass): entries to update
    stale: list[str] = field(default_factory=list)
    interrupted: bool = False

    @property
    def green(self) -> bool:
        """The run's exit status in a word: nothing unexplained went wrong."""
        return not any(self.counts[status] for status in PROBLEMS)


def judge(combined: CombinedResults) -> Verdict:
    """The verdict on ``combined``: findings split into unexplained, known and defects."""
    ordinary: list[ResultRecord] = []
    defective: dict[str, list[ResultRecord]] = {}
    for result in combined.results:
        defect = defect_of(result)
        if defect:
            defective.setdefault(defect, []).append(result)
        else:
            ordinary.append(result)
    found = findings(ordinary)
    return Verdict(
        results=len(combined.results),
        targets=len(combined.targets),
        counts=Counter(result["status"] for result in combined.results),
        unexplained=[f for f in found if f["status"] in FAILING and not f["known_issue"]],
        known=[f for f in found if f["known_issue"]],
        defects={kind: findings(defective[kind]) for kind in DEFECTS if kind in defective},
        defect_results=Counter({kind: len(members) for kind, members in defective.items()}),
        stale=sorted(
            {issue["id"] for r in ordinary if r["status"] == "xpass" and (issue := r.get("known_issue"))}
        ),
        interrupted=any(run.get("interrupted") for run in combined.runs),
    )


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 finding``, ``3 findings``, with thousands separated."""
    return f"{count:,} {noun if count == 1 else nouns or noun + 's'}"


def _link(content: Content, **state: str) -> Html:
    return tag("a", content, {"href": urlkeys.link({"view": "matrix", **state})})


def clauses(verdict: Verdict) -> list[Html]:
    """The verdict sentence after its word, clause by clause: what is unexplained, then what is known."""
    parts: list[Html] = []
    if verdict.unexplained:
        targets = sorted({finding["target"] for finding in verdict.unexplained})
        text = (
            f"{plural(len(verdict.unexplained), 'unexplained finding')} on {plural(len(targets), 'target')}"
        )
        # one target holding them all: the link narrows to it
        only = targets[0] if len(targets) == 1 else ""
        parts.append(_link(text, status="failing", defect="none", target=only))
    if verdict.counts["xpass"]:
        issues = plural(len(verdict.stale), "stale known issue")
        parts.append(_link(f"{issues} ({verdict.counts['xpass']:,} xpass)", status="xpass"))
    for kind in DEFECTS:
        if verdict.defect_results[kind]:
            count = plural(verdict.defect_results[kind], DEFECT_LABELS[kind])
            parts.append(join([_link(count, defect=kind), ": not a verdict on the backend"]))
    if verdict.green:
        parts.insert(0, Html(f"{verdict.results:,} results, no unexplained finding"))
    elif not verdict.unexplained:
        parts.append(Html("no unexplained backend finding"))
    xfail = verdict.counts["xfail"]
    parts.append(
        _link(f"{plural(xfail, 'known issue')} (xfail)", status="xfail") if xfail else Html("no known issue")
    )
    return parts


def _facts(verdict: Verdict) -> list[Html]:
    """The counts under the verdict, each a link to its results."""
    counts = verdict.counts
    facts = [_link(f"{plural(verdict.results, 'result')} on {plural(verdict.targets, 'target')}")]
    if verdict.unexplained:
        by_status = Counter[str]()
        for finding in verdict.unexplained:
            by_status[finding["status"]] += finding["count"]
        detail = ", ".join(f"{status} {by_status[status]:,}" for status in STATUSES if by_status[status])
        text = f"{plural(by_status.total(), 'result')} in unexplained findings ({detail})"
        facts.append(_link(text, status="failing", defect="none"))
    facts.append(_link(f"{counts['pass']:,} pass", status="pass"))
    if counts["xfail"]:
        facts.append(
            _link(
                f"{counts['xfail']:,} xfail in {plural(len(verdict.known), 'known finding')}", status="xfail"
            )
        )
    if counts["unsupported"]:
        facts.append(_link(f"{counts['unsupported']:,} not judged (unsupported)", status="unsupported"))
    return facts


def headline(verdict: Verdict) -> Html:
    """The verdict, green or red, in words, with its counts as links into the matrix."""
    word = "GREEN" if verdict.green else "RED"
    sentence = tag(
        "p",
        [
            tag("strong", word, {"class": "word"}),
            ": ",
            [["; " if n else "", part] for n, part in enumerate(clauses(verdict))],
        ],
        {"class": "verdict-line", "id": "verdict"},
    )
    facts = [tag("li", fact) for fact in _facts(verdict)]
    if verdict.interrupted:
        facts.append(tag("li", tag("b", "the run was interrupted: results are incomplete")))
    return tag(
        "section",
        [sentence, tag("ul", facts, {"class": "verdict-facts"})],
        {"class": f"verdict {'green' if verdict.green else 'red'}", "aria-labelledby": "verdict"},
    )
