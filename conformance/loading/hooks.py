"""An adapter and its routes, checked once when loaded and then called through, never looked up.

The contract (:mod:`conformance.plugin`): an adapter has ``info()``, whose routes carry their
``build`` and ``run`` and optionally ``support``, ``compile`` and ``reproducer``; the adapter
may add ``prepare``. Looking optional calls up at the moment of use hid mistakes (a misspelt
``prepair`` was silently never called, a ``reproducer`` with the wrong parameters surfaced as a
comment in a report), so every call is compared here with the parameters the contract gives it,
and a public method of the adapter named one letter or two away from ``prepare`` is refused as
a misspelling: a vendor learns of it from the first ``conformance adapters``.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from conformance.errors import PluginError
from conformance.plugin import (
    ADAPTER_METHODS,
    ROUTE_CALLS,
    AdapterInfo,
    AnyAdapter,
    Route,
    Target,
    Task,
    Unsupported,
)

#: How alike a public method's name must be to ``prepare`` to be taken for its misspelling
#: (``prepair`` 0.86; ``prepared`` 0.93).
_MISSPELT = 0.8


@dataclass(frozen=True)
class Hooks:
    """A checked adapter: its object, its routes by name (each with its calls), its ``prepare``."""

    adapter: AnyAdapter
    routes: Mapping[str, Route]
    prepare: Callable[[Target], None] | None = None

    def route(self, target: Target) -> Route:
        return self.routes[target.route]

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


def _check_spelling(where: str, adapter: object) -> None:
    """A public method named almost like ``prepare`` is a misspelling, not a helper."""
    for name in dir(type(adapter)):
        if (
            name.startswith("_")
            or name in ADAPTER_METHODS
            or not callable(getattr(type(adapter), name, None))
        ):
            continue
        close = difflib.get_close_matches(name, list(ADAPTER_METHODS), n=1, cutoff=_MISSPELT)
        if close:
            raise PluginError(
                f"{where}: it has a method {name!r}, which is no method of the adapter protocol: "
                f"did you mean {close[0]!r}? (a helper of that name: start it with an underscore)"
            )


def _checked_route(where: str, route: Route) -> Route:
    where = f"{where}: route {route.name!r}"
    for name, wanted in ROUTE_CALLS.items():
        call = getattr(route, name)
        if call is not None:
            _check_call(where, name, call, wanted)
    return route


def check(where: str, adapter: object, info: AdapterInfo) -> Hooks:
    """The adapter's calls, or a PluginError naming ``where``, the route and the call at fault."""
    _check_spelling(where, adapter)
    prepare = getattr(adapter, "prepare", None)
    if prepare is not None:
        _check_call(where, "prepare", prepare, ADAPTER_METHODS["prepare"])
    routes = {route.name: _checked_route(where, route) for route in info.routes}
    return Hooks(adapter, routes, prepare)  # type: ignore[arg-type]


def of(adapter: AnyAdapter | Hooks) -> Hooks:
    """``adapter``'s calls: checked now for an adapter object handed over directly (tests, tools)."""
    if isinstance(adapter, Hooks):
        return adapter
    return check(f"adapter {type(adapter).__module__}:{type(adapter).__qualname__}", adapter, adapter.info())
