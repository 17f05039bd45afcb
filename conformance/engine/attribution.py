"""Who raised it: the backend, the adapter's own code, or the suite's model builders.

Only a backend's exception is a refusal the spec can ask for; an adapter whose table lookup fails
on an invalid case has not rejected anything, and must not pass. In this order:

1. :class:`~conformance.plugin.AdapterError` is the adapter's; :class:`~conformance.plugin.BackendRefusal`,
   or anything that left a :func:`~conformance.plugin.backend_calls` block, the backend's;
2. types that are never a refusal (``NotImplementedError``, a failed import, ...) the adapter's;
3. from the adapter's first frame inward, the first frame outside the adapter and the harness
   decides: ``conformance.models`` means the request cannot be built, any other package that
   the backend refused;
4. else the innermost frame: a call into native code is the backend's, unless Python refused the
   call's arguments; anything else (a ``raise``, a failed lookup) is the adapter's defect.
"""

from __future__ import annotations

import dis
import re
import types
from dataclasses import dataclass

from conformance.oracle.judging import Origin
from conformance.plugin import BACKEND_ORIGIN_ATTRIBUTE, AdapterError, BackendRefusal

#: Exception types no spec rejection takes the form of.
_NEVER_REFUSALS = (NotImplementedError, ImportError, NameError, AssertionError, SyntaxError)
#: Python's own words when a call's arguments do not fit the callee's signature.
_BAD_CALL = re.compile(
    r"unexpected keyword argument|positional argument|required (positional|keyword)|"
    r"takes no keyword arguments|got multiple values for"
)
#: The suite's model builders: their own exceptions mean a request cannot be built.
_BUILDERS = "conformance.models"
#: The suite's own frames between the executor and the adapter: the engine and the hooks it calls.
_HARNESS = ("conformance.engine.", "conformance.loading.")


@dataclass(frozen=True)
class Attribution:
    origin: Origin
    #: the module of the frame that decided (where the exception was raised, or the package called)
    module: str


def _frames(error: BaseException) -> list[types.TracebackType]:
    frames = []
    tb = error.__traceback__
    while tb is not None:
        frames.append(tb)
        tb = tb.tb_next
    return frames


def _module(tb: types.TracebackType) -> str:
    return str(tb.tb_frame.f_globals.get("__name__", "?"))


def _called_out(tb: types.TracebackType) -> bool:
    """Whether the frame's last instruction is a call (into native code: a Python one has a frame)."""
    for instruction in dis.get_instructions(tb.tb_frame.f_code):
        if instruction.offset == tb.tb_lasti:
            return instruction.opname.startswith("CALL")
    return False


def attribute(error: BaseException, adapter_module: str) -> Attribution:
    """Where ``error``, caught by the executor around an adapter call, came from."""
    frames = _frames(error)
    innermost = _module(frames[-1]) if frames else "?"
    if isinstance(error, AdapterError):
        return Attribution("adapter", innermost)
    if isinstance(error, BackendRefusal) or getattr(error, BACKEND_ORIGIN_ATTRIBUTE, False):
        return Attribution("backend", innermost)
    if isinstance(error, _NEVER_REFUSALS):
        return Attribution("adapter", innermost)
    adapter_package = adapter_module.split(".")[0]
    own = [tb for tb in frames if not _module(tb).startswith(_HARNESS)]
    for tb in own:
        module = _module(tb)
        if module.startswith(_BUILDERS):
            return Attribution("suite", module)
        package = module.split(".")[0]
        if package not in (adapter_package, "conformance"):
            return Attribution("backend", module)
    last = own[-1] if own else None
    if last is None or not _called_out(last):
        return Attribution("adapter", innermost)
    if isinstance(error, TypeError) and _BAD_CALL.search(str(error)):
        return Attribution("adapter", innermost)
    return Attribution("backend", innermost)
