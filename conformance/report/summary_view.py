"""The summary view, in the order a reader needs it: the verdict, pass rates, findings and crashes,
the detail tables, then the targets and runs. At 1,280 x 800 the first two fit the first screen.
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
