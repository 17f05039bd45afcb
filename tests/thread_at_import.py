"""A module that starts a thread when imported, as OpenVINO and ONNX Runtime do: the zygote
must refuse to fork once it has imported such a module."""

import threading
import time

threading.Thread(target=time.sleep, args=(3600,), daemon=True, name="started-at-import").start()
