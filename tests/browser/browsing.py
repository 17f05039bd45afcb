"""What the browser tests share: the system Chromium driven by playwright, and helpers to open a
report and wait on it.

Importing this module skips the importing test module, with the reason, when Chromium or
playwright is missing (Playwright's own browser download is not used, and not possible here:
the tests launch the system Chromium, see benchmarks/headless.py). Screenshots go to the test's
tmp dir, and a copy to ``$CONFORMANCE_SCREENSHOTS`` when set (never to reports/: a run refuses
an output folder holding files it did not write).
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from benchmarks import headless

CHROMIUM = Path(headless.CHROMIUM)
if not CHROMIUM.exists():
    pytest.skip(
        f"browser tests need Debian's Chromium at {CHROMIUM} (apt-get install chromium; .ci/run installs it)",
        allow_module_level=True,
    )
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="browser tests drive Chromium through playwright: pip install -e '.[test]'"
)

#: Where a copy of each screenshot goes, when set (to look at them after a run of the tests).
SCREENSHOTS = os.environ.get("CONFORMANCE_SCREENSHOTS")
#: The only schemes a report may load from.
LOCAL = ("file:", "data:", "about:")


def write_pages(folder: Path, files: dict[str, str]) -> dict[str, str]:
    """Each page written into ``folder``, by name, as the file: URL to open it at."""
    urls = {}
    for name, html in files.items():
        path = folder / f"{name}.html"
        path.write_text(html, encoding="utf-8")
        urls[name] = path.as_uri()
    return urls


#: How long a page may take to get where a test waits for it: the waits end as soon as it is
#: there (a second or less), and a loaded machine may take many times that.
WAIT_MS = 60_000


def open_report(page: Any, url: str, fragment: str = "") -> None:
    page.goto(url + (f"#{fragment}" if fragment else ""))
    page.wait_for_selector("body[data-ready='1']", timeout=WAIT_MS)


def wait_until(page: Any, expression: str, timeout_s: float = WAIT_MS / 1000) -> None:
    """Poll ``expression`` until it is truthy. (Playwright's wait_for_function evaluates its
    predicate with eval, which the report's Content-Security-Policy rightly refuses.)"""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout_s} s: {expression}")
        time.sleep(0.02)


def screenshot(page: Any, tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    if SCREENSHOTS:
        Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, Path(SCREENSHOTS) / path.name)
    return path
