"""Which items of each target run first: a sample that prices the target for the progress line's
ETA (see :func:`conformance.run.runner.execute`).

Targets differ in speed by two orders of magnitude and the plan groups them, so without a sample
of each the progress line could only guess a slow target's time per item until it starts. The
sample is spread over the target's items because the corpus is not uniform: a target's first
cases (documentation examples, ambiguous points) are not its typical ones.
"""

from __future__ import annotations

from conformance.engine import settings
from conformance.engine.worker import Job


def sample_of_each(jobs: list[Job], sample: int | None = None) -> tuple[list[Job], list[Job]]:
    """A sample of each target's jobs (``sample`` of them, by default the engine's, or its
    ``sample_share`` of them if more), spread evenly over its jobs and none of them large, and
    the rest in plan order (each
    target's jobs in a row: a worker replaced after a crash imports only the backend it meets
    next). Results keep the plan's order (``Job.index``)."""
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
