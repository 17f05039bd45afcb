"""The timing section: where each target spends its time, and how close large splits come to a
memory copy (Split's speed limit, measured in every run: ``run.memcpy``). Charts are inline SVG,
so they need no script and print as they show.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence

from conformance import ids
from conformance.report import urlkeys
from conformance.report.markup import Content, Html, join, table, tag, wide
from conformance.report.viewdata import DASH, TIMES, data_bytes
from conformance.results.combined import CombinedResults
from conformance.results.records import MemcpyRecord, ResultRecord

#: Cases with at least this much input data get an effective bandwidth.
LARGE_BYTES = 1 << 20
#: Rows in the lists of the largest and the slowest results.
TOP = 12
BANDWIDTH_ROWS = 200
BANDWIDTH_HEAD = ("item", "target", "data", "steady median", "effective", "memory copy", "share of copy")
PHASES = ("build", "compile", "first run", "steady")
PHASE_CLASSES = {name: f"ph-{name.replace(' ', '-')}" for name in PHASES}
#: (result, data bytes, steady median ms, GB/s, baseline) of a large timed result.
BandwidthRow = tuple[ResultRecord, int, float, float, MemcpyRecord | None]


def result_link(result: ResultRecord) -> Html:
    """The result's item, a link that opens the result's details in the matrix view."""
    key = ids.record_key(result)
    fragment = urlkeys.link({"view": "matrix", "q": result["case"], "op": result["op"], "open": key})
    return tag("a", ids.record_item(result), {"href": fragment})


def _median(result: ResultRecord) -> float | None:
    steady = (result.get("timing") or {}).get("steady_ms")
    return float(statistics.median(steady)) if steady else None


def _ms(value: float | None) -> str:
    if value is None:
        return DASH
    return f"{value:.3g} ms" if value < 1000 else f"{value / 1000:.3g} s"


def _phase_totals(combined: CombinedResults) -> dict[str, dict[str, float]]:
    totals: dict[str, dict[str, float]] = {t["id"]: defaultdict(float) for t in combined.targets}
    for result in combined.results:
        timing = result.get("timing") or {}
        row = totals[ids.record_target(result)]
        row["build"] += timing.get("build_ms") or 0.0
        row["compile"] += timing.get("compile_ms") or 0.0
        row["first run"] += timing.get("first_run_ms") or 0.0
        row["steady"] += sum(timing.get("steady_ms") or [])
        row["timed"] += 1 if timing.get("first_run_ms") is not None else 0
    return totals


def phase_chart(totals: Mapping[str, Mapping[str, float]]) -> Html:
    """Horizontal stacked bars: milliseconds per phase, summed over each target's results."""
    width, label_w, bar_h = 720, 210, 18
    biggest = max((sum(row[name] for name in PHASES) for row in totals.values()), default=0.0) or 1.0
    scale = (width - label_w - 90) / biggest
    parts: list[Html] = []
    for number, (target, row) in enumerate(totals.items()):
        y = number * (bar_h + 6)
        parts.append(tag("text", target, {"x": 0, "y": y + 13, "class": "label"}))
        x = float(label_w)
        for name in PHASES:
            share = row[name] * scale
            if share > 0:
                box = {"x": f"{x:.1f}", "y": y, "width": f"{max(share, 0.5):.1f}", "height": bar_h}
                title = tag("title", f"{target} {name}: {_ms(row[name])}")
                parts.append(tag("rect", title, {**box, "class": PHASE_CLASSES[name]}))
                x += share
        total = sum(row[name] for name in PHASES)
        parts.append(tag("text", _ms(total), {"x": f"{x + 4:.1f}", "y": y + 13, "class": "value"}))
    height = len(totals) * (bar_h + 6) + 24
    legend_y = height - 8
    for number, name in enumerate(PHASES):
        x = label_w + number * 110
        box = {"x": x, "y": legend_y - 10, "width": 12, "height": 12, "class": PHASE_CLASSES[name]}
        parts.append(tag("rect", None, box))
        parts.append(tag("text", name, {"x": x + 16, "y": legend_y, "class": "label"}))
    return _chart(parts, width, height, "time per phase and target")


