"""Routes ``onnxsim``, ``onnxslim``, ``onnxoptimizer``: the case's ONNX model rewritten by a graph
optimizer, then served by ONNX Runtime exactly as route ``default`` serves the original.

Many deployments never hand a runtime the model an exporter wrote: they pass it through
onnx-simplifier, onnxslim or onnx/optimizer first. Each route starts from the bytes route
``default`` builds (:func:`conformance.models.onnx_graphs.model_bytes`, SplitToSequence
included), passes them through the tool with its defaults, and creates and runs the session as
``default`` does (same providers, optimization level and threads). So a finding that appears here
and not on ``default`` for the same item is the optimizer's own: it changed what the model answers.

The calls (recorded, with each tool's version, in every results file):

- ``onnxsim``: ``onnxsim.simplify(model)``, every keyword at its default (``check_n=0``: no
  comparison run of its own). Its ``ok`` flag is only meaningful when it checks, so it is ignored.
- ``onnxslim``: ``onnxslim.slim(model)``, every keyword at its default.
- ``onnxoptimizer``: ``onnxoptimizer.optimize(model, passes)`` with every pass
  ``onnxoptimizer.get_fuse_and_elimination_passes()`` lists (its own notion of the safe set).

A tool that raises refuses the model: the exception is the backend's (judged like any refusal,
so a refusal the spec asks for passes and one of a valid model is an error). A missing tool makes
the route's items unsupported, naming the pip extra that installs it.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import io
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from typing import TYPE_CHECKING, Final

from conformance.plugin import Route, Target, Task, Unsupported, backend_calls
from conformance_onnxruntime import transport
from conformance_onnxruntime.transport import run_onnx

if TYPE_CHECKING:
    import onnx

    from conformance_onnxruntime.adapter import Settings


@dataclass(frozen=True)
class Tool:
    """One optimizer: its route's name and description, the distribution that ships it and the
    call the route makes. ``default``: off the default run when the tool costs more than 20 ms per item
    (onnxsim: about 19 ms per item plus seconds of imports per worker; onnxslim about 5 ms,
    onnxoptimizer under 1 ms)."""

    name: str
    what: str
    default: bool
    distribution: str
    #: how the route calls the tool, recorded in the results' adapter options
    call: str

    def route(self, settings: Settings, support: Callable[[Task, Target], Unsupported | None]) -> Route:
        """The route over every onnx.* op: the tool's model, then a session as route ``default``
        makes it (``settings``); ``support``: route ``default``'s refusals, once the tool is there."""
        return Route(
            self.name,
            ("onnx.*",),
            f"the ONNX model passed through {self.what}, then run by an InferenceSession as route "
            "default runs it",
            build=self._optimize,
            compile=settings.session,
            run=run_onnx,
            support=functools.partial(_support, self.name, support),
            reproducer=functools.partial(_reproducer, self.name, settings),
            prepare=functools.partial(warm_up, self.name),
            default=self.default,
        )

    def _optimize(self, task: Task, target: Target) -> bytes:
        return optimize(task, self.name)


TOOLS: Final = {
    tool.name: tool
    for tool in (
        Tool(
            "onnxsim",
            "onnxsim.simplify (defaults)",
            False,
            "onnxsim",
            "onnxsim.simplify(model) with its defaults",
        ),
        Tool(
            "onnxslim",
            "onnxslim.slim (defaults)",
            True,
            "onnxslim",
            "onnxslim.slim(model) with its defaults",
        ),
        Tool(
            "onnxoptimizer",
            "onnxoptimizer.optimize (fuse-and-elimination passes)",
            True,
            "onnxoptimizer",
            "onnxoptimizer.optimize(model, onnxoptimizer.get_fuse_and_elimination_passes())",
        ),
    )
}


def routes(settings: Settings, support: Callable[[Task, Target], Unsupported | None]) -> tuple[Route, ...]:
    """Every tool's route (see :meth:`Tool.route`)."""
    return tuple(tool.route(settings, support) for tool in TOOLS.values())


def installed(name: str) -> bool:
    """Whether the route's tool can be imported (found, not imported: onnxsim takes seconds)."""
    return importlib.util.find_spec(name) is not None


