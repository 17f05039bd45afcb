"""The summary view, in the order a reader needs it: the answer first, the run's details last.

1. the verdict, green or red, in words (:mod:`conformance.report.verdict`);
2. pass rates per target and op family (:mod:`conformance.report.overview`);
3. the unexplained findings, then adapter and harness defects, then every crash and timeout by
   what the crash review found (:mod:`conformance.report.crashes_section`), then the known
   findings, folded (:mod:`conformance.report.findings_section`);
4. the detail tables: statuses per target, pass rate per op version;
5. the targets (backends, versions, options) and the suite and runs (host, command, digest).

At 1,280 x 800 the first two fit the first screen.
"""

from __future__ import annotations

from conformance.report import crashes_section, findings_section, overview, summary, verdict
from conformance.report.markup import Html, join, tag
from conformance.results.combined import CombinedResults


def section(combined: CombinedResults) -> Html:
    """The whole summary view."""
    found = verdict.judge(combined)
    return join(
        [
            tag("h2", "Summary", {"class": "visually-hidden"}),
            verdict.headline(found),
            tag("h3", "Pass rate per target and op family"),
            overview.overview_table(combined),
            tag("h3", "Unexplained findings"),
            findings_section.unexplained_section(found),
            findings_section.defects_section(found),
            crashes_section.crashes_section(combined),
            findings_section.known_section(found, combined),
            tag("h3", "Results per target and status"),
            summary.status_table(combined),
            tag("h3", "Pass rate per op version"),
            tag("p", summary.RATE_RULE, {"class": "rule"}),
            summary.rate_table(combined),
            tag("h3", "Targets"),
            summary.target_table(combined),
            tag("h3", "Suite and runs"),
            summary.run_section(combined),
        ]
    )
