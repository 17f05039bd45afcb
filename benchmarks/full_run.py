"""Benchmark of a full run: where the time goes, how -j scales, how much memory workers take.

Runs the corpus through the chosen adapters twice, with -j 1 and -j 2, and prints figures:
wall time, time inside the backends (build, compile, runs), the harness's own share of the
wall time, items per second per target, peak memory per worker, and the -j 2 speed-up.
Targets on a 2-core machine: harness share under 15 %, -j 2 at least 1.7 times as fast as
-j 1, no worker above 1 GiB.

    python benchmarks/full_run.py                      # every installed adapter, whole corpus
    python benchmarks/full_run.py --adapter onnxruntime -k "not large"
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from conformance.results.result import Result
from conformance.run.planning import RunConfig, plan
from conformance.run.runner import RunOutcome, execute


def one_run(args: argparse.Namespace, jobs: int, out: Path) -> RunOutcome:
    config = RunConfig(
        case_paths=tuple(args.cases),
        adapters=tuple(args.adapter),
        ops=tuple(args.op),
        keyword=args.keyword,
        jobs=jobs,
        repeat=args.repeat,
        timeout=args.timeout,
        out=out,
        junit=False,
    )
    print(f"-- run with -j {jobs}", file=sys.stderr)
    return execute(plan(config), config)


def figures(outcome: RunOutcome, jobs: int) -> dict[str, float]:
    results = outcome.results
    backend_s = sum(r.timing.backend_ms for r in results) / 1000
    capacity_s = outcome.wall_s * jobs  # worker-seconds available
    return {
        "wall_s": outcome.wall_s,
        "backend_s": backend_s,
        "harness_share": 1 - backend_s / capacity_s if capacity_s else 0.0,
        "items": len(results),
    }


def per_target(results: list[Result]) -> list[tuple[str, int, float, float]]:
    grouped: dict[str, list[Result]] = defaultdict(list)
    for result in results:
        grouped[result.target_id].append(result)
    rows = []
    for target, items in sorted(grouped.items()):
        elapsed_s = sum((r.worker or {}).get("elapsed_ms", 0.0) for r in items) / 1000
        backend_s = sum(r.timing.backend_ms for r in items) / 1000
        rows.append((target, len(items), len(items) / elapsed_s if elapsed_s else 0.0, backend_s))
    return rows


def worker_memory(results: list[Result]) -> dict[int, float]:
    peaks: dict[int, float] = {}
    for result in results:
        if result.worker:
            pid = int(result.worker["pid"])
            peaks[pid] = max(peaks.get(pid, 0.0), result.worker["peak_rss_kib"] / 1024)
    return peaks


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cases", action="append", default=None)
    parser.add_argument("--adapter", action="append", default=[])
    parser.add_argument("--op", action="append", default=[])
    parser.add_argument("-k", dest="keyword", default=None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=300.0)
    args = parser.parse_args()
    args.cases = args.cases or ["cases"]
    with tempfile.TemporaryDirectory() as scratch:
        single = one_run(args, 1, Path(scratch) / "j1")
        double = one_run(args, 2, Path(scratch) / "j2")
    one, two = figures(single, 1), figures(double, 2)
    print(f"items: {one['items']:.0f}")
    print(f"{'':<28}{'-j 1':>10}{'-j 2':>10}")
    print(f"{'wall time (s)':<28}{one['wall_s']:>10.1f}{two['wall_s']:>10.1f}")
    print(f"{'inside backends (s)':<28}{one['backend_s']:>10.1f}{two['backend_s']:>10.1f}")
    print(f"{'harness share of wall':<28}{one['harness_share']:>10.1%}{two['harness_share']:>10.1%}")
    speedup = one["wall_s"] / two["wall_s"] if two["wall_s"] else 0.0
    print(f"speed-up of -j 2 over -j 1: {speedup:.2f}x (target >= 1.7x)")
    print("\nper target (-j 1): items, items/s of worker time, backend s")
    for target, count, rate, backend_s in per_target(single.results):
        print(f"  {target:<32}{count:>6}{rate:>10.1f}{backend_s:>10.1f}")
    for label, outcome in (("-j 1", single), ("-j 2", double)):
        peaks = worker_memory(outcome.results)
        if peaks:
            print(
                f"peak worker memory {label}: max {max(peaks.values()):.0f} MiB, median "
                f"{statistics.median(peaks.values()):.0f} MiB over {len(peaks)} workers (target < 1024 MiB)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
