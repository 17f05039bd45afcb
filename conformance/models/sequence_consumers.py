"""How a backend that cannot hand a sequence out of a compiled model reads SplitToSequence: through
the Sequence ops that consume it.

OpenVINO's ONNX frontend has no sequence type (it refuses a sequence as a graph output), and an
IREE module cannot return one (a list of tensors is no compiled function's result). A model that
uses the op reaches such a backend only with its sequence consumed, so these routes are handed the
suite's SplitToSequence model with consumers appended
(:func:`conformance.models.onnx_graphs.consumed_sequence_model`):

- ``SequenceAt`` at positions 0 to n-1, one graph output per piece, where n is the reference's
  piece count: the same in every run of the case and every reading of the spec it has. The
  outputs are the pieces themselves, judged bit for bit like Split's.
- ``ConcatFromSequence`` along the split axis where the reference rejects every reading of every
  run, or its piece counts differ between runs or readings. It consumes however many tensors the
  sequence holds, so a refusal can only be the backend's, never a position that the consumer got
  wrong; an answer where a rejection is due is an invalid request accepted, whatever it holds (and
  one where pieces are due fails by its count, unless one piece is due).

Each adapter records :data:`RULE` in every results file as the option ``onnx_sequence_consumer``,
and each reproducer names its consumer. ONNX operator pages: SequenceAt-11
(https://onnx.ai/onnx/operators/onnx__SequenceAt.html) and ConcatFromSequence-11
(https://onnx.ai/onnx/operators/onnx__ConcatFromSequence.html).
"""

from __future__ import annotations

from typing import Final

import onnx

from conformance.models import onnx_graphs
from conformance.oracle import reference
from conformance.oracle.reference import Rejection, SpecAnswer, SplitRequest
from conformance.plugin import Task

#: The rule in words, as the adapters record it (option ``onnx_sequence_consumer``): a result's
#: expected outcome says which consumer its model had.
RULE: Final = (
    "SequenceAt at positions 0..n-1 (n: the reference's piece count, the same in every run and "
    "reading); else one ConcatFromSequence along the split axis (the reference rejects every run, "
    "or its counts differ)"
)


def pieces(task: Task) -> int | None:
    """How many SequenceAt consumers the task's model gets, or None for ConcatFromSequence."""
    counts = set()
    for run in task.case.all_runs:
        answer = SpecAnswer.wrap(reference.answer(task.op, SplitRequest.of_run(task.case, run)))
        counts |= {
            len(reading.outcome.bounds)
            for reading in answer.readings
            if not isinstance(reading.outcome, Rejection)
        }
    return counts.pop() if len(counts) == 1 else None


def consumer(task: Task) -> str:
    """The consumer of the task's sequence, in words (the reproducer's comment says it)."""
    count = pieces(task)
    return "one ConcatFromSequence" if count is None else f"{count} SequenceAt (positions 0..{count - 1})"


def model(task: Task) -> onnx.ModelProto:
    """The model such a route is handed for ``task``: the suite's own, consumers added to a sequence."""
    if not onnx_graphs.is_sequence(task.op):
        return onnx_graphs.build_model(task)
    return onnx_graphs.consumed_sequence_model(task, pieces(task))


def model_bytes(task: Task) -> bytes:
    """:func:`model`, serialized as a backend or a reproducer file takes it."""
    serialized: bytes = model(task).SerializeToString()
    return serialized
