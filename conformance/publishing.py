"""The front doors' last step: the HTML pages over what the engine wrote.

The engine writes results files and certificates (JSON, the contract); the pages are views of
them, written here by the front doors that ran the engine (``conformance run``, ``merge``,
``certify``, the pytest plugin). A page that cannot be written costs a warning, never the
results it shows, which are already on disk.
"""

from __future__ import annotations

import sys
from pathlib import Path

from conformance import report

REPORT_NAME = "index.html"


def run_report(results_path: Path) -> Path | None:
    """``index.html`` beside ``results_path``; None (after a warning) when it could not be written."""
    try:
        return report.write([results_path], results_path.with_name(REPORT_NAME))
    except Exception as error:  # a view must never cost the results
        print(f"warning: the HTML report was not written: {type(error).__name__}: {error}", file=sys.stderr)
        return None
