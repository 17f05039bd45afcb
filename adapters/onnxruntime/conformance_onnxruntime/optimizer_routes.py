"""Routes ``onnxsim``, ``onnxslim``, ``onnxoptimizer``: the case's ONNX model rewritten by a graph
optimizer, then served by ONNX Runtime exactly as route ``default`` serves the original.

Many deployments pass a model through onnx-simplifier, onnxslim or onnx/optimizer before a runtime
sees it. Each route passes the bytes route ``default`` builds (SplitToSequence included) through
the tool with its defaults, then creates and runs the session as ``default`` does, so a finding
here and not on ``default`` for the same item is the optimizer's own. The calls (recorded, with
each tool's version, in every results file):

- ``onnxsim``: ``onnxsim.simplify(model)``, every keyword at its default (``check_n=0``: no
  comparison run of its own, so its ``ok`` flag means nothing and is ignored).
- ``onnxslim``: ``onnxslim.slim(model)``, every keyword at its default.
- ``onnxoptimizer``: ``onnxoptimizer.optimize(model, passes)`` with every pass
  ``onnxoptimizer.get_fuse_and_elimination_passes()`` lists (its own notion of the safe set).

A tool that raises refuses the model: the exception is the backend's, judged like any refusal. A
missing tool makes the route's items unsupported, naming the pip extra that installs it.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import io
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Final

from conformance.plugin import Route, Target, Task, Unsupported, backend_calls, version_of
from conformance_onnxruntime import transport

if TYPE_CHECKING:
    import onnx

    from conformance_onnxruntime.adapter import Settings


@dataclass(frozen=True)
class Tool:
    """One optimizer: its route's name and description, whether the route is in the default run
    (not onnxsim: about 19 ms an item, and seconds of imports per worker), the distribution that
    ships it, and the call the route makes, as the results' options record it."""

    name: str
    what: str
    default: bool
    distribution: str
    call: str
    #: the call as a reproducer writes it, from ``original`` to ``optimized``
    statement: str
    #: the call on a loaded model, given the tool's imported module (the tools ship no type hints)
    apply: Callable[[Any, onnx.ModelProto], onnx.ModelProto]
    #: the ops its route runs
    ops: tuple[str, ...] = ("onnx.Split*", "onnx.Slice-*")

    def route(self, settings: Settings, support: Callable[[Task, Target], Unsupported | None]) -> Route:
        """The tool's model, then a session as route ``default`` makes it (``settings``);
        ``support``: route ``default``'s refusals, once the tool is there."""
        return Route(
            self.name,
            self.ops,
            f"the ONNX model passed through {self.what}, then run by an InferenceSession as route "
            "default runs it",
            build=functools.partial(optimize, self),
            compile=settings.session,
            run=transport.run_onnx,
            support=functools.partial(_support, self.name, support),
            reproducer=functools.partial(_reproducer, self.name, settings),
            prepare=functools.partial(warm_up, self.name),
            default=self.default,
            imports=("onnx", "onnxruntime", self.name),
        )


TOOLS: Final = {
    tool.name: tool
    for tool in (
        Tool(
            "onnxsim",
            "onnxsim.simplify (defaults)",
            False,
            "onnxsim",
            "onnxsim.simplify(model) with its defaults",
            "optimized, _ = onnxsim.simplify(original)",
            lambda onnxsim, model: onnxsim.simplify(model)[0],
        ),
        Tool(
            "onnxslim",
            "onnxslim.slim (defaults)",
            True,
            "onnxslim",
            "onnxslim.slim(model) with its defaults",
            "optimized = onnxslim.slim(original)",
            lambda onnxslim, model: onnxslim.slim(model),
        ),
        Tool(
            "onnxoptimizer",
            "onnxoptimizer.optimize (fuse-and-elimination passes)",
            True,
            "onnxoptimizer",
            "onnxoptimizer.optimize(model, onnxoptimizer.get_fuse_and_elimination_passes())",
            "optimized = onnxoptimizer.optimize(original, onnxoptimizer.get_fuse_and_elimination_passes())",
            lambda onnxoptimizer, model: onnxoptimizer.optimize(
                model, onnxoptimizer.get_fuse_and_elimination_passes()
            ),
        ),
    )
}


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
        found[f"{name}_version"] = version_of(tool.distribution)
        found[f"{name}_call"] = tool.call
    found["onnxoptimizer_passes"] = ",".join(passes()) or "not installed"
    return found


def _support(
    route: str, support: Callable[[Task, Target], Unsupported | None], task: Task, target: Target
) -> Unsupported | None:
    """A missing tool, with the extra that installs it; the rest is route ``default``'s to refuse."""
    missing = transport.missing(route, (route,), f"pip install adapters/onnxruntime[{route}]")
    return missing or support(task, target)


def optimize(tool: Tool, task: Task, target: Target) -> bytes:
    """Route ``default``'s model bytes through the tool; what the tool raises is its refusal, and
    what it prints (progress tables) is dropped."""
    import onnx

    from conformance.models import onnx_graphs

    model = onnx.load_model_from_string(onnx_graphs.model_bytes(task))
    with backend_calls(), contextlib.redirect_stdout(io.StringIO()):
        optimized = tool.apply(importlib.import_module(tool.name), model)
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

    load = (
        "original = onnx.load_model_from_string(original)\n"
        f"{TOOLS[route].statement}\n"
        "model = optimized.SerializeToString()\n"
        f"{settings.session_code(task)}"
    )
    imports = f"import onnx\nimport onnxruntime as ort\nimport {route}\n\n"
    call = reproducers.session_call("session", sequence=onnx_graphs.is_sequence(task.op))
    return onnx_graphs.snippet(task, imports, load, call, variable="original")
