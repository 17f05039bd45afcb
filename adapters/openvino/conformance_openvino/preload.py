"""OpenVINO imported the way the zygote (``conformance.engine.zygote``) needs it: thread-free.

Why: the zygote imports a route's modules once and forks workers from itself, but only while it
has a single thread. Importing ``openvino`` imports its model converter (``openvino.tools.ovc``),
whose ``__init__`` sends a usage event through ``openvino_telemetry``: the event goes out on a
thread pool, whose thread then waits forever. That one thread was all that kept OpenVINO out of
the zygote (measured here: ``import openvino``, a ``Core``, its CPU plugin loaded and the ONNX
frontend imported leave one thread when the event is not sent), so every worker imported
OpenVINO itself, and each of the 50 workers a full run loses to OpenVINO's known crashes paid
that import again before its first item.

How: ``openvino_telemetry`` sends nothing in CI, which it tells by the environment variable
``CI=true`` (its ``disable_in_ci`` check, asked for by ``openvino.tools.ovc``). The variable is
set for this import only and restored at once: the workers' environment is the user's. The
consent is decided once, though: ``openvino_telemetry.Telemetry`` is one object per process, made
by this import, and a later conversion (``convert_model``) asks that same object. So the process
and the workers forked from it send no telemetry for their conversions either (measured too: the
PyTorch route, which converts on every item, took as long in those workers with ``CI=true`` as
without it, 19.6 against 20.3 ms an item; in a process that imported OpenVINO without this
module, its events doubled that time). Importing this module in a worker that imports OpenVINO
itself changes nothing else. It writes nothing: the consent file OpenVINO's opt-out tool would
write lives in the user's home.

It works only as the process's first import of ``openvino``: a module imported before it that
imports OpenVINO would have started the thread already. The zygote counts its threads before it
forks, so that mistake costs speed (workers are spawned, and ``workers/zygote.log`` says why),
never a deadlock.
"""

from __future__ import annotations

import os

_before = os.environ.get("CI")
os.environ["CI"] = "true"
try:
    import openvino  # type: ignore[import-untyped]  # ships .pyi stubs but no py.typed
    import openvino.frontend  # type: ignore[import-untyped]  # noqa: F401
finally:
    if _before is None:
        os.environ.pop("CI", None)
    else:
        os.environ["CI"] = _before
