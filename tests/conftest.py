"""Shared pytest set-up: pytester for the plugin's tests, and the order tests are handed out in."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

#: The longest test, by far (the whole main job): handed out first, so no worker waits on it at the end.
LONGEST = "test_main_job.py"


@pytest.hookimpl(trylast=True)  # after -k and -m have deselected what they leave out
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The main job first, then the modules that hold a test marked ``slow``, then the others, each
    module's tests kept together (its module-scoped fixtures are made once) and in collection order.
    pytest-xdist queues tests on its workers in this order (``nox -s tests`` lets an idle worker take
    the tail of a busy one's queue), so the minutes-long ones start early and the last minutes are
    spent on tests of a second or less, not on one worker finishing a long test while the others idle."""
    slow_modules = {item.path for item in items if item.get_closest_marker("slow")}

    def rank(item: pytest.Item) -> int:
        if item.path.name == LONGEST:
            return 0
        return 1 if item.path in slow_modules else 2

    items.sort(key=rank)
