"""A module that writes, when imported, how many objects the garbage collector has frozen
(``gc.freeze``) in the importing process, to the file ``FREEZE_PROBE_FILE`` names.

The zygote test imports it in a later stage: by then the zygote must have frozen what its
earlier stages imported (a forked worker's collections then never walk those objects).
"""

import gc
import os
from pathlib import Path

Path(os.environ["FREEZE_PROBE_FILE"]).write_text(str(gc.get_freeze_count()), encoding="utf-8")
