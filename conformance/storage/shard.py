"""Sharding: ``--shard I/N`` runs one of N disjoint parts of a run, for fanning out over machines.

A job belongs to shard ``sha256(key) mod N`` (plus one), its key being
``case::op@adapter/route/device``: a property of the job alone, so editing the corpus moves only
the edited cases' jobs, shards of differently selected runs merge without overlap, and hashing the
whole key spreads every target's jobs over every shard. SHA-256, not the per-process salted
``hash()``, so every machine agrees.
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
