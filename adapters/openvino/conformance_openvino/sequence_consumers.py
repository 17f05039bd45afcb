"""How the onnx route reads an ONNX SplitToSequence: through the Sequence ops that consume it.

OpenVINO has no sequence type: its ONNX frontend (2025.4 on) lowers SplitToSequence into a
SequenceMark, a list of tensors known while the model is read, that only a consuming Sequence op
turns back into tensors, and ``read_model`` refuses a sequence as a graph output ("No conversion
rule found for operations: util::SequenceMark"). So the route hands the frontend the suite's
SplitToSequence model with consumers appended (built by
:func:`conformance.models.onnx_graphs.consumed_sequence_model`), the way a model that uses the op
reaches OpenVINO at all:

- ``SequenceAt`` at positions 0 to n-1, one graph output per piece, where n is the reference's
  piece count: the same in every run of the case and every reading of the spec it has. The
  frontend resolves each position while reading (it takes only a constant position), so the
  outputs are the pieces themselves, judged bit for bit like Split's.
- ``ConcatFromSequence`` along the split axis where the reference rejects every reading of every
  run, or its piece counts differ between runs or readings. It consumes however many tensors the
  sequence holds, so a refusal can only be the frontend's or the plugin's, never a position that
  the consumer got wrong; an answer where a rejection is due is an invalid request accepted,
  whatever it holds (and one where pieces are due fails by its count, unless one piece is due).

The rule is recorded in every results file as the adapter option ``onnx_sequence_consumer``
(:data:`conformance_openvino.adapter.SEQUENCE_CONSUMER`), and each reproducer names its consumer.
ONNX operator pages: SequenceAt-11 (https://onnx.ai/onnx/operators/onnx__SequenceAt.html) and
ConcatFromSequence-11 (https://onnx.ai/onnx/operators/onnx__ConcatFromSequence.html).
"""

from __future__ import annotations

from conformance.models import onnx_graphs
from conformance.oracle import reference
from conformance.oracle.reference import Rejection, SpecAnswer, SplitRequest
from conformance.plugin import Task


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


def model_bytes(task: Task) -> bytes:
    """The model the onnx route reads for ``task``: the suite's own, consumers added to a sequence."""
    if not onnx_graphs.is_sequence(task.op):
        return onnx_graphs.model_bytes(task)
    serialized: bytes = onnx_graphs.consumed_sequence_model(task, pieces(task)).SerializeToString()
    return serialized
