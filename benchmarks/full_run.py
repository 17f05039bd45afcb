"""Benchmark of a full run: where the time goes, how -j scales, how much memory workers take.

Runs the corpus through the chosen adapters twice, with -j 1 and -j 2, and prints figures: wall
time, time inside the backends (build, compile, runs), the harness's own share of the wall time,
items per second and the cost per item of each target (against the 20 ms rule that keeps a route in
the default run), peak memory per worker, the -j 2 speed-up and its efficiency: the speed-up over
the contended ceiling, 2 x backend time at -j 1 / backend time at -j 2 (two backends on two cores
slow each other down, so 2x is out of reach). It also checks the progress line's ETA: every
estimate printed from 10 % of the run on, against the time the run really took from there. Targets
on a 2-core machine: harness share at most 20 % (-j 1) and 25 % (-j 2), efficiency at least 90 %,
the ETA within 35 % from 10 % on. It counts the items judged (a backend reached, not
"unsupported"), in all and per target: two trees or versions compared on one corpus do the same
work only where those counts agree (a route that learns to reach more items costs more wall time
for it). The harness share counts everything outside build, compile and runs as the harness's; a
second figure counts two more costs as the backends': loading an adapter inside an item (one its
worker had not loaded before its first job: the adapters of a worker's first targets load before
it, and count between items), and the backends' crashes (the item that died, before its backend's
phases, and the time until a replacement worker, which imports the backend again, starts its first
item; the backend's time on the item until it died is the backend's in both figures: its crash
result carries it). It prints the CPU seconds of the run's own process too: at -j 2 that process,
which serves both workers, shares the two cores with them; and the crash review's seconds, with the
harness share without them when a review ran (a death no known issue foresaw has the review replay
items for minutes).

    python benchmarks/full_run.py                      # every installed adapter, whole corpus
    python benchmarks/full_run.py --adapter onnxruntime -k "not large"
    python benchmarks/full_run.py --adapter tvm --target 'tvm/*'   # an extra target's cost
    python benchmarks/full_run.py --jobs 2             # -j 2 alone (no speed-up figures then)
    python benchmarks/full_run.py --write docs/performance.md   # the figures into the page, dated

``--write PAGE`` puts the printed figures, with the date, the machine and the command, between the
page's ``<!-- benchmark:full-run -->`` and ``<!-- /benchmark -->`` markers: a figure the docs state
is the one this tool measured, never copied by hand.

The workers' phase profile (``--phases``) went with the engine's hook for it: ``perf`` or
``py-spy`` on a worker says where its time goes without a hook in every item.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import io
import os
import platform
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple

from conformance.results.result import Result
from conformance.run.planning import RunConfig, plan
from conformance.run.runner import ExecutionOutcome, execute
from conformance.statuses import NOT_JUDGED


class _Timestamped(io.StringIO):
    """The run's progress stream, keeping when each progress line was written (and echoing it)."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[tuple[float, str]] = []

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        now = time.monotonic()
        for line in text.splitlines():
            if line.strip():
                self.lines.append((now, line))
        sys.stderr.write(text)
        return len(text)


_PROGRESS = re.compile(r"^\[(\d+)/(\d+)\]\s+(\d+)%.*eta\s+(\d+(?:\.\d)?) s")


def eta_errors(stream: _Timestamped, end: float) -> list[tuple[int, float, float]]:
    """(percent, ETA said, time it really took) for each progress line from 10 % on."""
    rows = []
    for when, line in stream.lines:
        found = _PROGRESS.match(line)
        if found and 10 <= int(found[3]) < 100:
            rows.append((int(found[3]), float(found[4]), end - when))
    return rows


class Run(NamedTuple):
    """One run of the selection: its outcome, the ETA's errors, the keys of its large items and
    the CPU seconds of the run's own process (which serves every worker: at -j 2 it shares the
    two cores with them)."""

    outcome: ExecutionOutcome
    eta: list[tuple[int, float, float]]
    large: set[str]
    parent_cpu_s: float


