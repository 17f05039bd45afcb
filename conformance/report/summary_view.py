"""The summary view, in the order a reader needs it: the verdict, pass rates, findings and crashes,
the detail tables, then the targets and runs. At 1,280 x 800 the first two fit the first screen.
"""

from __future__ import annotations

from conformance.report import crashes_section, findings_section, headline, overview, status_tables
from conformance.report.markup import Html, join, tag
from conformance.results.combined import CombinedResults


def section(combined: CombinedResults) -> Html:
    """The whole summary view."""
    found = headline.judge(combined)
    return join(
        [
            tag("h2", "Summary", {"class": "visually-hidden"}),
            headline.headline(found),
            tag("h3", "Pass rate per target and op family"),
            overview.overview_table(combined),
            tag("h3", "Unexplained findings"),
            findings_section.unexplained_section(found),
            findings_section.defects_section(found),
            crashes_section.crashes_section(combined),
            findings_section.known_section(found, combined),
            tag("h3", "Results per target and status"),
            status_tables.status_table(combined),
            tag("h3", "Pass rate per op version"),
            tag("p", status_tables.RATE_RULE, {"class": "rule"}),
            status_tables.rate_table(combined),
            tag("h3", "Targets"),
            status_tables.target_table(combined),
            tag("h3", "Suite and runs"),
            status_tables.run_section(combined),
        ]
    )
