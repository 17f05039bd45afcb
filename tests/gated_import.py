"""A module whose import waits until a file appears (at most 60 s), then records who imported it.

The zygote tests have it imported by the zygote or a worker and read who did:
``GATED_IMPORT_GATE`` names the file that lets the import finish, ``GATED_IMPORT_LOG`` the file
each importing process appends its pid to, ``GATED_IMPORT_BEGUN`` (optional) a file made as the
import begins.
"""

import os
import time
from pathlib import Path

if "GATED_IMPORT_BEGUN" in os.environ:
    Path(os.environ["GATED_IMPORT_BEGUN"]).touch()
_gate = Path(os.environ["GATED_IMPORT_GATE"])
_deadline = time.monotonic() + 60
while not _gate.exists() and time.monotonic() < _deadline:
    time.sleep(0.02)
with Path(os.environ["GATED_IMPORT_LOG"]).open("a", encoding="utf-8") as log:
    log.write(f"{os.getpid()}\n")
