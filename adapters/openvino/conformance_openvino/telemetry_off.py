"""OpenVINO, imported with its usage telemetry off, so that a worker may pass it to the zygote.

Why: the zygote imports what the workers imported and forks later workers from itself, but only
while it has one thread. On import, OpenVINO's model converter (``openvino.tools.ovc``) sends a
usage event through ``openvino_telemetry``, on a thread that then stays; so every worker, and each
replacement for a worker lost to one of OpenVINO's crashes, imported OpenVINO itself. The package
sends nothing in CI, which it reads from the variable ``CI`` (the ``disable_in_ci`` option the
converter passes); it is set for this import only. The choice is made once per process, by this
import (``openvino_telemetry.Telemetry`` is one object per process), so later conversions send
nothing either: a conformance run is a test run, which the package leaves untracked in CI too.
Nothing is written: the consent file of OpenVINO's opt-out tool, in the user's home, is not read
or touched.

It must be the process's first import of OpenVINO: the adapter's constructor imports it before
any route module. A mistake costs speed, never a deadlock: the zygote counts its threads before
it forks.
"""

from __future__ import annotations

from conformance.plugin import import_with_environment

openvino = import_with_environment("openvino", {"CI": "true"})