def one_run(args: argparse.Namespace, jobs: int, out: Path) -> Run:
    """One run of the selection, with -j ``jobs``."""
    config = RunConfig(
        case_paths=tuple(args.cases),
        adapters=tuple(args.adapter),
        ops=tuple(args.op),
        targets=tuple(args.target),
        keyword=args.keyword,
        jobs=jobs,
        repeat=args.repeat,
        timeout=args.timeout,
        out=out,
        junit=False,
    )
    print(f"-- run with -j {jobs}", file=sys.stderr)
    stream = _Timestamped()
    planned = plan(config)
    cpu = time.process_time()
    outcome = execute(planned, config, stream)
    cpu = time.process_time() - cpu
    # the ETA promises the end of the items, the last progress line: the crash review's lines,
    # the results file and reproducers come after
    progress = [when for when, line in stream.lines if _PROGRESS.match(line)]
    end = progress[-1] if progress else time.monotonic()
    large = {job.key for job in planned.jobs if job.large}
    return Run(outcome, eta_errors(stream, end), large, cpu)


def without_review(figures_: dict[str, float], review_s: float, jobs: int) -> float:
    """The harness share with the crash review's wall time left out: a death no known issue
    foresaw (a flaky backend) has the review run and replay items for minutes, which says nothing
    of what the harness costs a run that meets none."""
    capacity_s = (figures_["wall_s"] - review_s) * jobs
    return 1 - figures_["backend_s"] / capacity_s if capacity_s > 0 else 0.0


def worker_s(result: Result) -> float:
    """The worker time of one item: its worker's record, or for an item its worker died on (which
    has none) its backend's time until then (the rest of that death is the pool's ``lost_s``)."""
    return (result.worker["elapsed_ms"] if result.worker else result.timing.backend_ms) / 1000


def figures(outcome: ExecutionOutcome, jobs: int, large: set[str]) -> dict[str, float]:
    """The run's wall time and where its worker-seconds went: inside the backends, in the items
    around them (data, reference, judging; loading an adapter inside an item and the
    large items apart), and between items (worker starts and imports, waiting on the parent, and
    what workers' deaths cost: the items that died, but for their backend's time, which counts in
    the items, and their replacements' start); ``large``: the keys of the items of gigabytes
    (``Job.large``). ``own_share`` is the harness share with the
    backends' loading and their deaths counted as theirs: the suite's own code and processes."""
    results = outcome.results
    backend_s = sum(r.timing.backend_ms for r in results) / 1000
    items_s = sum(worker_s(r) for r in results)
    large_s = (
        sum(r.worker["elapsed_ms"] - r.timing.backend_ms for r in results if r.worker and r.key in large)
        / 1000
    )
    load_s = sum(r.worker.get("load_ms", 0.0) for r in results if r.worker) / 1000
    capacity_s = outcome.wall_s * jobs  # worker-seconds available
    # the backends' share beyond their items: importing them on a target's first item, and what
    # their crashes cost (the item that died, the replacement importing the backend again)
    backends_s = backend_s + load_s + outcome.lost_s
    return {
        "wall_s": outcome.wall_s,
        "backend_s": backend_s,
        "harness_share": 1 - backend_s / capacity_s if capacity_s else 0.0,
        # the share grows as the backends get faster, with the harness unchanged: per item, the
        # harness's worker time compares two trees whose adapters differ in speed
        "harness_ms_per_item": (capacity_s - backend_s) / len(results) * 1000 if results else 0.0,
        "own_share": 1 - backends_s / capacity_s if capacity_s else 0.0,
        "items": len(results),
        "judged": judged(results),
        "in_items_s": items_s - backend_s,
        "load_s": load_s,
        "large_s": large_s,
        "between_s": capacity_s - items_s,
        "lost_s": outcome.lost_s,
    }


def judged(results: list[Result]) -> int:
    """The items a backend was reached for: two trees or versions compared on one corpus do the
    same work only where these counts agree, in all and per target."""
    return sum(result.status not in NOT_JUDGED for result in results)


def per_target(results: list[Result]) -> list[tuple[str, int, int, float, float, float]]:
    """Per target: items, items judged, items per second of worker time, backend s, and per item the
    backend's own ms next to the harness's (worker time around the backend: data, reference,
    judging), so the floor each target sets is visible."""
    grouped: dict[str, list[Result]] = defaultdict(list)
    for result in results:
        grouped[result.target_id].append(result)
    rows = []
    for target, items in sorted(grouped.items()):
        elapsed_s = sum(worker_s(r) for r in items)
        backend_s = sum(r.timing.backend_ms for r in items) / 1000
        rate = len(items) / elapsed_s if elapsed_s else 0.0
        harness_ms = (elapsed_s - backend_s) / len(items) * 1000
        rows.append((target, len(items), judged(items), rate, backend_s, harness_ms))
    return rows


