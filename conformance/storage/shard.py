"""Sharding: ``--shard I/N`` runs one of N disjoint parts of a run, for fanning out over machines.

A job belongs to shard ``sha256(key) mod N`` (plus one), where the key is the job's
``case::op@adapter/route/device``. The assignment is a property of the job alone, which is
what makes it safe to scatter and gather:

- **Stable.** Adding, removing or editing a case moves only that case's jobs; the rest keep
  their shard. Splitting by position in the job list (``index % N``) would reshuffle every job
  after the first insertion, so shard 2 of today and shard 2 of yesterday would share little.
- **The same through every front door and every selection.** ``conformance run``, the pytest
  plugin (whose collection order differs from the CLI's job order), ``-k``, ``--target``, one
  adapter per CI job or all at once: an item always lands in the same shard, so shard files of
  differently sliced runs still merge without overlap, and ``--resume`` of a shard needs nothing
  but the shard's own journal.
- **Balanced in time, not only in count.** Targets differ by orders of magnitude in cost (a
  NumPy call against an OpenVINO compile or a ``torch.export`` trace), so what matters is that
  every target is spread over every shard, which hashing the whole key (target included) does:
  each target's jobs split binomially, within a few per cent of 1/N for the hundreds of jobs a
  target has, and one expensive case on several targets does not pile up in one shard.
  On a full run in 3 shards the slowest shard held 1.03 times the mean item time, as round
  robin over the job list did: round robin balances counts exactly but not time any better,
  and buys that with the reshuffling above. With only a few dozen jobs, shards can differ by half.

Python's ``hash()`` is salted per process, hence SHA-256: every machine agrees.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from conformance.errors import UsageError

_FORM = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


class Keyed(Protocol):
    """Anything with a job key (``conformance.engine.worker.Job``, ``conformance.results.result.Result``)."""

    @property
    def key(self) -> str: ...


K = TypeVar("K", bound=Keyed)


def bucket(key: str, count: int) -> int:
    """The 0-based shard of ``key`` among ``count``: the first 8 bytes of its SHA-256, mod count."""
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big") % count


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if not 1 <= self.index <= self.count:
            raise UsageError(f"shard {self.index}/{self.count}: I must be between 1 and N")

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    @classmethod
    def parse(cls, text: str, flag: str = "--shard") -> Shard:
        """``"2/3"`` as Shard(2, 3); UsageError naming ``flag`` for anything else."""
        match = _FORM.fullmatch(text)
        if not match:
            raise UsageError(f"{flag} {text!r}: expected I/N with whole numbers, e.g. {flag} 2/3")
        index, count = int(match[1]), int(match[2])
        if count < 1 or not 1 <= index <= count:
            raise UsageError(
                f"{flag} {text!r}: I must be between 1 and N (N at least 1), e.g. {flag} 1/{max(count, 1)}"
            )
        return cls(index, count)

    def owns(self, key: str) -> bool:
        return bucket(key, self.count) == self.index - 1

    def select(self, keyed: Iterable[K]) -> list[K]:
        """The members of ``keyed`` in this shard, in their given order."""
        return [one for one in keyed if self.owns(one.key)]
