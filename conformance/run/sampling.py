"""Which items of each target run first: a sample that prices the target for the progress line's
ETA, then checks of that sample, then the rest (see :func:`conformance.run.runner.execute`).

The sample and the checks leave out the items a known issue says kill their worker (``crash``
or ``timeout``): a death prices nothing (the ETA already ignores a sample item that died), and a
death in a run's first seconds, while the zygote still imports the backends, is replaced by a
worker started afresh, which imports every backend it meets itself. In a full -j 1 run, three
known crashes among the samples had four such workers import torch, TensorFlow and OpenVINO
again: 0.92 s of it in one OpenVINO item's ``support()``. Those items still run, in the bulk.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable

from conformance.run.item import pending_result
from conformance.run.known_issues import ByTarget
from conformance.run.progress import rate_class
from conformance.run.rates import CALIBRATED_AFTER, Strata, Stratum
from conformance.run.worker import Job
from conformance.statuses import Status

#: What tells whether a job is foreseen to kill its worker (see :func:`foreseen_deaths`).
Dies = Callable[[Job], bool]
#: The statuses of an item that ends its worker: the pool replaces the worker either way.
DEATHS: tuple[Status, ...] = ("crash", "timeout")


def never(job: Job) -> bool:
    """No job is foreseen to die: the sample as spread (a run without known issues)."""
    del job
    return False


def foreseen_deaths(issues: ByTarget) -> Dies:
    """Whether a known issue claims ``job``'s death: its result as a crash (or a timeout), made
    from what is known before it runs, would be an ``xfail``. Asked of the sample's and the
    checks' picks (and of the items after a pick that dies) of the targets whose known issues
    list deaths, once each: each works out the item's reference answer in the parent."""
    said: dict[int, bool] = {}

    def dies(job: Job) -> bool:
        if job.index not in said:
            said[job.index] = _dies(issues, job)
        return said[job.index]

    return dies


def _dies(issues: ByTarget, job: Job) -> bool:
    """See :func:`foreseen_deaths`; an item no entry for a death names the op of needs no answer."""
    entries = issues(job.target.id)
    deaths = (entry for entry in entries if any(status in entry.statuses for status in DEATHS))
    if not any(entry.names_op(job.op) for entry in deaths):
        return False
    pending = pending_result(job.case, job.op, job.target, judged=job.judged)
    return any(issues.apply(pending.with_status(status, "")).status == "xfail" for status in DEATHS)


#: Items of each target run first, so that every target's rate is measured early in the run:
#: at least this many, and at least :data:`SAMPLE_SHARE` of the target's items.
SAMPLE = 40
SAMPLE_SHARE = 0.05


def sample_of_each(
    jobs: list[Job], sample: int = SAMPLE, *, dies: Dies = never
) -> tuple[list[Job], list[Job]]:
    """A sample of each target's jobs (``sample`` of them, or :data:`SAMPLE_SHARE` of them if
    more), spread evenly over its jobs, and the rest in plan order (to be run after the sample).

    Targets differ in speed by two orders of magnitude and the plan groups them, so without a
    sample of each the progress line could only guess the slow ones' rate until they start (the
    ETA said 56 s at 10 % of a run with 200 s to go). The sample is spread over the target's
    jobs because the corpus is not uniform: a target's first cases (documentation examples,
    ambiguous points) are not its typical ones, and a rate taken from them over-promised the end
    of a run by half. It grows with the target: 40 items of OpenVINO's 3,459 ran during the
    run's first crashes (a replacement and the zygote starting beside the worker) and put the
    route at 36 ms an item against 14 ms after. The rest keeps each target's jobs in a row
    (:meth:`Execution.heaviest_first` orders the targets): a worker replaced after a crash then
    imports only the backend it meets next. Results keep the plan's order (``Job.index``). Large
    jobs run before all of these, on the first worker (see :class:`conformance.run.pool.Pool`).
    """
    chosen: set[int] = set()
    first: list[Job] = []
    for group, _, picks in _sampled(jobs, sample, dies):
        first.extend(group[pick] for pick in picks)
        chosen.update(group[pick].index for pick in picks)
    return first, [job for job in jobs if job.index not in chosen]