def spread_chart(medians: Mapping[str, Sequence[float]]) -> Html:
    """Per target, the spread of steady-state medians on a log scale: p10-p90 box, median tick."""
    values = [value for series in medians.values() for value in series if value > 0]
    if not values:
        return Html("")
    width, label_w, row_h = 720, 210, 22
    low, high = math.log10(min(values)), math.log10(max(values))
    low, high = math.floor(low), math.ceil(high) if high > low else math.floor(low) + 1
    span = width - label_w - 20

    def x_of(value: float) -> float:
        return label_w + span * (math.log10(value) - low) / (high - low)

    parts: list[Html] = []
    for number, (target, series) in enumerate(medians.items()):
        y = number * row_h
        parts.append(tag("text", target, {"x": 0, "y": y + 14, "class": "label"}))
        ordered = sorted(value for value in series if value > 0)
        if not ordered:
            continue
        p10, p50, p90 = (ordered[min(len(ordered) - 1, int(q * len(ordered)))] for q in (0.1, 0.5, 0.9))
        summary = f"{target}: p10 {_ms(p10)}, median {_ms(p50)}, p90 {_ms(p90)}, max {_ms(ordered[-1])}"
        parts.append(_line(x_of(ordered[0]), x_of(ordered[-1]), y + 9, y + 9, "whisker"))
        box_w = f"{max(x_of(p90) - x_of(p10), 1.0):.1f}"
        box = {"x": f"{x_of(p10):.1f}", "y": y + 2, "height": 14, "class": "box", "width": box_w}
        parts.append(tag("rect", tag("title", summary), box))
        parts.append(_line(x_of(p50), x_of(p50), y, y + 18, "median"))
    axis_y = len(medians) * row_h + 12
    for power in range(low, high + 1):
        x = x_of(10.0**power)
        parts.append(_line(x, x, 0, axis_y - 10, "grid"))
        parts.append(tag("text", _ms(10.0**power), {"x": f"{x:.1f}", "y": axis_y, "class": "tick"}))
    height = axis_y + 6
    return _chart(parts, width, height, "spread of steady-state times per target")


def nearest_baseline(memcpy: Sequence[MemcpyRecord], size: int) -> MemcpyRecord | None:
    """The memory-copy figure measured at the buffer size closest to ``size`` (on a log scale)."""
    usable = [entry for entry in memcpy if entry.get("bytes") and entry.get("gbps")]
    if not usable or size <= 0:
        return None
    return min(usable, key=lambda entry: abs(math.log(entry["bytes"]) - math.log(size)))


def bandwidth_rows(combined: CombinedResults) -> list[BandwidthRow]:
    """A row for every large timed result, the largest first."""
    memcpy = {t["id"]: combined.runs[int(t.get("run", 0))].get("memcpy") or [] for t in combined.targets}
    rows: list[BandwidthRow] = []
    for result in combined.results:
        size = data_bytes(result.get("params") or {})
        median = _median(result)
        if size is None or size < LARGE_BYTES or not median:
            continue
        gbps = 2 * size / (median / 1000) / 1e9
        rows.append((result, size, median, gbps, nearest_baseline(memcpy[ids.record_target(result)], size)))
    rows.sort(key=lambda row: (-row[1], row[0]["case"], row[0]["op"], ids.record_target(row[0])))
    return rows


