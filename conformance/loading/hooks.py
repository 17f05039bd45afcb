"""An adapter and its routes, checked once when loaded and then called through, never looked up.

Every route call is compared with the parameters the contract (:mod:`conformance.plugin`) gives
it, and an adapter-level ``prepare``, which nothing would call, is refused: a vendor learns of
either from ``conformance adapters``, not from a report.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conformance.errors import PluginError
from conformance.plugin import (
    ROUTE_CALLS,
    Adapter,
    AdapterInfo,
    Route,
    Target,
    Task,
    Unsupported,
)


@dataclass(frozen=True)
class Hooks:
    """A checked adapter: its object and its routes by name, each with its calls."""

    adapter: Adapter
    routes: Mapping[str, Route]

    def route(self, target: Target) -> Route:
        return self.routes[target.route]

    def prepare(self, target: Target) -> None:
        """The route's untimed start-up in this worker, if it has one."""
        prepare = self.route(target).prepare
        if prepare is not None:
            prepare(target)

    def unsupported(self, task: Task, target: Target) -> Unsupported | None:
        """The route's refusal, if it has a ``support`` call and refuses."""
        support = self.route(target).support
        return None if support is None else support(task, target)

    def compiled(self, model: Any, target: Target) -> Any:
        """What ``run`` receives: the compiled model, or the model itself without ``compile``."""
        compile_ = self.route(target).compile
        return model if compile_ is None else compile_(model, target)


def _check_call(where: str, name: str, call: Any, wanted: tuple[str, ...]) -> None:
    if not callable(call):
        raise PluginError(
            f"{where}: {name} is a {type(call).__name__}, not a call {name}({', '.join(wanted)})"
        )
    try:
        signature = inspect.signature(call)
    except (TypeError, ValueError):  # a builtin without a signature: it will say so when called
        return
    try:
        signature.bind(*wanted)
    except TypeError as error:
        raise PluginError(
            f"{where}: its {name}({', '.join(signature.parameters)}) cannot be called as "
            f"{name}({', '.join(wanted)}) ({error}); see conformance.plugin.Route"
        ) from None


def check(where: str, adapter: object, info: AdapterInfo) -> Hooks:
    """The adapter's calls, or a PluginError naming ``where``, the route and the call at fault."""
    if callable(getattr(type(adapter), "prepare", None)):  # the contract before routes carried it
        raise PluginError(
            f"{where}: it has a method 'prepare', which the suite never calls: a route's "
            "prepare(target) does that work (Route(..., prepare=...), see conformance.plugin.Route)"
        )
    for route in info.routes:
        for name, wanted in ROUTE_CALLS.items():
            call = getattr(route, name)
            if call is not None:
                _check_call(f"{where}: route {route.name!r}", name, call, wanted)
    return Hooks(adapter, {route.name: route for route in info.routes})  # type: ignore[arg-type]


def of(adapter: Adapter | Hooks) -> Hooks:
    """``adapter``'s calls: checked now for an adapter object handed over directly (tests, tools)."""
    if isinstance(adapter, Hooks):
        return adapter
    return check(f"adapter {type(adapter).__module__}:{type(adapter).__qualname__}", adapter, adapter.info())
