"""What adapters use to write their reproducers: :func:`array_code` turns a task's data into
Python statements (base64 for the bytes) that need only NumPy; :func:`run_heading` is the comment
before each replayed run of a case with ``runs:`` (``for run in task.every_run``);
:func:`session_runs_code` replays every run through a session fed by input name;
:func:`wrapped_base64` embeds a serialized model.

The vendor-facing face of :mod:`conformance.run.reproducers`, which also writes the command
that reruns one item and the header of every snippet.
"""

from conformance.run.reproducers import array_code, feeds_code, run_heading, session_runs_code, wrapped_base64

__all__ = ["array_code", "feeds_code", "run_heading", "session_runs_code", "wrapped_base64"]
