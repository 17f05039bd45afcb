"""An adapter's methods, checked once when it is loaded and then called by name, never looked up.

The protocol (:class:`conformance.plugin.Adapter`) has three methods and four optional hooks
(:class:`conformance.plugin.OptionalHooks`). Looking the optional ones up with ``getattr`` at
the moment of use hid mistakes: a misspelt ``prepair`` was silently never called, and a
``reproducer`` with the wrong parameters surfaced as a comment in a report. Here every method an
adapter has is compared with the protocol's own signature when it is loaded, and a public method
whose name is one letter or two away from a hook's is refused as a misspelling, so a vendor learns
of it from the first ``conformance adapters``.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from conformance.errors import PluginError
from conformance.plugin import (
    OPTIONAL_HOOKS,
    REQUIRED_METHODS,
    Adapter,
    AnyAdapter,
    OptionalHooks,
    Target,
    Task,
    Unsupported,
)

#: How alike a public method's name must be to a hook's to be taken for its misspelling
#: (``prepair``/``prepare`` 0.86, ``reproduce``/``reproducer`` 0.95; ``unsupported``/``support`` 0.78).
_MISSPELT = 0.8


def _parameters(protocol: type, name: str) -> list[str]:
    """The parameter names the protocol gives method ``name``, without ``self``."""
    return list(inspect.signature(getattr(protocol, name)).parameters)[1:]


#: Each method's parameters, read from the protocols themselves (one statement of the contract).
SIGNATURES: dict[str, list[str]] = {
    **{name: _parameters(Adapter, name) for name in REQUIRED_METHODS},
    **{name: _parameters(OptionalHooks, name) for name in OPTIONAL_HOOKS},
}


@dataclass(frozen=True)
class Hooks:
    """A checked adapter: its object, and each optional hook it has (None where it has none)."""

    adapter: AnyAdapter
    support: Callable[[Task, Target], Unsupported | None] | None = None
    compile: Callable[[Any, Target], Any] | None = None
    prepare: Callable[[Target], None] | None = None
    reproducer: Callable[[Task, Target], str | None] | None = None

    def unsupported(self, task: Task, target: Target) -> Unsupported | None:
        """The adapter's refusal, if it has a ``support`` hook and refuses."""
        return None if self.support is None else self.support(task, target)

    def compiled(self, model: Any, target: Target) -> Any:
        """What ``run`` receives: the compiled model, or the model itself without ``compile``."""
        return model if self.compile is None else self.compile(model, target)


def _check_signature(where: str, name: str, method: Any) -> None:
    wanted = SIGNATURES[name]
    if not callable(method):
        raise PluginError(
            f"{where}: {name} is a {type(method).__name__}, not a method {name}({', '.join(wanted)})"
        )
    try:
        signature = inspect.signature(method)
    except (TypeError, ValueError):  # a builtin without a signature: it will say so when called
        return
    try:
        signature.bind(*wanted)
    except TypeError as error:
        raise PluginError(
            f"{where}: its {name}({', '.join(signature.parameters)}) cannot be called as "
            f"{name}({', '.join(wanted)}) ({error}); "
            f"see conformance.plugin.{'Adapter' if name in REQUIRED_METHODS else 'OptionalHooks'}.{name}"
        ) from None


def _check_spelling(where: str, adapter: object) -> None:
    """A public method named almost like a hook is a misspelling, not a helper."""
    for name in dir(type(adapter)):
        if name.startswith("_") or name in SIGNATURES or not callable(getattr(type(adapter), name, None)):
            continue
        close = difflib.get_close_matches(name, list(SIGNATURES), n=1, cutoff=_MISSPELT)
        if close:
            raise PluginError(
                f"{where}: it has a method {name!r}, which is no method of the adapter protocol: "
                f"did you mean {close[0]!r}? (a helper of that name: start it with an underscore)"
            )


def check(where: str, adapter: object) -> Hooks:
    """The adapter's hooks, or a PluginError naming ``where`` and the method at fault."""
    missing = [name for name in REQUIRED_METHODS if getattr(adapter, name, None) is None]
    if missing:
        raise PluginError(f"{where} lacks {', '.join(missing)}; see conformance.plugin.Adapter")
    _check_spelling(where, adapter)
    found: dict[str, Any] = {}
    for name in (*REQUIRED_METHODS, *OPTIONAL_HOOKS):
        method = getattr(adapter, name, None)
        if method is None:
            continue
        _check_signature(where, name, method)
        if name in OPTIONAL_HOOKS:
            found[name] = method
    return Hooks(adapter, **found)  # type: ignore[arg-type]


def of(adapter: AnyAdapter | Hooks) -> Hooks:
    """``adapter``'s hooks: checked now for an adapter object handed over directly (tests, tools)."""
    if isinstance(adapter, Hooks):
        return adapter
    return check(f"adapter {type(adapter).__module__}:{type(adapter).__qualname__}", adapter)
