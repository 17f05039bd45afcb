"""Whether one backend answers alike on two of its devices: item by item, in one or more results files.

    python benchmarks/device_agreement.py reports/results.json                # cuda against cpu ...
    python benchmarks/device_agreement.py a.json b.json --pair cuda:0=cpu     # named pairs, files merged

``conformance diff`` matches results by item *and* target, so it cannot line a ``torch/eager/cuda``
result up with its ``torch/eager/cpu`` twin; this does. For each adapter and route, every item run
on both devices of a pair must have the same answer: the same status, the same known issue, the
same outputs (shapes and element types; the values were compared with the reference already, so a
pass on both is the same values), the same exception type and the same kind of mismatch. The
default pairs are ``cuda=cpu``, ``gpu=cpu`` and ``gpu-x64=cpu-x64`` (torch's and CuPy's CUDA
device, JAX's GPU in both modes); ``--pair OTHER=BASE`` replaces them.

Prints one line per adapter, route and pair (items compared, how many agree, items run on one
device only) and every disagreement (the first 20 of each pair unless ``--all``); exits 1 when any
item disagrees, 2 when nothing could be compared, 0 otherwise. docs/gpu.md says where it fits.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from conformance.errors import ResultsFileError
from conformance.results import document
from conformance.results.result import Result

DEFAULT_PAIRS = (("cuda", "cpu"), ("gpu", "cpu"), ("gpu-x64", "cpu-x64"))
SHOWN = 20


def answer(result: Result) -> tuple[object, ...]:
    """What a result says the backend did, without its timing or wording."""
    raised = result.actual.get("raised")
    outputs = tuple((tuple(o["shape"]), o["dtype"]) for o in result.actual.get("outputs", []))
    known = (result.known_issue or {}).get("id")
    mismatch = result.mismatch["what"] if result.mismatch else None
    return (result.status, known, outputs, raised["type"] if raised else None, mismatch, result.defect)


@dataclass
class Comparison:
    """One adapter and route, one device against its base."""

    compared: int = 0
    alone: int = 0
    differing: list[str] = field(default_factory=list)


def compare(results: Iterable[Result], pairs: Sequence[tuple[str, str]]) -> dict[str, Comparison]:
    """Every pair's comparison, by ``adapter/route: other vs base`` (pairs with no result on either
    device are left out)."""
    by_target: dict[tuple[str, str, str], dict[str, Result]] = defaultdict(dict)
    for result in results:
        by_target[result.adapter, result.route, result.device][result.item_id] = result
    found: dict[str, Comparison] = {}
    for (adapter, route, device), items in sorted(by_target.items()):
        for other, base in pairs:
            if device != other or (adapter, route, base) not in by_target:
                continue
            against = by_target[adapter, route, base]
            comparison = found.setdefault(f"{adapter}/{route}: {other} vs {base}", Comparison())
            comparison.alone = len(set(items) ^ set(against))
            for item in sorted(set(items) & set(against)):
                comparison.compared += 1
                mine, theirs = answer(items[item]), answer(against[item])
                if mine != theirs:
                    said = f"{other} {_said(items[item])}; {base} {_said(against[item])}"
                    comparison.differing.append(f"{item}: {said}")
    return found


def _said(result: Result) -> str:
    raised = result.actual.get("raised")
    if raised:
        return f"{result.status} ({raised['type']})"
    return f"{result.status} ({result.mismatch['what']} mismatch)" if result.mismatch else result.status


def report(found: dict[str, Comparison], everything: bool = False) -> str:
    lines = []
    for name, comparison in found.items():
        agreeing = comparison.compared - len(comparison.differing)
        lines.append(
            f"{name}: {comparison.compared} items on both, {agreeing} agree, "
            f"{len(comparison.differing)} differ, {comparison.alone} on one device only"
        )
        shown = comparison.differing if everything else comparison.differing[:SHOWN]
        lines.extend(f"  {line}" for line in shown)
        if len(shown) < len(comparison.differing):
            lines.append(f"  ... {len(comparison.differing) - len(shown)} more (--all)")
    return "\n".join(lines)


def _pair(text: str) -> tuple[str, str]:
    other, equals, base = text.partition("=")
    if not equals or not other or not base:
        raise argparse.ArgumentTypeError(f"a pair is OTHER=BASE (cuda=cpu), not {text!r}")
    return other, base


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", type=Path, help="results.json files (merged)")
    parser.add_argument("--pair", action="append", type=_pair, help="OTHER=BASE devices (repeatable)")
    parser.add_argument("--all", action="store_true", help="list every disagreement")
    args = parser.parse_args(argv)
    results: list[Result] = []
    for path in args.results:
        try:
            results.extend(document.read(path)[1])
        except ResultsFileError as error:
            print(error, file=sys.stderr)
            return 2
    found = compare(results, args.pair or DEFAULT_PAIRS)
    if not found:
        print("no item ran on both devices of a pair: nothing compared", file=sys.stderr)
        return 2
    print(report(found, args.all))
    return 1 if any(comparison.differing for comparison in found.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
