"""Findings: the non-pass results of a run grouped into the distinct problems behind them.

Results share a finding when they share a signature (:func:`signature`): target, op family,
status, kind of departure, the backend's message with what varies masked, and the known issue.
Each finding keeps its count, items and first result (whose reproducers the report shows). An
adapter's or the harness's defect shows its first result's own message rather than the masked
one: what failed is a name (``No module named 'scipy'``, a file), the very part masking hides.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from conformance import ids
from conformance.results.records import FindingRecord, ResultRecord
from conformance.statuses import DEFECT_LABELS, PASSING

#: What a backend's message says that changes from item to item without changing the problem.
_BRACKETS = re.compile(r"\[[^\[\]]*\]|\([^()]*\)|\{[^{}]*\}")
_MASKS = (
    (re.compile(r"0x[0-9a-fA-F]+"), "0x#"),
    (re.compile(r"'[^']*'|\"[^\"]*\""), "'…'"),
    (re.compile(r"(?<![A-Za-z])-?\d+(\.\d+)?(e[-+]?\d+)?"), "#"),
    (re.compile(r"(/[\w.-]+)+"), "/…"),
    (re.compile(r"\s+"), " "),
)
#: The prefix an applied known issue puts on a message (the signature has the issue already).
_KNOWN_PREFIX = re.compile(r"^(known issue \S+: |passes, but listed as known issue \S+: )")
#: The run a message names first (``run 2 (shape [3, 4]): ``): another run, the same finding.
_RUN_PREFIX = re.compile(r"^run \d+(?: \((?:[^()]|\([^()]*\))*\))?: ")
#: How much of a masked message takes part in the signature (long messages end in detail).
_MESSAGE_CHARS = 160


def masked(message: str) -> str:
    """A backend's message with what varies between items of one problem masked."""
    text = _RUN_PREFIX.sub("", _KNOWN_PREFIX.sub("", message.split("\n", 1)[0]))
    for pattern, replacement in _MASKS:
        text = pattern.sub(replacement, text)
    for _ in range(4):  # nested lists of shapes, tuples of arguments: innermost first
        text = _BRACKETS.sub("…", text)
    return text.strip()[:_MESSAGE_CHARS]


#: What the crash review (conformance.verdict.crash_review) made of a death, as a finding's kind.
CRASH_KINDS = {
    "confirmed": "{died}, again alone in a fresh worker",
    "unconfirmed": "{died}, not run again (unconfirmed)",
    "not reproduced": "{died} once, not alone in a fresh worker",
    "culprit": "leaves the process broken: a later item dies",
}


def died_once(result: ResultRecord) -> bool:
    """A worker died on the item in the run, but not when it ran alone: the result carries the
    rerun's verdict, and the death is a finding of its own even when that verdict passes."""
    crash = result.get("crash")
    return crash is not None and crash["outcome"] == "not reproduced"


def kind(result: ResultRecord) -> str:
    """What sort of departure: the rule not applied, the mismatch, or the exception raised; or no
    departure of the backend at all, but the adapter's defect or the harness's failure."""
    defect = result.get("defect")
    if defect:
        return DEFECT_LABELS[defect]
    raised = result["actual"].get("raised")
    rejected = result["expected"].get("rejected")
    said = _KNOWN_PREFIX.sub("", result["message"])
    crash = result.get("crash")
    if crash is not None and (result["status"] in ("crash", "timeout") or died_once(result)):
        died = "timed out" if crash["exit"].startswith("killed after") else "crashed the worker"
        return CRASH_KINDS.get(crash["outcome"], "{died}").format(died=died)
    if said.startswith("the worker died"):
        return "crashed the worker"
    if said.startswith("no result within"):
        return "timed out"
    if result["mismatch"]:
        return f"mismatch: {result['mismatch']['what']}"
    if rejected is not None and raised is None and "outputs" in result["actual"]:
        return f"accepted what {rejected['rule']} rejects"
    if raised is not None:
        return f"raised {raised['type']} in {raised['phase']}"
    return result["status"]


def _message(result: ResultRecord) -> str:
    """The backend's own words where there are any; the suite's message otherwise (for a death
    that did not reproduce: how the worker died, whatever the rerun said)."""
    crash = result.get("crash")
    if died_once(result) and crash is not None:
        return f"{crash['exit']} in phase {crash['phase']}"
    raised = result["actual"].get("raised")
    return raised["message"] if raised is not None else result["message"]


def _shown(result: ResultRecord, message: str) -> str:
    """What a finding says of its results' messages: ``message`` (the masked one), or for a
    defect the first line of the first result's own, which names what failed."""
    if not result.get("defect"):
        return message
    return _message(result).strip().split("\n", 1)[0] or message


def signature(result: ResultRecord) -> tuple[str, ...]:
    known = result.get("known_issue")
    return (
        ids.record_target(result),
        result["op"].rpartition("-")[0] or result["op"],
        result["status"],
        kind(result),
        masked(_message(result)),
        known["id"] if known else "",
    )


def findings(results: Iterable[ResultRecord]) -> list[FindingRecord]:
    """The distinct problems among ``results`` (not pass, xpass or unsupported, or a death that did
    not reproduce), largest first, then in the order their first result appears."""
    groups: dict[tuple[str, ...], FindingRecord] = {}
    for result in results:
        if (result["status"] in PASSING or result["status"] == "unsupported") and not died_once(result):
            continue
        key = signature(result)
        found = groups.get(key)
        if found is None:
            target, family, _, what, message, known = key
            groups[key] = found = {
                "id": hashlib.sha256("\0".join(key).encode("utf-8")).hexdigest()[:12],
                "target": target,
                "family": family,
                "status": result["status"],
                "kind": what,
                "message": _shown(result, message),
                "known_issue": known or None,
                "count": 0,
                "ops": [],
                "items": [],
                "representative": ids.record_key(result),
            }
        found["count"] += 1
        found["items"].append(ids.record_item(result))
        if result["op"] not in found["ops"]:
            found["ops"].append(result["op"])
    return sorted(groups.values(), key=lambda finding: -finding["count"])


def terminal(found: list[FindingRecord], limit: int = 10) -> str:
    """The largest findings, a line each, for the end of ``conformance run``."""
    if not found:
        return "findings: none (every result passed, or is unsupported)"
    lines = [f"findings: {len(found)} distinct problems in {sum(f['count'] for f in found)} results"]
    for finding in found[:limit]:
        known = f" [known issue {finding['known_issue']}]" if finding["known_issue"] else ""
        message = finding["message"][:70]
        if finding["kind"] in DEFECT_LABELS.values():  # whole: what failed may end the line
            known, message = " [not a verdict on the backend]", finding["message"]
        lines.append(
            f"  {finding['count']:>5} {finding['status']:<8} {finding['target']:<28} {finding['family']:<20} "
            f"{finding['kind']}: {message}{known}"
        )
    if len(found) > limit:
        lines.append(f"  ... and {len(found) - limit} more (results.json 'findings', the report's summary)")
    return "\n".join(lines)
