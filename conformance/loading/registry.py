"""Locating adapters: entry points of the group ``conformance.adapters``, validated when loaded.

An adapter is named by its entry-point name (``openvino``) or, not installed, by an import
reference (``my_pkg.adapter:MyAdapter``). Loading checks what the executor relies on, so a
broken third-party adapter is reported by name rather than as a crash deep in a run.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from conformance.corpus import catalogue
from conformance.errors import PluginError
from conformance.loading import hooks
from conformance.plugin import ENTRY_POINT_GROUP, Adapter, AdapterInfo, Route, Target


@dataclass(frozen=True)
class LoadedAdapter:
    """An adapter instance with what it said of itself."""

    #: how the user named it: an entry-point name (``openvino``) or an import path
    requested: str
    #: the ``module:attribute`` it was imported from
    import_path: str
    adapter: Adapter
    info: AdapterInfo
    #: its methods, checked against the protocol when it was loaded
    hooks: hooks.Hooks

    def targets(self) -> list[Target]:
        return [
            Target(self.info.name, route.name, device)
            for route in self.info.routes
            for device in self.info.devices
        ]

    def route(self, name: str) -> Route:
        """The route of that name, as ``info()`` declared it (KeyError when there is none)."""
        for candidate in self.info.routes:
            if candidate.name == name:
                return candidate
        raise KeyError(name)

    def route_ops(self, route: str) -> list[str]:
        return catalogue.match(self.route(route).ops)


def installed() -> dict[str, str]:
    """Entry-point name -> ``module:attr`` for every registered adapter."""
    return {entry.name: entry.value for entry in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def _resolve(spec: str) -> tuple[str, Any]:
    registered = installed()
    reference = registered.get(spec, spec)
    if ":" not in reference:
        known = ", ".join(sorted(registered)) or "none"
        raise PluginError(
            f"no adapter named {spec!r} is installed (installed: {known}); "
            f"name an entry point or give module:attribute"
        )
    module_name, _, attribute = reference.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
        for part in attribute.split("."):
            target = getattr(target, part)
    except Exception as error:  # any import-time failure of third-party code
        raise PluginError(
            f"adapter {spec!r} ({reference}) failed to import: {type(error).__name__}: {error}"
        ) from error
    return reference, target


def load(spec: str, options: Mapping[str, str] | None = None) -> LoadedAdapter:
    """Import, construct and validate the adapter named ``spec``."""
    reference, factory = _resolve(spec)
    where = f"adapter {spec!r} ({reference})"
    if not callable(factory):
        raise PluginError(
            f"{where} is not callable: it must be a class or factory taking the options mapping"
        )
    try:
        adapter = factory(dict(options or {}))
    except Exception as error:
        raise PluginError(f"{where} could not be constructed: {type(error).__name__}: {error}") from error
    if not callable(getattr(adapter, "info", None)):
        raise PluginError(f"{where} lacks info(); see conformance.plugin.Adapter")
    try:
        info = adapter.info()
    except Exception as error:
        raise PluginError(f"{where}: info() raised {type(error).__name__}: {error}") from error
    _check_info(where, spec, reference, info)
    return LoadedAdapter(spec, reference, adapter, info, hooks.check(where, adapter, info))


def _check_info(where: str, spec: str, reference: str, info: object) -> None:
    if not isinstance(info, AdapterInfo):
        raise PluginError(
            f"{where}: info() returned {type(info).__name__}, not conformance.plugin.AdapterInfo"
        )
    if spec != reference and info.name != spec:
        raise PluginError(f"{where}: registered as {spec!r} but calls itself {info.name!r}")
    if not info.routes:
        raise PluginError(f"{where}: info() lists no routes")
    if not info.devices:
        raise PluginError(f"{where}: info() lists no devices")
    for route in info.routes:
        if not catalogue.match(route.ops):
            raise PluginError(
                f"{where}: route {route.name!r} runs {list(route.ops)}, which match no op "
                f"(known: {', '.join(catalogue.OPS)})"
            )
    names = [route.name for route in info.routes]
    if len(set(names)) != len(names):
        raise PluginError(f"{where}: route names repeat: {names}")
