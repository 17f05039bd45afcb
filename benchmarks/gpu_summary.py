"""The figures of benchmarks/gpu_check.sh in one page: $OUT/summary.txt.

    python benchmarks/gpu_summary.py OUT

Reads what the check left in OUT: ``steps.txt`` (each step's exit status and seconds), ``env.txt``
(the machine and the frameworks), and every ``OUT/<step>/results.json``. Writes, for each run, its
targets with their backend, version and options, the count of each status per target, the results
that are no verdict of pass (the first of each target, with the message), and each backend's
devices compared item by item (benchmarks/device_agreement.py).
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

from benchmarks import device_agreement
from conformance.errors import ResultsFileError
from conformance.results import document
from conformance.results.result import Result

#: Statuses listed result by result: everything but a pass, an unsupported item and a known issue.
LISTED = ("fail", "error", "crash", "timeout", "xpass")
SHOWN = 15


def run_section(name: str, path: Path) -> tuple[list[str], list[Result]]:
    """One run's targets, status counts and the results to look at."""
    try:
        body, results = document.read(path)
    except ResultsFileError as error:
        return [f"== {name}: no results ({error})"], []
    run = body.get("run", {})
    wall, interrupted = run.get("wall_s", "?"), run.get("interrupted")
    lines = [f"== {name}: {len(results)} results in {wall} s (interrupted: {interrupted})"]
    for target in body.get("adapters", []):
        options = ", ".join(f"{key}={value}" for key, value in sorted(target.get("options", {}).items()))
        where = f"{target['name']}/{target['route']}/{target['device']}"
        lines.append(f"  {where}: {target['backend']} {target['version']}; {options}")
    counts: dict[str, Counter[str]] = {}
    for result in results:
        counts.setdefault(result.target_id, Counter())[result.status] += 1
    for target_id, counted in sorted(counts.items()):
        lines.append(f"  {target_id}: " + ", ".join(f"{status} {n}" for status, n in sorted(counted.items())))
    for target_id in sorted(counts):
        listed = [r for r in results if r.target_id == target_id and r.status in LISTED]
        for result in listed[:SHOWN]:
            lines.append(f"    {result.status} {result.item_id}: {result.message[:220]}")
        if len(listed) > SHOWN:
            lines.append(f"    ... {len(listed) - SHOWN} more {target_id} results of {', '.join(LISTED)}")
    return lines, results


def failed_steps(out: Path) -> list[str]:
    """The end of the log of each step that exited with more than 1 (0 is green, 1 has findings):
    a usage error (2), an adapter defect (3), a time limit (124, or 143 for a run stopped by it)."""
    steps = out / "steps.txt"
    text = steps.read_text(encoding="utf-8") if steps.is_file() else ""
    lines: list[str] = []
    for name, status in re.findall(r"^([\w-]+): exit (\d+)", text, re.MULTILINE):
        log = out / f"{name}.log"
        if int(status) > 1 and log.is_file():
            tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-6:]
            lines += [f"== {name} exited {status}: the end of {log.name}", *(f"  {line}" for line in tail)]
    return lines


def summary(out: Path) -> str:
    """The whole page."""
    lines = [f"GPU check of {out}"]
    for name in ("env.txt", "steps.txt"):
        path = out / name
        text = path.read_text(encoding="utf-8") if path.is_file() else "(missing)"
        lines += [f"== {name}", *text.splitlines()]
    lines += failed_steps(out)
    everything: list[Result] = []
    for path in sorted(out.glob("*/results.json")):
        section, results = run_section(path.parent.name, path)
        lines += section
        everything += results
    found = device_agreement.compare(everything, device_agreement.DEFAULT_PAIRS)
    lines += ["== devices compared item by item (benchmarks/device_agreement.py)"]
    lines += [device_agreement.report(found) or "nothing ran on two devices of a pair"]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(argv[0])
    text = summary(out)
    (out / "summary.txt").write_text(text, encoding="utf-8")
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
