"""What ``explore`` draws at most, in a module of its own so that the option table and the other
verbs read these defaults without importing Hypothesis (a fifth of every command's start)."""

from __future__ import annotations

from dataclasses import dataclass

#: Requests drawn per op when neither a budget nor --max-examples bounds the search.
DEFAULT_EXAMPLES = 100
#: Requests drawn per op at most under a budget alone (the budget ends the search first).
UNBOUNDED_EXAMPLES = 1_000_000


@dataclass(frozen=True)
class Limits:
    """What one generated request may cost: its data's bytes, its output pieces, its runs."""

    data_bytes: int = 64 * 1024 * 1024
    pieces: int = 256
    #: further runs on one model (runs 2 ...)
    runs: int = 3
