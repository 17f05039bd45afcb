"""Which items of each target run first: a sample that prices the target for the progress line's
ETA (see :func:`conformance.run.runner.execute`).

Targets differ in speed by two orders of magnitude and the plan groups them, so without a sample
of each the progress line could only guess a slow target's time per item until it starts. The
sample is spread over the target's items because the corpus is not uniform: a target's first
cases (documentation examples, ambiguous points) are not its typical ones.
"""

from __future__ import annotations

from conformance.run.worker import Job

#: Items of each target run first: at least this many, and at least :data:`SAMPLE_SHARE` of them.
SAMPLE = 40
SAMPLE_SHARE = 0.05


def sample_of_each(jobs: list[Job], sample: int = SAMPLE) -> tuple[list[Job], list[Job]]:
    """A sample of each target's jobs (``sample`` of them, or :data:`SAMPLE_SHARE` of them if
    more), spread evenly over its jobs and none of them large, and the rest in plan order (each
    target's jobs in a row: a worker replaced after a crash imports only the backend it meets
    next). Results keep the plan's order (``Job.index``)."""
    by_target: dict[str, list[Job]] = {}
    for job in jobs:
        if not job.large:
            by_target.setdefault(job.target.id, []).append(job)
    chosen: set[int] = set()
    for group in by_target.values():
        count = min(len(group), max(sample, round(SAMPLE_SHARE * len(group))))
        chosen.update(group[number * len(group) // count].index for number in range(count))
    first = [job for job in jobs if job.index in chosen]
    return first, [job for job in jobs if job.index not in chosen]
