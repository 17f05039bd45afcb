"""JUnit XML, for CI systems that show test results natively.

One <testsuite> per target, one <testcase> per item: statuses map by the groups of
conformance.statuses, so a green run reads green in any JUnit viewer. An error that is no verdict
on the backend has the type ``adapter-defect`` or ``harness-failure``, and each suite counts them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from xml.etree import ElementTree

from conformance.results.document import write_atomically
from conformance.results.result import Result
from conformance.statuses import DEFECT_LABELS, DEFECTS, JUNIT_ERRORS, JUNIT_FAILURES, JUNIT_SKIPPED

FILE_NAME = "junit.xml"


def _clean(text: str) -> str:
    """XML 1.0 cannot hold most control characters; hostile backend messages may contain them."""
    return "".join(ch if ch in "\t\n\r" or ord(ch) >= 0x20 else f"\\x{ord(ch):02x}" for ch in text)


def _kebab(defect: str) -> str:
    """``adapter`` as ``adapter-defect``, ``harness`` as ``harness-failure``."""
    return DEFECT_LABELS[defect].replace(" ", "-")


def write(path: Path, results: Iterable[Result]) -> None:
    by_target: dict[str, list[Result]] = defaultdict(list)
    for result in results:
        by_target[result.target_id].append(result)
    root = ElementTree.Element("testsuites", name="conformance")
    for target, items in sorted(by_target.items()):
        suite = ElementTree.SubElement(
            root,
            "testsuite",
            name=target,
            tests=str(len(items)),
            failures=str(sum(r.status in JUNIT_FAILURES for r in items)),
            errors=str(sum(r.status in JUNIT_ERRORS for r in items)),
            skipped=str(sum(r.status in JUNIT_SKIPPED for r in items)),
        )
        properties = ElementTree.SubElement(suite, "properties")
        for defect in DEFECTS:
            count = sum(r.defect == defect for r in items)
            ElementTree.SubElement(properties, "property", name=f"{_kebab(defect)}s", value=str(count))
        for result in items:
            seconds = result.timing.backend_ms / 1000
            case = ElementTree.SubElement(
                suite, "testcase", classname=target, name=result.item_id, time=f"{seconds:.6f}"
            )
            message = _clean(result.message)
            if result.status in JUNIT_FAILURES or result.status in JUNIT_ERRORS:
                failure = result.status in JUNIT_FAILURES
                kind = result.status if failure or result.defect is None else _kebab(result.defect)
                first = message.splitlines()[0] if message else ""
                ElementTree.SubElement(
                    case, "failure" if failure else "error", message=first, type=kind
                ).text = message
            elif result.status in JUNIT_SKIPPED:
                ElementTree.SubElement(case, "skipped", message=f"{result.status}: {message}")
    ElementTree.indent(root)
    write_atomically(path, ElementTree.tostring(root, encoding="unicode", xml_declaration=True) + "\n")
