"""Variants of the example ACME adapter with one flaw each, for the certification tests.

Named by import reference (``acme_variants:Sloppy``, with ``tests/`` on PYTHONPATH) the way a
vendor runs an adapter under development; each keeps the name ``acme`` so its certificate reads
like the real one's, and differs from it in exactly the way its docstring says: one call of its
route replaced.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
from acme_conformance import kernels
from acme_conformance.adapter import AcmeAdapter, Call, build, run, snippet

from conformance.plugin import AdapterInfo, Target, Task, Unsupported


def _changed(info: AdapterInfo, **calls: Any) -> AdapterInfo:
    """``info`` with the given calls of its one route replaced."""
    (route,) = info.routes
    return dataclasses.replace(info, routes=(dataclasses.replace(route, **calls),))


def _sloppy_build(task: Task, target: Target) -> Call:
    call = build(task, target)
    if task.op == "numpy.split":
        return Call(kernels.numpy_array_split, call.argument, call.keywords)
    return call


def _sloppy_reproducer(task: Task, target: Target) -> str:
    return snippet(task, _sloppy_build(task, target))


def _unsure_run(compiled: Call, task: Task) -> Sequence[np.ndarray]:
    if "ambiguous" in task.case.tags:
        return [task.data, task.data, task.data]
    return run(compiled, task)


def _no_bfloat16(task: Task, target: Target) -> Unsupported | None:
    if task.dtype == "bfloat16":
        return Unsupported("ACME's kernels have no bfloat16 type")
    return None


class Sloppy(AcmeAdapter):
    """numpy.split through the array_split kernel: accepts section counts that do not divide the
    axis (which the spec rejects), so the invalid cases fail."""

    def info(self) -> AdapterInfo:
        return _changed(super().info(), build=_sloppy_build, reproducer=_sloppy_reproducer)


class Unsure(AcmeAdapter):
    """Answers every ambiguous case wrongly (three copies of the data): no reading matches."""

    def info(self) -> AdapterInfo:
        return _changed(super().info(), run=_unsure_run)


class NoBfloat16(AcmeAdapter):
    """Declines bfloat16 data as unsupported (correct on everything it runs)."""

    def info(self) -> AdapterInfo:
        return _changed(super().info(), support=_no_bfloat16)


def _drops_empty_run(compiled: Call, task: Task) -> Sequence[np.ndarray]:
    axis = 0 if task.request.axis is None else task.request.axis
    return [piece for piece in run(compiled, task) if piece.shape[axis] != 0]


class DropsEmpty(AcmeAdapter):
    """Leaves out every piece of length 0 along the axis (a request's empty pieces are dropped),
    so every request whose answer holds an empty piece departs, whatever else it asks."""

    def info(self) -> AdapterInfo:
        return _changed(super().info(), run=_drops_empty_run)
