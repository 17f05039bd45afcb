"""The adapter: how the conformance suite drives ACME's split kernels.

One route, ``kernels``, runs the five ops ACME has kernels for (torch.split, tensor_split and
chunk, numpy.split and array_split) by calling the kernel of the same name with the request
exactly as the case states it: an int or a list, and the axis only when the case gives one (so
the kernel's default is what gets judged). The route names those ops one by one rather than
``torch.*``: a route claims every op its globs match, and the suite's catalogue grows (hsplit,
vsplit ...), so a glob would hand the adapter ops it has no kernel for. Validation is the
backend's job: the adapter passes invalid requests through and lets the backend's exception
reach the suite, which judges it against the spec (a pass where the spec rejects, an ``error``
where it accepts).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from acme_conformance import kernels
from conformance import reproducers
from conformance.plugin import AdapterInfo, AdapterOptions, Route, Target, Task, backend_calls

NAME = "acme"
DEVICES = ("cpu",)
KERNELS: dict[str, Callable[..., kernels.Pieces]] = {
    "torch.split": kernels.torch_split,
    "torch.tensor_split": kernels.torch_tensor_split,
    "torch.chunk": kernels.torch_chunk,
    "numpy.split": kernels.numpy_split,
    "numpy.array_split": kernels.numpy_array_split,
}


@dataclass(frozen=True)
class Call:
    """The "model": a kernel with its arguments, built once and run many times."""

    kernel: Callable[..., kernels.Pieces]
    argument: int | list[int]
    keywords: Mapping[str, Any] = field(default_factory=dict)

    def __call__(self, data: np.ndarray) -> kernels.Pieces:
        # The kernels live in this package too, so say that what they raise is the backend's.
        with backend_calls():
            return self.kernel(data, self.argument, **self.keywords)


def build(task: Task, target: Target) -> Call:
    """The call exactly as the case states it; a wrong request is the kernel's to reject."""
    value, axis = task.request.form.value, task.request.axis  # value: an int (parts, size) or a tuple
    argument = list(value) if isinstance(value, tuple) else value
    keyword = "axis" if task.op.startswith("numpy.") else "dim"
    keywords = {} if axis is None else {keyword: axis}
    return Call(KERNELS[task.op], argument, keywords)


def run(model: Call, task: Task) -> Sequence[np.ndarray]:
    """No ``compile`` call: nothing to load on the host (a device backend would upload there)."""
    return model(task.data)


def reproducer(task: Task, target: Target) -> str:
    """Statements that redo the task with the backend alone, for the report's reproducers."""
    return snippet(task, build(task, target))


def snippet(task: Task, call: Call) -> str:
    """``call`` written out: the kernel on the task's data."""
    keywords = "".join(f", {key}={value!r}" for key, value in call.keywords.items())
    return (
        f"{reproducers.array_code(task.data)}\n"
        "from acme_conformance import kernels\n"
        f"pieces = kernels.{call.kernel.__name__}(data, {call.argument!r}{keywords})\n"
        "print([piece.shape for piece in pieces])\n"
    )


ROUTE = Route(
    "kernels",
    tuple(KERNELS),
    "ACME's split kernels, called as a user calls them",
    build=build,
    run=run,
    reproducer=reproducer,
)


class AcmeAdapter:
    """ACME's kernels as a conformance target; options: ``device`` (only ``cpu`` exists)."""

    def __init__(self, options: Mapping[str, str]) -> None:
        # Unknown keys and devices are refused: a misspelt one must not leave a certification on its
        # defaults, or every item unsupported.
        self.options = AdapterOptions.parse(options, devices=DEVICES)

    def info(self) -> AdapterInfo:
        return AdapterInfo(
            name=NAME,
            backend="acme-kernels",
            version=kernels.__version__,
            routes=(ROUTE,),
            devices=self.options.devices,
            options=self.options.resolved,
        )
