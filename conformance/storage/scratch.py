"""Each worker's private temporary folder, removed by the parent when the worker ends.

A worker that dies never removes the temporary files its backends write, so it points ``TMPDIR``
(``TEMP``, ``TMP``, :data:`tempfile.tempdir`) at a folder of its own before any backend loads, and
the parent removes that folder however the worker ended. What every worker shares (the lock of
:mod:`conformance.engine.memory`) stays in the system's temporary folder, :data:`SYSTEM`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Final

#: The system's temporary folder, as it was before a worker pointed its own elsewhere.
SYSTEM: Final = Path(tempfile.gettempdir())
_VARIABLES: Final = ("TMPDIR", "TEMP", "TMP")


def pool_folder() -> Path:
    """A new folder for one pool's workers, in the system's temporary folder."""
    return Path(tempfile.mkdtemp(prefix="conformance-workers-", dir=SYSTEM))


def worker_folder(pool: Path, number: int) -> Path:
    """Worker ``number``'s folder inside ``pool``, created empty."""
    folder = pool / f"worker-{number}"
    folder.mkdir(mode=0o700)
    return folder


def enter(folder: str | None) -> None:
    """Make ``folder`` this process's temporary folder, for Python and for native code that reads
    the environment (``None``: keep the system's, for a worker started outside a pool)."""
    if folder is None:
        return
    os.environ.update(dict.fromkeys(_VARIABLES, folder))
    tempfile.tempdir = folder


def remove(folder: Path | None) -> None:
    """Remove a folder of the pool's, whatever is left in it; a folder already gone is fine."""
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
