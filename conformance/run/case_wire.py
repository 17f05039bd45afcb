"""A job's case on its way to a worker: pickled once in the parent, rebuilt once in the worker.

A full run sends about 33,000 jobs made of about 1,200 cases, each case to some 27 jobs (one per
target and op). Pickled with every job, the case was most of the job's cost: pickling a job of
the corpus took 13.5 microseconds in the parent (5-6 now) and unpickling it 36 in the worker (11
now), the parent's share paid on the cores the workers share at -j 2. Here the parent keeps each
case's bytes and the worker each case rebuilt from them, keyed by those bytes: the same bytes
are the same case, whatever process made them.
"""

from __future__ import annotations

import pickle

from conformance.corpus.case import Case

#: Cases kept on either side; past it the cache starts again (``conformance explore`` makes a
#: case per request, and a run of the corpus holds about 1,200)
LIMIT = 8192

#: in the parent: each case's bytes, by the case object's identity (the case is kept with them,
#: so that its identity cannot pass to another object while it is cached)
_sent: dict[int, tuple[Case, bytes]] = {}
#: in a worker: each case rebuilt, by its bytes
_received: dict[bytes, Case] = {}


def wire(case: Case) -> bytes:
    """The case's pickled bytes, made on its first job only."""
    held = _sent.get(id(case))
    if held is not None and held[0] is case:
        return held[1]
    if len(_sent) >= LIMIT:
        _sent.clear()
    data = pickle.dumps(case, protocol=pickle.HIGHEST_PROTOCOL)
    _sent[id(case)] = (case, data)
    return data


def case_of(data: bytes) -> Case:
    """The case those bytes were made from, rebuilt on its first job in this process only."""
    case = _received.get(data)
    if case is None:
        if len(_received) >= LIMIT:
            _received.clear()
        case = _received[data] = pickle.loads(data)  # the parent's own bytes, over the worker's pipe
    return case
