"""ONNX Runtime, imported with its usage telemetry off, so that a worker may pass it to the zygote.

Why: the zygote imports what the workers imported and forks later workers from itself, but only
while it has one thread. Since 1.29, ONNX Runtime's Linux and macOS packages start a telemetry
uploader thread when the module loads (microsoft/onnxruntime pull request 27379), unless
``ORT_DISABLE_TELEMETRY=1`` is set then or the process runs in CI or a unit test; the choice holds
for the process's lifetime. So outside CI every worker imported ONNX Runtime itself. The variable
is set for this import only: a conformance run is a test run, left untracked as ONNX Runtime
leaves its own tests and CI.

It must be the process's first import of onnxruntime: the adapter's constructor imports it before
anything else does. A mistake costs speed, never a deadlock: the zygote counts its threads before
it forks.
"""

from __future__ import annotations

from conformance.plugin import import_with_environment

onnxruntime = import_with_environment("onnxruntime", {"ORT_DISABLE_TELEMETRY": "1"})