#: The share of a target's jobs after its sample that may run as checks of it (see
#: :func:`checks_of_each`): the rest keeps the order :meth:`Execution.heaviest_first` gives it.
CHECK_SHARE = 0.1
#: Checks of each target: more than the CALIBRATED_AFTER its own calibration needs, since a check
#: counts only where its sample item priced its stratum (not one that carried a worker's set-up or
#: died). With exactly 30, four targets had 29 and the ETA kept pricing them by the others.
CHECKS = CALIBRATED_AFTER + 10


def checks_of_each(
    bulk: list[Job], count: int = CHECKS, *, dies: Dies = never
) -> tuple[list[Job], list[Job]]:
    """``count`` of each target's bulk jobs (those after :func:`sample_of_each`'s sample; at most
    :data:`CHECK_SHARE` of them, large ones never), spread evenly over them (each moved past the
    items foreseen to die, as the sample's are), and the rest in plan order. Run right after the
    sample, once the imports are done, they tell by how much each target's sample, which ran
    beside the imports, over-states its items (see
    :class:`conformance.run.rates.Strata`). Without them, the targets that end a -j 1 run (the
    fast ones, whose samples took about twice their later time) were priced by the slow ones
    that ran first, and the ETA was 40-75 % too long through the run's second half; with them,
    within 15 % at both -j."""
    chosen: set[int] = set()
    for group in _by_target(job for job in bulk if not job.large):
        picks = _alive(group, _spread(len(group), min(count, int(len(group) * CHECK_SHARE))), dies)
        chosen.update(group[pick].index for pick in picks)
    return [job for job in bulk if job.index in chosen], [job for job in bulk if job.index not in chosen]


def sample_strata(jobs: list[Job], sample: int = SAMPLE, *, dies: Dies = never) -> Strata:
    """The strata :func:`sample_of_each`'s sample stands for: the target's items from each
    position its sample was spread to, up to the next one, each priced by the sample item taken
    there (the first of them not foreseen to die); what the progress line prices the items left
    by. Large items are priced apart, as their own rate class."""
    stratum_of: dict[str, Stratum] = {}
    chosen: set[str] = set()
    for group, spread, picks in _sampled(jobs, sample, dies):
        chosen.update(group[pick].key for pick in picks)
        for number, (start, end) in enumerate(itertools.pairwise([*spread, len(group)])):
            stratum_of.update(
                (job.key, (rate_class(job), number)) for job in group[start:end] if not job.large
            )
    return Strata(stratum_of, chosen)


def _sampled(jobs: list[Job], sample: int, dies: Dies) -> list[tuple[list[Job], list[int], list[int]]]:
    """Each target's jobs in plan order, with the positions its sample is spread to and those of
    the sample items taken there (see :func:`_alive`)."""
    found = []
    for group in _by_target(jobs):
        spread = _spread(len(group), min(len(group), max(sample, round(SAMPLE_SHARE * len(group)))))
        found.append((group, spread, _alive(group, spread, dies)))
    return found


def _alive(group: list[Job], picks: list[int], dies: Dies) -> list[int]:
    """Each pick moved on to the first job from it, before the next pick, that is neither large
    (a large item prices no stratum: its class is its own) nor foreseen to die (see
    :func:`foreseen_deaths`); a pick with no such job up to the next stays as it is."""
    moved = []
    for pick, end in itertools.pairwise([*picks, len(group)]):
        fit = (at for at in range(pick, end) if not group[at].large and not dies(group[at]))
        moved.append(next(fit, pick))
    return moved


def _by_target(jobs: Iterable[Job]) -> list[list[Job]]:
    """The jobs grouped by target, each group in plan order."""
    by_target: dict[str, list[Job]] = {}
    for job in jobs:
        by_target.setdefault(job.target.id, []).append(job)
    return list(by_target.values())


def _spread(size: int, count: int) -> list[int]:
    """``count`` positions among ``size``, evenly spread from the first."""
    return sorted({number * size // count for number in range(count)})
