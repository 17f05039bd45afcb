"""The certificate: what a profile's results say about one adapter, in a form anyone can re-check.

A certificate is derived data: its verdict follows from the certification run's results file and
the scope (each item with its role, from the profile) by the rules of docs/certification.md, so
:func:`verify` can recompute every claim from the two files and find any edit to either. A death
the crash review did not reproduce is scored by the rerun's status and listed apart
(``died_once``): never silently a pass. Both digests are sha256 over canonical JSON; they make a
certificate verifiable, not unforgeable: trust comes from re-running :func:`verify`.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from conformance import ids
from conformance.certify.profiles import Role
from conformance.corpus.catalogue import OPS
from conformance.results.document import utf8
from conformance.results.findings import findings
from conformance.results.result import JSON, Result
from conformance.statuses import PASSING

SCHEMA = "conformance.certificate/1"
FILE_NAME = "certificate.json"
HTML_NAME = "certificate.html"


def canonical(value: Any) -> bytes:
    """The one JSON text of a value that both writer and verifier hash."""
    return utf8(json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False))


def sha256(value: Any) -> str:
    return f"sha256:{hashlib.sha256(canonical(value)).hexdigest()}"


@dataclass(frozen=True)
class ItemScore:
    """One item on one target, as the certificate judges it."""

    item: str
    target: str
    role: Role
    status: str  # the result's status, or "missing"
    result: Result | None

    @property
    def op(self) -> str:
        return ids.split_item_id(self.item)[1]

    @property
    def decides(self) -> bool:
        return self.role != "ambiguous"

    @property
    def passed(self) -> bool:
        return self.status in PASSING or (self.role == "optional" and self.status == "unsupported")

    @property
    def failed(self) -> bool:
        return self.decides and not self.passed


def in_scope(roles: Mapping[str, Role], targets: Sequence[str], results: Iterable[Result]) -> list[Result]:
    """The results a certificate covers, in scope order (targets, then items as the suite lists them)."""
    order = {item: number for number, item in enumerate(roles)}
    wanted = set(targets)
    chosen = [r for r in results if r.item_id in order and r.target_id in wanted]
    return sorted(chosen, key=lambda r: (targets.index(r.target_id), order[r.item_id]))


def results_digest(results: Sequence[Result]) -> str:
    """sha256 over what decides each result (no timing: it differs on every run)."""
    return sha256(
        [
            {
                "case": result.case,
                "op": result.op,
                "target": result.target_id,
                "status": result.status,
                "expected": result.expected,
                "actual": result.actual,
                "mismatch": result.mismatch,
                **({"crash": result.crash["outcome"]} if result.crash else {}),
            }
            for result in results
        ]
    )


def score(roles: Mapping[str, Role], targets: Sequence[str], results: Iterable[Result]) -> list[ItemScore]:
    """A verdict for every item in scope on every target; an absent result is ``missing``."""
    found = {(r.item_id, r.target_id): r for r in results}
    verdicts = []
    for target in targets:
        for item, role in roles.items():
            result = found.get((item, target))
            verdicts.append(ItemScore(item, target, role, result.status if result else "missing", result))
    return verdicts


def assess(
    roles: Mapping[str, Role], reasons: Mapping[str, str], targets: Sequence[str], results: Sequence[Result]
) -> JSON:
    """The derived part of a certificate: the verdicts by op and target, and the evidence."""
    verdicts = score(roles, targets, results)
    ops = [op for op in OPS if any(item.endswith(f"::{op}") for item in roles)]
    by_op = []
    for target in targets:
        for op in ops:
            mine = [v for v in verdicts if v.target == target and v.op == op]
            deciding = [v for v in mine if v.decides]
            by_op.append(
                {
                    "op": op,
                    "target": target,
                    "certified": not any(v.failed for v in mine),
                    "required": sum(1 for v in deciding if v.role == "required"),
                    "optional": sum(1 for v in deciding if v.role == "optional"),
                    "passed": sum(1 for v in deciding if v.passed),
                    "failed": sum(1 for v in deciding if v.failed),
                    "ambiguous": len(mine) - len(deciding),
                    "statuses": dict(sorted(Counter(v.status for v in mine).items())),
                }
            )
    per_target = {t: all(row["certified"] for row in by_op if row["target"] == t) for t in targets}
    died_once = [_died_once(v) for v in verdicts if _crash_outcome(v.result) == "not reproduced"]
    return {
        "certified": bool(targets) and all(per_target.values()),
        "targets": per_target,
        "ops": by_op,
        "failures": [_evidence(v) for v in verdicts if v.failed],
        # the failures' distinct problems (missing results have none to group by)
        "findings": findings([v.result.to_json() for v in verdicts if v.failed and v.result is not None]),
        "ambiguous": [_shown(v) for v in verdicts if not v.decides],
        "optional_unsupported": [
            {"item": v.item, "target": v.target, "reason": reasons.get(v.item, ""), "message": _message(v)}
            for v in verdicts
            if v.role == "optional" and v.status == "unsupported"
        ],
        # only when there are any: certificates written before the crash review still verify
        **({"died_once": died_once} if died_once else {}),
    }


def build(
    header: JSON,
    roles: Mapping[str, Role],
    reasons: Mapping[str, str],
    targets: Sequence[str],
    results: Sequence[Result],
) -> JSON:
    """The sealed certificate: ``header`` plus the verdict, the evidence, the scope and both digests."""
    scoped = in_scope(roles, targets, results)
    verdict = assess(roles, reasons, targets, scoped)
    body: JSON = {
        "schema": SCHEMA,
        "certified": verdict["certified"],
        **header,
        "verdict": verdict,
        "scope": {"targets": list(targets), "items": dict(roles), "optional_reasons": dict(reasons)},
        "results_digest": results_digest(scoped),
    }
    return {**body, "digest": sha256(body)}


def verify(certificate: JSON, results: Sequence[Result], suite_digest: str | None = None) -> list[str]:
    """Every way the certificate disagrees with itself or with ``results`` (those of the file it
    names; results out of scope are ignored); empty when it holds. ``suite_digest``: that file's."""
    if certificate.get("schema") != SCHEMA:
        return [f"not a certificate of schema {SCHEMA} (got {certificate.get('schema')!r})"]
    problems = []
    body = {key: value for key, value in certificate.items() if key != "digest"}
    if sha256(body) != certificate.get("digest"):
        problems.append("the certificate was altered: its digest does not match its content")
    try:
        scope = certificate["scope"]
        roles, reasons, targets = scope["items"], scope["optional_reasons"], scope["targets"]
        claimed_suite = certificate["suite"]["digest"]
    except (KeyError, TypeError) as error:
        return [*problems, f"the certificate lacks {error}"]
    if suite_digest is not None and suite_digest != claimed_suite:
        problems.append(
            f"the results come from another corpus ({suite_digest}, certificate: {claimed_suite})"
        )
    scoped = in_scope(roles, targets, results)
    if results_digest(scoped) != certificate.get("results_digest"):
        problems.append("the results differ from those certified: results_digest does not match")
    derived = assess(roles, reasons, targets, scoped)
    claimed = certificate.get("verdict")
    if canonical(derived) != canonical(claimed) or derived["certified"] != certificate.get("certified"):
        problems.append(
            f"the verdict does not follow from the results: they give certified={derived['certified']}, "
            f"{len(derived['failures'])} failure(s)"
        )
    return problems


