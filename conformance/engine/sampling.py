"""Which items of each target run first: a sample that prices every target early for the progress
line's ETA, as targets differ in speed by two orders of magnitude. It is spread over the target's
items: its first cases (documentation examples, ambiguous points) are not its typical ones.
"""

from __future__ import annotations

from conformance.engine import settings
from conformance.engine.worker import Job


def sample_of_each(jobs: list[Job], sample: int | None = None) -> tuple[list[Job], list[Job]]:
    """A sample of each target's jobs (``sample``, by default the engine's, or ``sample_share`` of
    them if more), spread evenly and none large, then the rest in plan order (a target's jobs in a
    row: a worker replaced after a crash imports only the backend it meets next)."""
    by_target: dict[str, list[Job]] = {}
    for job in jobs:
        if not job.large:
            by_target.setdefault(job.target.id, []).append(job)
    chosen: set[int] = set()
    engine = settings.ENGINE
    for group in by_target.values():
        wanted = max(engine.sample if sample is None else sample, round(engine.sample_share * len(group)))
        count = min(len(group), wanted)
        chosen.update(group[number * len(group) // count].index for number in range(count))
    first = [job for job in jobs if job.index in chosen]
    return first, [job for job in jobs if job.index not in chosen]
