"""Variants of the example ACME adapter with one flaw each, for the certification tests.

Named by import reference (``acme_variants:Sloppy``, with ``tests/`` on PYTHONPATH) the way a
vendor runs an adapter under development; each keeps the name ``acme`` so its certificate reads
like the real one's, and differs from it in exactly the way its docstring says.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from acme_conformance import kernels
from acme_conformance.adapter import AcmeAdapter, Call

from conformance.plugin import Target, Task, Unsupported


class Sloppy(AcmeAdapter):
    """numpy.split through the array_split kernel: accepts section counts that do not divide the
    axis (which the spec rejects), so the invalid cases fail."""

    def build(self, task: Task, target: Target) -> Call:
        call = super().build(task, target)
        if task.op == "numpy.split":
            return Call(kernels.numpy_array_split, call.argument, call.keywords)
        return call


class Unsure(AcmeAdapter):
    """Answers every ambiguous case wrongly (three copies of the data): no reading matches."""

    def run(self, compiled: Call, task: Task) -> Sequence[np.ndarray]:
        if "ambiguous" in task.case.tags:
            return [task.data, task.data, task.data]
        return super().run(compiled, task)


class NoBfloat16(AcmeAdapter):
    """Declines bfloat16 data as unsupported (correct on everything it runs)."""

    def support(self, task: Task, target: Target) -> Unsupported | None:
        if task.dtype == "bfloat16":
            return Unsupported("ACME's kernels have no bfloat16 type")
        return None
