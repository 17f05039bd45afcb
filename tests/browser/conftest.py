"""The browser and the tab every browser test gets (see browsing.py, which each test module
imports first, so that a machine without Chromium skips them with the reason)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Headless system Chromium with a fresh profile, flags shared with the report benchmark."""
    from browsing import CHROMIUM, sync_api

    from benchmarks import headless

    with sync_api.sync_playwright() as driver:
        context = driver.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("profile")),
            executable_path=str(CHROMIUM),
            args=list(headless.CHROMIUM_ARGS),
            headless=True,
            viewport={"width": 1400, "height": 1000},
        )
        yield context
        context.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A tab that records every request and script error; none may leave file: or fail."""
    from browsing import LOCAL, WAIT_MS

    tab = browser.new_page()
    tab.set_default_timeout(WAIT_MS)  # every action's wait, instead of Playwright's 30 s
    requests: list[str] = []
    errors: list[str] = []
    tab.on("request", lambda request: requests.append(request.url))
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.requests = requests
    yield tab
    tab.close()
    assert not errors, errors
    assert [url for url in requests if not url.startswith(LOCAL)] == []
