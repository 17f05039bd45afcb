"""The front doors' last step: the HTML pages over what the engine wrote.

The engine writes results files and certificates (JSON, the contract); the front doors that ran
it write the report and, beside it, the compatibility page (:mod:`conformance.results.compat_table`)
as HTML and Markdown from the same parsed results, so no second read. A page that cannot be
written costs a warning, never the results it shows, which are already on disk.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from urllib.parse import quote

from conformance import report
from conformance.errors import UsageError
from conformance.results.combined import CombinedResults, combine
from conformance.results.document import read_documents
from conformance.storage.out_folder import COMPAT_NAMES, REPORT_NAME, check_page


def run_report(results_path: Path) -> Path | None:
    """``index.html`` and the compatibility pages beside ``results_path``; None (after a warning)
    when the report could not be written."""
    try:
        combined = combine(read_documents([results_path]), [str(results_path)])
        written = report.write_combined(combined, results_path.with_name(REPORT_NAME))
    except Exception as error:  # a view must never cost the results
        print(f"warning: the HTML report was not written: {type(error).__name__}: {error}", file=sys.stderr)
        return None
    compat_pages(combined, results_path.parent)
    return written


def compat_pages(combined: CombinedResults, folder: Path) -> None:
    """The compatibility page as ``compat.html`` and ``compat.md`` in ``folder``, linking to the
    report beside them; a file of those names that the suite did not write is left alone."""
    for name in COMPAT_NAMES:
        out = folder / name
        try:
            check_compat_output(out, "the compatibility page")
            report.write_compat(combined, out, REPORT_NAME)
        except Exception as error:  # a view must never cost the results
            print(f"warning: {out} was not written: {type(error).__name__}: {error}", file=sys.stderr)


def report_beside(results_path: Path, page: Path) -> str | None:
    """The link from ``page`` to the ``index.html`` beside ``results_path``; None when there is none."""
    found = results_path.with_name(REPORT_NAME)
    if not found.is_file():
        return None
    relative = os.path.relpath(found.resolve(), page.resolve().parent)
    return quote(Path(relative).as_posix())


def check_compat_output(out: Path, option: str = "-o") -> None:
    """Refuse (UsageError) an output the compatibility page may not be written to: another
    suffix than .html or .md, or an existing file that is not a page the suite wrote."""
    if out.suffix.lower() not in report.COMPAT_FORMATS:
        raise UsageError(f"{option} {out}: the page is written as .html or .md; give a file name ending so")
    check_page(out, option)
