"""The PaddlePaddle adapter: paddle.split, tensor_split, chunk, hsplit, vsplit and dsplit on the CPU.

Routes (both build their call with :mod:`conformance.models.paddle_programs`, the builder ONNX
Runtime's ``paddle2onnx`` route exports from, so that all of them judge one program):

``eager``
    The function called in Paddle's dynamic mode on a tensor of the case's data, the way a user
    calls it: the axis a Python int (a 0-D Tensor when the case types it or feeds it), a count an
    int, sizes and indices a list. There is no graph, so ``data_shape`` changes nothing here.
``static``
    The same function traced by ``paddle.jit.to_static`` (``full_graph=True``) with an ``InputSpec``
    whose dims are None where the case declares them dynamic, the axis an input when the case feeds
    it; every run of the case calls that one traced program with its own data and axis.

Refusals are Paddle's: tracing and calls reach it inside ``backend_calls``; nothing here checks a
request. Paddle aborts the process on some requests (a negative count to ``paddle.split``): the
worker dies, and the engine records that one item as a crash. Options: ``device`` (``cpu``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from conformance import reproducers
from conformance.plugin import (
    AdapterInfo,
    AdapterOptions,
    Route,
    Target,
    Task,
    installed_distribution,
)

NAME = "paddle"
DEVICES = ("cpu",)
_OPS = ("paddle.*",)


def build_eager(task: Task, target: Target) -> None:
    """Nothing to build: an eager call."""


def run_eager(model: None, task: Task) -> Sequence[np.ndarray]:
    from conformance.models import paddle_programs

    return paddle_programs.eager(task)


def build_static(task: Task, target: Target) -> Any:
    """The traced program (tracing is timed as the build)."""
    from conformance.models import paddle_programs

    return paddle_programs.static_function(task)


def run_static(model: Any, task: Task) -> Sequence[np.ndarray]:
    from conformance.models import paddle_programs

    return paddle_programs.run_static(model, task)


def eager_reproducer(task: Task, target: Target) -> str:
    """The Paddle call on the case's data, once per run."""
    from conformance.models import paddle_programs

    body = "import paddle\n\n" + paddle_programs.CONVERT_CODE
    for run in task.every_run:
        body += (
            f"{reproducers.run_heading(run)}{reproducers.array_code(run.data)}\nx = tensor(data)\n"
            f"pieces = {paddle_programs.call_code(run, paddle_programs.axis_code(run))}\n"
            "print([list(piece.shape) for piece in pieces])\n"
        )
    return body


def static_reproducer(task: Task, target: Target) -> str:
    """The function in a file (to_static reads its source), traced with the route's InputSpec, run per run."""
    from conformance.models import paddle_programs

    body = (
        "import importlib.util\nimport pathlib\nimport tempfile\n\n"
        "import paddle\nfrom paddle.static import InputSpec\n\n"
        + paddle_programs.CONVERT_CODE
        + paddle_programs.program_code(task)
    )
    for run in task.every_run:
        fed = f", {paddle_programs.axis_code(run)}" if paddle_programs.axis_fed(task) else ""
        arguments = f"tensor(data){fed}"
        body += (
            f"{reproducers.run_heading(run)}{reproducers.array_code(run.data)}\n"
            f"pieces = program({arguments})\nprint([list(piece.shape) for piece in pieces])\n"
        )
    return body


def _prepare_eager(target: Target) -> None:
    """Import Paddle on the CPU with its log quiet, and make one call: the first of a process costs
    far more than any later one and would land on one item."""
    os.environ.setdefault("GLOG_minloglevel", "2")  # the executor's INFO lines say nothing of an item
    import paddle

    paddle.set_device("cpu")  # type: ignore[attr-defined]  # documented, not in its __all__
    threads = int(os.environ.get("CONFORMANCE_THREADS", "0") or 0)
    if threads:
        paddle.set_num_threads(threads) if hasattr(paddle, "set_num_threads") else None
    paddle.split(paddle.zeros([2]), 2)


def _prepare_static(target: Target) -> None:
    """What the eager route prepares, and one trace: the first of a process is the slowest."""
    _prepare_eager(target)
    import paddle
    from paddle.static import InputSpec

    from conformance.models import paddle_programs

    warm = paddle.jit.to_static(paddle_programs.warm_split, input_spec=[InputSpec([None], "float32")])
    warm(paddle.zeros([2]))


#: Paddle segfaults when imported into a process that has imported TensorFlow (the other order
#: works): its routes get workers of their own
APART = "Paddle segfaults imported after TensorFlow"

ROUTES = (
    Route(
        "eager",
        _OPS,
        "the Paddle function called in dynamic mode on a tensor of the data",
        build=build_eager,
        run=run_eager,
        reproducer=eager_reproducer,
        prepare=_prepare_eager,
        own_worker=APART,
        imports=("paddle",),
    ),
    Route(
        "static",
        _OPS,
        "the function traced by paddle.jit.to_static with the case's InputSpec (None dims where dynamic), "
        "run as the traced program",
        build=build_static,
        run=run_static,
        reproducer=static_reproducer,
        prepare=_prepare_static,
        own_worker=APART,
        imports=("paddle",),
        default=False,  # tracing costs about 0.25 s an item: nox -s extra_targets runs it
    ),
)


class PaddleAdapter:
    """Runs the paddle.* ops through PaddlePaddle; see the module docstring for the routes."""

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = AdapterOptions.parse(options, devices=DEVICES)

    def info(self) -> AdapterInfo:
        """The distribution that installed Paddle (``paddlepaddle``, the CPU wheel) and its version,
        read from the installed metadata: importing Paddle in the run's main process costs 2 s."""
        found = installed_distribution("paddle")
        if found is None:
            raise ModuleNotFoundError("PaddlePaddle is not installed (python -m pip install paddlepaddle)")
        distribution, version = found
        return AdapterInfo(NAME, distribution, version, ROUTES, self.options.devices, self.options.resolved)
