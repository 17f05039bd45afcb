"""Route ``paddle2onnx``: a Paddle program exported to ONNX by paddle2onnx and served by ONNX Runtime.

How a PaddlePaddle model usually reaches ONNX Runtime: traced by ``paddle.jit.to_static``, written by
``paddle.jit.save``, exported by ``paddle2onnx.export``. The program is the suite's own
(:func:`conformance.models.paddle_programs.save`, the one the paddle adapter's ``static`` route
runs): input ``x`` (None dims where ``data_shape: dynamic``) and ``axis`` when the case feeds it at
run time, names the ONNX graph keeps.

paddle2onnx is asked for the newest opset it writes, :data:`OPSET` (paddle2onnx/mapper/exporter.cc).
Its ``export`` with no ``save_file`` returns the C++ exporter's bytes and imports nothing beyond
Paddle, so it runs beside the suite's onnx although its metadata asks for onnx<=1.17. The exporter
aborts the process on programs it cannot convert: the worker's isolation makes that one ``crash``.

Needs PaddlePaddle and paddle2onnx beside onnxruntime (the paddle adapter's install, and
``pip install --no-deps paddle2onnx``: see the adapter's pyproject).
"""

from __future__ import annotations

import functools
import os
import tempfile
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

import numpy as np

from conformance.plugin import Route, Target, Task, Unsupported, backend_calls, version_of
from conformance_onnxruntime import transport

if TYPE_CHECKING:
    import onnxruntime  # type: ignore[import-untyped]

    from conformance_onnxruntime.adapter import Settings

#: The newest opset paddle2onnx 2.1 exports (its exporter refuses a larger one by aborting).
OPSET: Final = 21


def options() -> dict[str, str]:
    """The converter's version and the opset it is asked for."""
    return {"paddle2onnx_version": version_of("paddle2onnx"), "paddle2onnx_opset": str(OPSET)}


def _support(task: Task, target: Target) -> Unsupported | None:
    """A missing package (complex data is handed over, and refused by ORT when it loads the model)."""
    install = "install adapters/paddle, and pip install --no-deps paddle2onnx"
    return transport.missing("paddle2onnx", ("paddle", "paddle2onnx"), install)


def _export(task: Task, target: Target) -> bytes:
    """The program saved by ``paddle.jit.save`` and exported at :data:`OPSET`, serialized."""
    import paddle2onnx  # type: ignore[import-untyped]  # paddle2onnx ships no type information

    from conformance.models import paddle_programs

    with tempfile.TemporaryDirectory(prefix="paddle2onnx-") as folder:
        prefix = os.path.join(folder, "model")
        program = paddle_programs.save(task, prefix)
        with backend_calls():
            model: bytes = paddle2onnx.export(program, prefix + ".pdiparams", opset_version=OPSET)
    return model


def warm_up(target: Target) -> None:
    """What every route prepares, and one throwaway export: a process's first imports Paddle and
    paddle2onnx and traces a program (seconds), which would otherwise be timed as one item's build."""
    transport.prepare(target)
    os.environ.setdefault("GLOG_minloglevel", "2")  # Paddle's INFO lines say nothing of an item
    import paddle
    import paddle2onnx
    from paddle.static import InputSpec

    from conformance.models import paddle_programs

    paddle.set_device("cpu")  # type: ignore[attr-defined]  # documented, not in its __all__
    spec = [InputSpec([2], "float32", name="x")]
    program = paddle.jit.to_static(paddle_programs.warm_split, input_spec=spec)
    with tempfile.TemporaryDirectory(prefix="paddle2onnx-") as folder:
        prefix = os.path.join(folder, "model")
        paddle.jit.save(program, prefix)
        paddle2onnx.export(prefix + ".json", prefix + ".pdiparams", opset_version=OPSET)


def _run(compiled: onnxruntime.InferenceSession, task: Task) -> Sequence[np.ndarray]:
    """Feeds the run's inputs by the names the program gave them (``x``, ``axis``)."""
    from conformance.models import paddle_programs

    return transport.run(compiled, paddle_programs.feeds(task))


def _reproducer(settings: Settings, task: Task, target: Target) -> str:
    """The program traced from its file, saved, exported as the route exports it, and one session
    run per run."""
    from conformance import reproducers
    from conformance.models import paddle_programs

    body = (
        "import importlib.util\nimport pathlib\nimport tempfile\n\n"
        "import onnxruntime as ort\nimport paddle\nimport paddle2onnx\n"
        "from paddle.static import InputSpec\n\n"
        f"{paddle_programs.program_code(task)}"
        "paddle.jit.save(program, str(folder / 'model'))\n"
        "model = paddle2onnx.export(str(folder / 'model.json'), str(folder / 'model.pdiparams'), "
        f"opset_version={OPSET})\n"
        f"{settings.session_code(task)}"
    )
    return body + reproducers.session_runs_code(task, paddle_programs.feeds, "session")


def route(settings: Settings) -> Route:
    """The route, its sessions made with the adapter's ``settings``."""
    return Route(
        "paddle2onnx",
        ("paddle.*",),
        f"the paddle.jit.to_static program saved by paddle.jit.save, exported by paddle2onnx.export "
        f"(opset {OPSET}), run by an InferenceSession",
        build=_export,
        compile=settings.session,
        run=_run,
        support=_support,
        reproducer=functools.partial(_reproducer, settings),
        prepare=warm_up,
        own_worker="the export imports Paddle, which segfaults imported after TensorFlow",
        default=False,
    )
