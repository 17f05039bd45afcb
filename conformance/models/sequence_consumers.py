"""How a backend that cannot hand a sequence out of a compiled model reads SplitToSequence: through
the Sequence ops that consume it.

OpenVINO's ONNX frontend has no sequence type (it refuses a sequence as a graph output), and an
IREE module cannot return one (a list of tensors is no compiled function's result). A model that
uses the op reaches such a backend only with its sequence consumed, so these routes are handed the
suite's SplitToSequence model with consumers appended
(:func:`conformance.models.onnx_graphs.consumed_sequence_model`), by a :class:`Rule` the route
chooses:

- ``SequenceAt`` at positions 0 to n-1, one graph output per piece, where n is the reference's
  piece count: the same in every run of the case and every reading of the spec it has. The
  outputs are the pieces themselves, judged bit for bit like Split's.
- ``ConcatFromSequence`` along the split axis where the reference's piece counts differ between
  runs or readings. It consumes however many tensors the sequence holds, so a refusal can only be
  the backend's, never a position that the consumer got wrong; where pieces are due, an answer
  fails by its count unless one piece is due.
- the rule's consumer of a rejected request where the reference rejects every reading of every
  run. Any answer is then an invalid request accepted, whatever it holds, so the consumer must be
  one the backend lowers for a valid request of the same form and read whatever the backend
  makes: a refusal is the request's only if the consumer would have been accepted.
  :data:`CONCAT` (OpenVINO's onnx route) takes ConcatFromSequence, which OpenVINO's frontend
  lowers and which reads a sequence of any length. :data:`LENGTH` (IREE) cannot: torch-mlir,
  IREE's ONNX importer, has no ConcatFromSequence lowering at all, so every rejected request
  that got that far would be refused for its consumer and pass vacuously. It takes, by the
  split's form:

  - 1-D lengths: one ``SequenceLength`` (output the piece count, an int64 scalar). The lowering
    knows the list's length at compile time, so IREE lowers it, and it reads the empty sequence
    too: a refusal is of the SplitToSequence (its import, lowering or run), an answer the request
    accepted. SequenceAt at position 0 would not do: a backend that accepts the request but makes
    no piece (an empty split on a dim that is not empty) would fail the read, a refusal the
    consumer made, not the check the spec asks for.
  - a size, or no split: ``SequenceAt`` at position 0. Here the list's length is known only at
    run time, and IREE lowers no SequenceLength of it (iree-compile fails on the spec's own valid
    example read that way), while it lowers SequenceAt. A valid request of these forms on a dim
    that is not empty has at least one piece (ceil(dim / size) of them, or one per element), so
    position 0 is due wherever pieces are; only a backend that makes no piece for a rejected
    request on such a dim (a size it does not check, say) would be refused by the read, and that
    refusal names the position ("index ... split_result_size" on IREE), so a reader can tell it.

Each adapter records its rule's :attr:`Rule.text` in every results file as the option
``onnx_sequence_consumer``, and each reproducer names its consumer. ONNX operator pages: SequenceAt-11
(https://onnx.ai/onnx/operators/onnx__SequenceAt.html), ConcatFromSequence-11
(https://onnx.ai/onnx/operators/onnx__ConcatFromSequence.html) and SequenceLength-11
(https://onnx.ai/onnx/operators/onnx__SequenceLength.html).
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
    """The consumers a route's SplitToSequence models get: SequenceAt at each of the reference's
    pieces, ConcatFromSequence where its counts differ, and where it rejects every run
    ``rejected_lengths`` (split given as 1-D lengths) or ``rejected_other`` (a size, or no split),
    each an op type or a count of SequenceAt. ``text``: the rule in words, as the adapter records it
    (option ``onnx_sequence_consumer``), since a result's expected outcome says which consumer its
    model had."""

    rejected_lengths: int | str
    rejected_other: int | str
    text: str


#: OpenVINO's onnx route: a rejected request joined by ConcatFromSequence, which its frontend lowers
CONCAT: Final = Rule(
    CONCAT_FROM_SEQUENCE,
    CONCAT_FROM_SEQUENCE,
    "SequenceAt at positions 0..n-1 (n: the reference's piece count, the same in every run and "
    "reading); else one ConcatFromSequence along the split axis (the reference rejects every run, "
    "or its counts differ)",
)
#: IREE: a rejected request counted by SequenceLength, or read at position 0 where IREE cannot
#: count (torch-mlir lowers no ConcatFromSequence)
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
    lengths = task.graph.split_input == "given" and task.form.kind == "lengths"
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
