"""Starting the CLI as a child process the way a person's terminal would."""

from __future__ import annotations

import signal


def default_sigint() -> None:
    """Give the child the default SIGINT disposition (``preexec_fn``).

    A shell starts background jobs with SIGINT ignored and children inherit that, so a test run
    from a background job (as CI may do) would send Ctrl-C to a process that cannot hear it.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)
