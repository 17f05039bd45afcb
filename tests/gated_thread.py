"""A module that waits for the gate file of :mod:`gated_import` (at most 60 s), then starts a
thread, as OpenVINO and ONNX Runtime do: a zygote importing it in a later stage can fork no
more, and the workers it forked before must live on."""

import os
import threading
import time
from pathlib import Path

_gate = Path(os.environ["GATED_IMPORT_GATE"])
_deadline = time.monotonic() + 60
while not _gate.exists() and time.monotonic() < _deadline:
    time.sleep(0.02)
threading.Thread(target=time.sleep, args=(3600,), daemon=True, name="started-at-import").start()