def _message(verdict: ItemScore) -> str:
    if verdict.result is None:
        return f"no result: target {verdict.target} did not run this item (it does not offer {verdict.op}?)"
    return verdict.result.message


def _evidence(verdict: ItemScore) -> JSON:
    """What a reader needs to see why an item failed, and to reproduce it."""
    result = verdict.result
    entry: JSON = {
        "item": verdict.item,
        "target": verdict.target,
        "role": verdict.role,
        "status": verdict.status,
        "message": _message(verdict),
    }
    if result is not None:
        entry.update(
            expected=result.expected,
            actual=result.actual,
            mismatch=result.mismatch,
            known_issue=result.known_issue,
            reproducer=result.reproducer,
        )
    return entry


def _crash_outcome(result: Result | None) -> str | None:
    return result.crash["outcome"] if result is not None and result.crash is not None else None


def _died_once(verdict: ItemScore) -> JSON:
    """An item its worker died on once: how, and what broke that worker, if the review found it."""
    assert verdict.result is not None and verdict.result.crash is not None
    crash = verdict.result.crash
    return {
        "item": verdict.item,
        "target": verdict.target,
        "status": verdict.status,
        "exit": crash["exit"],
        "phase": crash["phase"],
        "culprit": crash.get("culprit"),
        "search": crash.get("search", ""),
    }


def _shown(verdict: ItemScore) -> JSON:
    result = verdict.result
    return {
        "item": verdict.item,
        "target": verdict.target,
        "status": verdict.status,
        "reading": result.reading if result else None,
        "message": _message(verdict),
    }
