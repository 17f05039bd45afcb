"""Model converters run as child processes, for adapters whose converter is a command-line tool
(MNN's ``mnnconvert``, ncnn's ``pnnx``).

A child process, so that a converter that crashes or corrupts its heap cannot take the worker's
backend state with it, and its printed diagnostics come back as text (these tools exit 0 after a
warning). How its end is judged, so that the engine's statuses stay true:

- it exits (whatever the code): the caller reads what it wrote and printed, and decides;
- it dies by a signal: the worker dies by the same signal, so the item is a ``crash``, never a
  refusal that an invalid case would score as a pass;
- it outlives the worker (killed past ``--timeout``): ``PR_SET_PDEATHSIG`` has Linux kill it too;
- it runs past :data:`LIMIT_S`: an adapter error, never green.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

#: Seconds a conversion may take: above the engine's default item timeout (120 s), so this only ends
#: a child nobody else would.
LIMIT_S: Final = 300.0
#: How many characters of the child's output a message quotes.
QUOTED: Final = 1500
#: prctl's option that delivers a signal to a process when its parent ends (linux/prctl.h).
_PR_SET_PDEATHSIG: Final = 1


class ConverterHung(Exception):
    """The converter ran past its limit; raised as the adapter's error by the callers."""


def _die_with_parent() -> Callable[[], None] | None:
    """What the child calls before exec to die with the worker: libc's prctl, looked up in the
    parent so that the child makes one plain system call after fork."""
    if sys.platform != "linux":
        return None
    import ctypes

    prctl = ctypes.CDLL(None, use_errno=True).prctl
    return lambda: prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def run(argv: Sequence[str], workdir: Path) -> subprocess.CompletedProcess[str]:
    """``argv`` in ``workdir``, stdout and stderr together as text; dies like the child did (see the
    module docstring), raises :class:`ConverterHung` past :data:`LIMIT_S`."""
    try:
        done = subprocess.run(
            list(argv),
            cwd=workdir,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            errors="replace",
            timeout=LIMIT_S,
            check=False,
            preexec_fn=_die_with_parent(),
        )
    except subprocess.TimeoutExpired as expired:
        raise ConverterHung(f"{Path(argv[0]).name} ran past {LIMIT_S:g} s and was killed") from expired
    if done.returncode < 0:
        die_like(-done.returncode, f"{Path(argv[0]).name} {' '.join(argv[1:])}", done.stdout)
    return done


def die_like(number: int, command: str, printed: str) -> None:
    """End this worker by the signal that ended the converter, after printing what it printed: the
    worker's log is the crash result's evidence."""
    name = signal.Signals(number).name if number in signal.Signals._value2member_map_ else str(number)
    sys.stderr.write(f"the converter died by {name}: {command}\n{tail(printed)}\n")
    sys.stderr.flush()
    signal.signal(number, signal.SIG_DFL)
    os.kill(os.getpid(), number)
    os._exit(128 + number)  # a signal that does not end a process by default


def tail(printed: str) -> str:
    """The end of a child's output, where converters say what went wrong."""
    text = printed.strip()
    return text if len(text) <= QUOTED else "... " + text[-QUOTED:]
