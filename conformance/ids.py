"""The ids results are known by, spelled in one place.

- item: ``<case>::<op>``, one case judged under one op (``vsplit-doc-1::openvino.VariadicSplit-1``);
- target: ``<adapter>/<route>/<device>``, where it ran (``openvino/onnx/CPU``);
- result key: ``<item>@<target>``, unique within a run: what shards hash, journals resume by and
  merges match on.

A case id never contains ``::`` or ``@`` and an op id never ``@`` (the loader and the catalogue
ensure it), which keeps them parseable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

ITEM_SEPARATOR = "::"
TARGET_SEPARATOR = "@"


@dataclass(frozen=True)
class Target:
    """Where one result is produced: adapter, route and device."""

    adapter: str
    route: str
    device: str

    @property
    def id(self) -> str:
        return target_id(self.adapter, self.route, self.device)


def item_id(case: str, op: str) -> str:
    return f"{case}{ITEM_SEPARATOR}{op}"


def target_id(adapter: str, route: str, device: str) -> str:
    return f"{adapter}/{route}/{device}"


def result_key(item: str, target: str) -> str:
    return f"{item}{TARGET_SEPARATOR}{target}"


def split_item_id(item: str) -> tuple[str, str]:
    """``(case, op)`` of an item id."""
    case, _, op = item.partition(ITEM_SEPARATOR)
    return case, op


def record_target(record: Mapping[str, object]) -> str:
    """The target id of a result as results files store it (``adapter``, ``route``, ``device``),
    or of a target description (``name``, ``route``, ``device``)."""
    adapter = record["adapter"] if "adapter" in record else record["name"]
    return target_id(str(adapter), str(record["route"]), str(record["device"]))


def record_item(record: Mapping[str, object]) -> str:
    """The item id of a result as results files store it."""
    return item_id(str(record["case"]), str(record["op"]))


def record_key(record: Mapping[str, object]) -> str:
    """The result key of a result as results files store it."""
    return result_key(record_item(record), record_target(record))