def bandwidth_section(combined: CombinedResults) -> Html:
    rows = bandwidth_rows(combined)
    if not rows:
        return tag("p", f"No timed result has {LARGE_BYTES // 1024 // 1024} MiB of data or more.")
    body = []
    for result, size, median, gbps, baseline in rows[:BANDWIDTH_ROWS]:
        share = f"{100 * gbps / baseline['gbps']:.0f}%" if baseline else DASH
        copy = f"{baseline['gbps']:.1f} GB/s @ {baseline['bytes'] // 1024 // 1024} MiB" if baseline else DASH
        width = min(100.0, 100 * gbps / baseline["gbps"]) if baseline else 0.0
        bars = [
            tag("rect", None, {"x": 0, "y": 0, "width": 100, "height": 10, "class": "track"}),
            tag("rect", None, {"x": 0, "y": 0, "width": f"{width:.1f}", "height": 10, "class": "fill"}),
        ]
        label = f"{share} of memory copy"
        attrs = {"width": 100, "height": 10, "viewBox": "0 0 100 10", "role": "img", "aria-label": label}
        meter = tag("svg", bars, attrs)
        body.append(
            [
                result_link(result),
                tag("code", ids.record_target(result)),
                f"{size / 1024 / 1024:.1f} MiB",
                _ms(median),
                f"{gbps:.2f} GB/s",
                copy,
                [meter, " ", share],
            ]
        )
    note = f" (the {BANDWIDTH_ROWS} largest of {len(rows)})" if len(rows) > BANDWIDTH_ROWS else ""
    return join(
        [
            tag(
                "p",
                f"Effective bandwidth = 2 {TIMES} input bytes (each byte read once and written once) / "
                f"steady-state median; memory copy measured in the same run{note}. A share above 100 % "
                "means the data was not copied at all (the backend returned views of its input).",
                {"class": "rule"},
            ),
            wide(table(BANDWIDTH_HEAD, body, "bandwidth")),
        ]
    )


def _top(ranked: list[tuple[float, ResultRecord]], what: str) -> Html:
    """The slowest results by one figure (``ranked``: figure and result, any order)."""
    slowest = sorted((entry for entry in ranked if entry[0] > 0), key=lambda entry: -entry[0])[:TOP]
    rows = [[result_link(r), tag("code", ids.record_target(r)), _ms(value)] for value, r in slowest]
    return wide(table(["item", "target", what], rows))


def section(combined: CombinedResults) -> Html:
    totals = _phase_totals(combined)
    medians: dict[str, list[float]] = {t["id"]: [] for t in combined.targets}
    steady: list[tuple[float, ResultRecord]] = []
    prepare: list[tuple[float, ResultRecord]] = []
    for result in combined.results:
        median = _median(result)
        timing = result.get("timing") or {}
        if median:
            medians[ids.record_target(result)].append(median)
            steady.append((median, result))
        prepare.append(((timing.get("build_ms") or 0.0) + (timing.get("compile_ms") or 0.0), result))
    rows: list[list[Content]] = [
        [
            tag("code", target),
            int(row["timed"]),
            *(_ms(row[name]) for name in PHASES),
            _ms(sum(row[name] for name in PHASES)),
            _ms(statistics.median(medians[target])) if medians[target] else DASH,
        ]
        for target, row in totals.items()
    ]
    head = ["target", "timed results", *PHASES[:-1], "steady (all runs)", "total", "median steady run"]
    return join(
        [
            tag("h2", "Timing"),
            tag(
                "p",
                "Milliseconds measured by the executor, the same way for every adapter: build, compile "
                "(or session creation), a first run, and steady-state runs after it. Each result's own "
                "figures are in its details (matrix view).",
                {"class": "rule"},
            ),
            tag("h3", "Totals per target"),
            table(head, rows, "totals"),
            phase_chart(totals),
            tag(
                "h3",
                f"Spread of steady-state times (median of each result's runs; box p10{DASH}p90, log scale)",
            ),
            spread_chart(medians),
            tag("h3", "Large cases: effective bandwidth against a memory copy"),
            bandwidth_section(combined),
            tag("h3", "Slowest steady-state runs"),
            _top(steady, "steady median"),
            tag("h3", "Slowest to build and compile"),
            _top(prepare, "build + compile"),
        ]
    )


def _line(x1: float, x2: float, y1: int, y2: int, cls: str) -> Html:
    return tag("line", None, {"x1": f"{x1:.1f}", "x2": f"{x2:.1f}", "y1": y1, "y2": y2, "class": cls})


def _chart(parts: list[Html], width: int, height: int, label: str) -> Html:
    """An inline SVG chart, labelled for screen readers."""
    size = {"viewBox": f"0 0 {width} {height}", "width": width, "height": height}
    return tag("svg", parts, {**size, "role": "img", "aria-label": label, "class": "chart"})
