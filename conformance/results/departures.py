"""What one adapter does on a set of requests (a row of the compatibility page, or one of its
examples), and which row each of its departures belongs to.

A request falls in every row whose behaviour it exercises, so a backend that drops empty pieces
departs on a negative-axis request that happens to have an empty piece too. Marking every row
such a result falls in would mark "A negative axis" for a bug about empty pieces. So each
departing result *belongs* to the rows, among its own, where its finding (the problem behind it,
:func:`conformance.results.findings.signature`) is commonest: the share of the row's judged
results, on that target and op family, that depart with that finding. A row whose every
request departs with it outranks one where it is rare; ties keep every row tied. A row departs
(``✗``) only on the results that belong to it; the others it shows as departing for another
row's behaviour, with that row named. docs/compat.md says the rule for readers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TypeAlias

from conformance import ids
from conformance.results import findings
from conformance.results.records import KnownIssueRecord, ResultRecord
from conformance.statuses import DEFECTS, DEVIATING, PASSING

#: A finding's signature (target, op family, status, kind, masked message, known issue).
Finding: TypeAlias = tuple[str, ...]


def departs(result: ResultRecord) -> bool:
    """A departure of the backend from its op's spec, known or not (a defect is none)."""
    return result["status"] in DEVIATING and result.get("defect") not in DEFECTS


class Attribution:
    """Which rows each departing result belongs to: :meth:`count` every result first (with the
    rows its request falls in), then ask :meth:`owners`."""

    def __init__(self) -> None:
        # judged results by (their rows, adapter, route, device, op): one count a result, spread
        # over (row, target, family) once, at the first question
        self._counted: Counter[tuple[tuple[int, ...], str, str, str, str]] = Counter()
        self._judged: Counter[tuple[int, str, str]] | None = None  # (row, target, family) -> results
        self._departed: Counter[tuple[int, Finding]] = Counter()  # (row, finding) -> results

    def count(self, result: ResultRecord, finding: Finding | None, rows: tuple[int, ...]) -> None:
        """Add one result; ``finding`` is its signature when it departs, else None."""
        if finding is None and (result["status"] not in PASSING or result.get("defect") in DEFECTS):
            return  # no verdict on the backend: unsupported, or a defect
        self._counted[(rows, result["adapter"], result["route"], result["device"], result["op"])] += 1
        if finding is not None:
            for row in rows:
                self._departed[(row, finding)] += 1

    def owners(self, finding: Finding, rows: Sequence[int]) -> tuple[int, ...]:
        """The rows among ``rows`` where ``finding`` is commonest: those it belongs to (none when
        its request falls in no row)."""
        if not rows:
            return ()
        judged = self._spread()
        target, family = finding[:2]
        shares = {
            row: Fraction(self._departed[(row, finding)], judged[(row, target, family)]) for row in rows
        }
        most = max(shares.values())
        return tuple(row for row in rows if shares[row] == most)

    def _spread(self) -> Counter[tuple[int, str, str]]:
        if self._judged is None:
            self._judged = Counter()
            for (rows, adapter, route, device, op), count in self._counted.items():
                target, family = ids.target_id(adapter, route, device), op.rpartition("-")[0] or op
                for row in rows:
                    self._judged[(row, target, family)] += count
        return self._judged


def signature(result: ResultRecord) -> Finding | None:
    """The finding a result departs with; None when it does not depart."""
    return findings.signature(result) if departs(result) else None


@dataclass
class Departure:
    """One problem's results in a verdict: the ones that belong to its row (their targets, for
    the routes a departure names) and how many belong to each other row."""

    kind: str  # what the finding says: ``mismatch: count: expected # outputs, got #``
    issue: KnownIssueRecord | None
    targets: Counter[str] = field(default_factory=Counter)  # target -> results of this row's own
    away: int = 0  # results that belong to other rows
    elsewhere: Counter[int] = field(default_factory=Counter)  # each other row's number -> results

    @property
    def own(self) -> int:
        return sum(self.targets.values())

    @property
    def results(self) -> int:
        return self.own + self.away


@dataclass
class Verdict:
    """One adapter's results on a set of requests of one row: how many conform, how many no one
    judged, and each departure, with the rows it belongs to."""

    conforms: int = 0
    unsupported: int = 0
    #: (defect kind, target) -> results the adapter's code or the suite failed on: no verdict on
    #: the backend
    defects: Counter[tuple[str, str]] = field(default_factory=Counter)
    #: the adapter's targets whose run was interrupted: items of the selection never ran
    interrupted: set[str] = field(default_factory=set)
    #: (known issue id or "", kind) -> the departure
    departures: dict[tuple[str, str], Departure] = field(default_factory=dict)

    def add(self, result: ResultRecord, finding: Finding | None, owners: Sequence[int], row: int) -> None:
        """Count ``result`` in row ``row``: ``finding`` is its signature when it departs, ``owners``
        the rows it belongs to then (:meth:`Attribution.owners`)."""
        if finding is not None:  # a departure is never a defect (departs)
            self._depart(result, finding, owners, row)
        elif result["status"] in PASSING:
            self.conforms += 1
        elif result.get("defect") in DEFECTS:
            self.defects[(str(result.get("defect")), ids.record_target(result))] += 1
        else:
            self.unsupported += 1

    def _depart(self, result: ResultRecord, finding: Finding, owners: Sequence[int], row: int) -> None:
        issue = result.get("known_issue") if result["status"] == "xfail" else None
        kind = f"{finding[3]}: {finding[4]}" if finding[4] else finding[3]
        found = self.departures.setdefault((issue["id"] if issue else "", kind), Departure(kind, issue))
        if row in owners:
            found.targets[finding[0]] += 1
        else:
            found.away += 1
            found.elsewhere.update(owners)

    @property
    def departing(self) -> int:
        """Results that depart, whichever row they belong to."""
        return sum(found.results for found in self.departures.values())

    @property
    def own(self) -> list[Departure]:
        """The departures with results that belong to this row."""
        return [found for found in self.departures.values() if found.own]

    @property
    def known(self) -> dict[str, tuple[KnownIssueRecord, set[str]]]:
        """Known issue id -> (the issue, the targets it made xfail), of this row's own departures."""
        return {found.issue["id"]: (found.issue, set(found.targets)) for found in self.own if found.issue}

    @property
    def unexplained(self) -> Counter[str]:
        """Target -> this row's own departures there that no known issue explains."""
        return sum((found.targets for found in self.own if not found.issue), Counter())

    @property
    def unjudged(self) -> int:
        """Results no one judged: the adapter's code or the suite failed on them."""
        return sum(self.defects.values())

    @property
    def word(self) -> str:
        """The verdict in a word (a key of the page's symbols); empty when none of the requests ran."""
        if self.own:
            return "departs (unexplained)" if any(not found.issue for found in self.own) else "departs"
        if self.defects or self.interrupted:
            return "not all judged"
        if self.departures:
            return "departs for another row"
        if self.conforms:
            return "conforms"
        return "unsupported" if self.unsupported else ""