#: a route costing more than this per item (worker time) leaves the default run
#: (docs/performance.md, "What each route costs")
DEFAULT_RUN_MS = 20.0


def print_per_target(single: list[Result], double: list[Result]) -> None:
    """The per-target table, with each target's cost per item against the 20 ms rule."""
    print(
        "\nper target (-j 1): items, judged, items/s of worker time, backend s, per item: backend ms,"
        " harness ms, worker ms (the 20 ms rule); then -j 2's backend ms per item (cores shared)"
    )
    doubled = {row[0]: row for row in per_target(double)}
    for target, count, reached, rate, backend_s, harness_ms in per_target(single):
        backend_ms = backend_s / count * 1000
        worker_ms = 1000 / rate if rate else 0.0
        over = " over 20 ms: extra targets" if worker_ms > DEFAULT_RUN_MS else ""
        shared = doubled[target][4] / doubled[target][1] * 1000 if target in doubled else 0.0
        print(
            f"  {target:<32}{count:>6}{reached:>7}{rate:>10.1f}{backend_s:>10.1f}{backend_ms:>10.2f}"
            f"{harness_ms:>10.2f}{worker_ms:>10.2f}{shared:>10.2f}{over}"
        )


def loads_by_target(results: list[Result], shown: int = 5) -> list[tuple[str, float, int]]:
    """The targets that loaded adapters inside items the longest: (target, seconds, loads). At
    -j 2 a worker forked before the zygote had imported a backend imports it itself; these say
    which targets pay for that, and where the two -j differ most."""
    loads: dict[str, list[float]] = defaultdict(list)
    for result in results:
        if result.worker and result.worker.get("load_ms"):
            loads[result.target_id].append(result.worker["load_ms"] / 1000)
    ranked = sorted(loads.items(), key=lambda entry: -sum(entry[1]))[:shown]
    return [(target, sum(times), len(times)) for target, times in ranked]


def worker_memory(results: list[Result]) -> dict[int, float]:
    peaks: dict[int, float] = {}
    for result in results:
        if result.worker:
            pid = int(result.worker["pid"])
            peaks[pid] = max(peaks.get(pid, 0.0), result.worker["peak_rss_kib"] / 1024)
    return peaks


