"""Shared pytest set-up: pytester for the plugin's tests, the order tests are handed out in, and the
adapters' own runs a session with the main job's test leaves to it."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

#: The longest test, by far (the whole main job): handed out first, so no worker waits on it at the end.
LONGEST = "test_main_job.py"


@pytest.hookimpl(trylast=True)  # after -k and -m have deselected what they leave out
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The main job first, then the modules that hold a test marked ``slow``, then the others, each
    module's tests kept together (its module-scoped fixtures are made once) and in collection order.
    pytest-xdist hands tests out in this order as its workers free up, so the minutes-long ones start
    early and the last minutes are spent on tests of a second or less, not on one worker finishing a
    long test while the other idles."""
    slow_modules = {item.path for item in items if item.get_closest_marker("slow")}

    def rank(item: pytest.Item) -> int:
        if item.path.name == LONGEST:
            return 0
        return 1 if item.path in slow_modules else 2

    items.sort(key=rank)
    _held_by_the_main_job(items)


def _held_by_the_main_job(items: list[pytest.Item]) -> None:
    """Skip the tests marked ``held_by_main_job`` when the main job's test runs in this session:
    each is an adapter's own raw run of targets in the default run, judged with that adapter's
    known issues (every failure claimed, no entry stale), which the main job's test checks on the
    same items, with every adapter's known issues, in its one run. Run without it (``pytest
    tests/adapters/test_onnx.py``) they do their own run. Together they cost a session about 55 s here
    (onnx, ONNX Runtime's default route, SplitToSequence on both, the hsplit family on torch and
    OpenVINO's PyTorch route)."""
    if not any(item.path.name == LONGEST for item in items):
        return
    reason = f"held whole by {LONGEST} in this session (the same check, the same items)"
    held = pytest.mark.skip(reason=reason)
    for item in items:
        if item.get_closest_marker("held_by_main_job"):
            item.add_marker(held)
