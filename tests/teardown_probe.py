"""A module that leaves a file behind when the interpreter that imported it shuts down normally.

The zygote test imports it in the zygote: the zygote ends without the interpreter's teardown,
so the file must never appear. The file's path comes from ``TEARDOWN_PROBE_FILE``.
"""

import atexit
import os
from pathlib import Path


def _left() -> None:
    Path(os.environ["TEARDOWN_PROBE_FILE"]).write_text("torn down", encoding="utf-8")


atexit.register(_left)