def report(runs: dict[int, Run]) -> None:
    """Print the figures of the runs made (-j 1, -j 2 or both; speed-up and efficiency need both)."""
    large = next(iter(runs.values())).large
    shown = {jobs: figures(run.outcome, jobs, large) for jobs, run in runs.items()}
    first = next(iter(shown.values()))
    print(f"items: {first['items']:.0f}, judged (a backend reached) {first['judged']:.0f}")
    print(f"{'':<28}" + "".join(f"{f'-j {jobs}':>10}" for jobs in shown))
    rows = (
        ("wall time (s)", "wall_s", ".1f"),
        ("inside backends (s)", "backend_s", ".1f"),
        ("harness share of wall", "harness_share", ".1%"),
        ("harness per item (ms)", "harness_ms_per_item", ".2f"),
        ("  in items (s)", "in_items_s", ".1f"),
        ("    of which loading adapters", "load_s", ".1f"),
        ("    of which large items", "large_s", ".1f"),
        ("  between items (s)", "between_s", ".1f"),
        ("    of which lost to deaths", "lost_s", ".1f"),
        ("share, those two as backends", "own_share", ".1%"),
    )
    for label, key, form in rows:
        print(f"{label:<28}" + "".join(f"{format(one[key], form):>10}" for one in shown.values()))
    print(f"{'run process CPU (s)':<28}" + "".join(f"{run.parent_cpu_s:>10.1f}" for run in runs.values()))
    reviews = {jobs: run.outcome.review_s for jobs, run in runs.items()}
    print(f"{'crash review (s)':<28}" + "".join(f"{review:>10.1f}" for review in reviews.values()))
    if max(reviews.values()) >= 0.1:  # one that ran items (one with none: milliseconds)
        shares = [without_review(shown[jobs], reviews[jobs], jobs) for jobs in shown]
        print(f"{'share without the review':<28}" + "".join(f"{share:>10.1%}" for share in shares))
    if 1 in shown and 2 in shown:
        one, two = shown[1], shown[2]
        speedup = one["wall_s"] / two["wall_s"] if two["wall_s"] else 0.0
        print(f"speed-up of -j 2 over -j 1: {speedup:.2f}x")
        # two workers on two cores slow each backend down: the ceiling is what -j 2 could reach
        # with the backends as slow as they are when two run at once, and the harness adding nothing
        ceiling = 2 * one["backend_s"] / two["backend_s"] if two["backend_s"] else 0.0
        efficiency = speedup / ceiling if ceiling else 0.0
        print(f"efficiency of -j 2: {efficiency:.0%} of the contended ceiling {ceiling:.2f}x (target >= 90%)")
        print_per_target(runs[1].outcome.results, runs[2].outcome.results)
    for jobs, run in runs.items():
        if run.eta:
            worst = max(abs(said - took) / took for _, said, took in run.eta if took > 0)
            said_line = ", ".join(f"{pct}%: {said:g}/{took:.1f}" for pct, said, took in run.eta)
            print(f"ETA -j {jobs} (said/took s): {said_line}; worst error {worst:.0%} (target <= 35%)")
    for jobs, run in runs.items():
        loads = loads_by_target(run.outcome.results)
        if loads:
            listed = ", ".join(f"{target} {seconds:.1f} s ({count})" for target, seconds, count in loads)
            print(f"loading adapters in items -j {jobs}, most (s, loads): {listed}")
    for jobs, run in runs.items():
        peaks = worker_memory(run.outcome.results)
        if peaks:
            print(
                f"peak worker memory -j {jobs}: max {max(peaks.values()):.0f} MiB, median "
                f"{statistics.median(peaks.values()):.0f} MiB over {len(peaks)} workers (target < 1024 MiB)"
            )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cases", action="append", default=None)
    parser.add_argument("--adapter", action="append", default=[])
    parser.add_argument("--op", action="append", default=[])
    parser.add_argument("--target", action="append", default=[], help="e.g. 'tvm/*': an extra target's cost")
    parser.add_argument("-k", dest="keyword", default=None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument(
        "--jobs", type=int, action="append", choices=(1, 2), help="only these -j (default: 1 and 2)"
    )
    parser.add_argument(
        "--write", type=Path, default=None, help="a page with the markers to write the figures into"
    )
    args = parser.parse_args()
    args.cases = args.cases or ["cases"]
    runs: dict[int, Run] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for jobs in sorted(set(args.jobs or (1, 2))):
            runs[jobs] = one_run(args, jobs, Path(scratch) / f"j{jobs}")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        report(runs)
    print(printed.getvalue(), end="")
    if args.write is not None:
        command = " ".join(["python benchmarks/full_run.py", *sys.argv[1:]])
        write_section(args.write, section(printed.getvalue(), command))
    return 0


#: The markers a page holds the benchmark's figures between.
BEGIN, END = "<!-- benchmark:full-run -->", "<!-- /benchmark -->"


def machine() -> str:
    """The machine in a line: processor, cores, memory, Python, and the load when the run ended."""
    model = "unknown processor"
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as info:
        model = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), model)
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (
        f"{model}, {os.cpu_count()} cores, {memory:.0f} GiB, Python {platform.python_version()}, "
        f"load {os.getloadavg()[0]:.1f}"
    )


def section(figures_text: str, command: str) -> str:
    """The page's section: when and where the figures were measured, the command, the figures."""
    day = datetime.date.today().isoformat()
    return f"{BEGIN}\n`{command}`, {day}, {machine()}:\n\n```text\n{figures_text.rstrip()}\n```\n{END}"


def write_section(page: Path, text: str) -> None:
    """Replace the page's marked section with ``text``; a page without both markers is refused."""
    content = page.read_text(encoding="utf-8")
    start, end = content.find(BEGIN), content.find(END)
    if start < 0 or end < start:
        raise SystemExit(f"{page}: no {BEGIN} ... {END} section to write the figures into")
    page.write_text(content[:start] + text + content[end + len(END) :], encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