@cache
def passes() -> tuple[str, ...]:
    """The passes route ``onnxoptimizer`` runs, as this onnxoptimizer lists them; empty without it.
    The module is small and starts no thread, so reading the list in the parent is cheap."""
    if not installed("onnxoptimizer"):
        return ()
    import onnxoptimizer  # type: ignore[import-untyped]  # onnxoptimizer ships no type information

    return tuple(onnxoptimizer.get_fuse_and_elimination_passes())


def options() -> dict[str, str]:
    """Each tool's version and call (and onnxoptimizer's pass list), as every results file records them."""
    found: dict[str, str] = {}
    for name, tool in TOOLS.items():
        try:
            found[f"{name}_version"] = metadata.version(tool.distribution)
        except metadata.PackageNotFoundError:
            found[f"{name}_version"] = "not installed"
        found[f"{name}_call"] = tool.call
    found["onnxoptimizer_passes"] = ",".join(passes()) or "not installed"
    return found


def _support(
    route: str, support: Callable[[Task, Target], Unsupported | None], task: Task, target: Target
) -> Unsupported | None:
    """A missing tool, with the extra that installs it; the rest is route ``default``'s to refuse."""
    if installed(route):
        return support(task, target)
    return Unsupported(f"route {route} needs {route}: pip install adapters/onnxruntime[{route}]")


def _simplify(model: onnx.ModelProto) -> onnx.ModelProto:
    import onnxsim  # type: ignore[import-untyped]  # onnxsim ships no type information

    simplified, _ = onnxsim.simplify(model)
    result: onnx.ModelProto = simplified
    return result


def _slim(model: onnx.ModelProto) -> onnx.ModelProto:
    import onnxslim  # type: ignore[import-untyped]  # onnxslim's annotations are not checked here

    result: onnx.ModelProto = onnxslim.slim(model)
    return result


def _optimize(model: onnx.ModelProto) -> onnx.ModelProto:
    import onnxoptimizer

    result: onnx.ModelProto = onnxoptimizer.optimize(model, list(passes()))
    return result


_CALLS: Final[dict[str, Callable[[onnx.ModelProto], onnx.ModelProto]]] = {
    "onnxsim": _simplify,
    "onnxslim": _slim,
    "onnxoptimizer": _optimize,
}


def optimize(task: Task, route: str) -> bytes:
    """Route ``default``'s model bytes through the tool; what the tool raises is its refusal, and
    what it prints (progress tables) is dropped."""
    import onnx

    from conformance.models import onnx_graphs

    model = onnx.load_model_from_string(onnx_graphs.model_bytes(task))
    with backend_calls(), contextlib.redirect_stdout(io.StringIO()):
        optimized = _CALLS[route](model)
    serialized: bytes = optimized.SerializeToString()
    return serialized


def warm_up(route: str, target: Target) -> None:
    """What every route prepares, and the tool imported before the first item is timed (onnxsim
    loads torch and onnxruntime: seconds)."""
    transport.prepare(target)
    if installed(route):
        importlib.import_module(route)


def _reproducer(route: str, settings: Settings, task: Task, target: Target) -> str:
    """The original model byte for byte, the tool's call as the route makes it, and the session
    as route ``default`` makes it (from the bytes in ``model``)."""
    from conformance import reproducers
    from conformance.models import onnx_graphs

    calls = {
        "onnxsim": "optimized, _ = onnxsim.simplify(original)",
        "onnxslim": "optimized = onnxslim.slim(original)",
        "onnxoptimizer": (
            "optimized = onnxoptimizer.optimize(original, onnxoptimizer.get_fuse_and_elimination_passes())"
        ),
    }
    load = (
        "original = onnx.load_model_from_string(original)\n"
        f"{calls[route]}\n"
        "model = optimized.SerializeToString()\n"
        f"{settings.session_code(task)}"
    )
    imports = f"import onnx\nimport onnxruntime as ort\nimport {route}\n\n"
    call = reproducers.session_call("session", sequence=onnx_graphs.is_sequence(task.op))
    return onnx_graphs.snippet(task, imports, load, call, variable="original")
