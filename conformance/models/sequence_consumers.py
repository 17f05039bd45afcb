"""How a backend that cannot hand a sequence out of a compiled model reads SplitToSequence: through
the Sequence ops that consume it.

OpenVINO's ONNX frontend has no sequence type and an IREE module cannot return one, so these
routes get the suite's model with consumers appended
(:func:`conformance.models.onnx_graphs.consumed_sequence_model`): ``SequenceAt`` at each position
where the reference fixes the piece count (the pieces are then judged bit for bit like Split's),
else ``ConcatFromSequence``, which reads however many tensors there are, so a refusal can only be
the backend's. Where the reference rejects every run, the route's :class:`Rule` picks a consumer
the backend lowers for a valid request of the same form, so that a refusal is the request's and
not the consumer's.

Each adapter records its rule's :attr:`Rule.text` as the option ``onnx_sequence_consumer``; each
reproducer names its consumer. ONNX operator pages: SequenceAt-11, ConcatFromSequence-11 and
SequenceLength-11 (https://onnx.ai/onnx/operators/).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import onnx

from conformance.models import onnx_graphs
from conformance.oracle import reference
from conformance.oracle.reference import Rejection, SpecAnswer, SplitRequest
from conformance.plugin import Task

#: the consumer of a sequence whose piece count the reference does not fix
CONCAT_FROM_SEQUENCE: Final = "ConcatFromSequence"
#: a consumer that reads a sequence of any length as its count
SEQUENCE_LENGTH: Final = "SequenceLength"


@dataclass(frozen=True)
class Rule:
    """The consumers a route's SplitToSequence models get where the reference rejects every run:
    ``rejected_lengths`` (1-D lengths) or ``rejected_other`` (a size, or no split), each an op type
    or a count of SequenceAt; ``text``, the whole rule in words, as the adapter records it."""

    rejected_lengths: int | str
    rejected_other: int | str
    text: str

    def model_bytes(self, task: Task) -> bytes:
        """:func:`model_bytes` under this rule (what :func:`onnx_graphs.snippet` asks a rule for)."""
        return model_bytes(task, self)

    def consumer(self, task: Task) -> str:
        """:func:`consumer` under this rule."""
        return consumer(task, self)


#: OpenVINO's onnx route: a rejected request joined by ConcatFromSequence, which its frontend lowers
CONCAT: Final = Rule(
    CONCAT_FROM_SEQUENCE,
    CONCAT_FROM_SEQUENCE,
    "SequenceAt at positions 0..n-1 (n: the reference's piece count, the same in every run and "
    "reading); else one ConcatFromSequence along the split axis (the reference rejects every run, "
    "or its counts differ)",
)
#: IREE (whose importer, torch-mlir, lowers no ConcatFromSequence): 1-D lengths counted by
#: SequenceLength, a length known at compile time; else SequenceAt at 0, as IREE lowers no
#: SequenceLength of a run-time length and a valid request on a dim that is not empty has a piece 0
LENGTH: Final = Rule(
    SEQUENCE_LENGTH,
    1,
    "SequenceAt at positions 0..n-1 (n: the reference's piece count, the same in every run and "
    "reading); where the reference rejects every run, one SequenceLength (split given as 1-D "
    "lengths) or SequenceAt at position 0 (a size, or no split); else one ConcatFromSequence along "
    "the split axis (its counts differ)",
)


def reader(task: Task, rule: Rule) -> int | str:
    """How the task's sequence is read under ``rule``: a count n of SequenceAt consumers, or the op
    type of its one consumer."""
    counts = set()
    for run in task.case.all_runs:
        answer = SpecAnswer.wrap(reference.answer(task.op, SplitRequest.of_run(task.case, run)))
        counts |= {
            len(reading.outcome.bounds)
            for reading in answer.readings
            if not isinstance(reading.outcome, Rejection)
        }
    if len(counts) == 1:
        return counts.pop()
    if counts:
        return CONCAT_FROM_SEQUENCE
    lengths = task.graph.split_input == "given" and task.request.form.kind == "lengths"
    return rule.rejected_lengths if lengths else rule.rejected_other


def consumer(task: Task, rule: Rule) -> str:
    """The consumer of the task's sequence, in words (the reproducer's comment says it)."""
    read = reader(task, rule)
    return f"one {read}" if isinstance(read, str) else f"{read} SequenceAt (positions 0..{read - 1})"


def model(task: Task, rule: Rule) -> onnx.ModelProto:
    """The model such a route is handed for ``task``: the suite's own, consumers added to a sequence."""
    if not onnx_graphs.is_sequence(task.op):
        return onnx_graphs.build_model(task)
    return onnx_graphs.consumed_sequence_model(task, reader(task, rule))


def model_bytes(task: Task, rule: Rule) -> bytes:
    """:func:`model`, serialized as a backend or a reproducer file takes it."""
    serialized: bytes = model(task, rule).SerializeToString()
    return serialized
