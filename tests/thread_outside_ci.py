"""A module that starts a thread when imported unless ``CI=true`` is set then, as ONNX Runtime and
OpenVINO do with their usage telemetry; it appends the importing process's pid to the file named
by ``THREAD_UNLESS_QUIET_LOG``, so a test can tell when the zygote has imported it."""

import os
import threading
import time
from pathlib import Path

with Path(os.environ["THREAD_UNLESS_QUIET_LOG"]).open("a", encoding="utf-8") as log:
    log.write(f"{os.getpid()}\n")
if os.environ.get("CI") != "true":
    threading.Thread(target=time.sleep, args=(3600,), daemon=True, name="telemetry").start()
