"""Rules shared by several specs: the axis range and the arithmetic that turns a request into
piece bounds. Each check raises :class:`RuleViolation` with a stable rule id and a sentence naming
the text it applies. Offsets are computed explicitly, never by a framework's split: this is the
oracle the frameworks are judged against.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import ParamSpec, TypeVar

from conformance.oracle.reference.answer import Pieces, Rejection, SpecAnswer, SpecOutcome, SplitRequest

#: The most pieces the reference describes. A spec may define far more (a count of 2^31 gives
#: 2^31 pieces), but listing them took gigabytes and minutes: such an item is not judged instead.
MAX_PIECES = 1 << 16


class TooManyPieces(Exception):
    """A request whose answer has more than MAX_PIECES pieces. No spec's rule, so no rejection: the
    item is not judged (``unsupported``) and the corpus audit reports the case."""

    def __init__(self, count: int) -> None:
        super().__init__(
            f"the request makes {count:,} pieces, more than the {MAX_PIECES:,} the reference describes"
        )
        self.count = count


def check_piece_count(count: int) -> int:
    """``count``, or TooManyPieces when the answer would list more pieces than MAX_PIECES."""
    if count > MAX_PIECES:
        raise TooManyPieces(count)
    return count


class RuleViolation(Exception):
    """A spec rule the request breaks; turned into a Rejection at the op's boundary."""

    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(f"{rule}: {reason}")
        self.rule = rule
        self.reason = reason

    @property
    def rejection(self) -> Rejection:
        return Rejection(self.rule, self.reason)


#: the parameters of the rules function outcome_of calls
_Args = ParamSpec("_Args")
#: what an op's rules take (a family's request)
_Request = TypeVar("_Request")


def answer_from(
    table: Mapping[str, Callable[[_Request], SpecAnswer | SpecOutcome]], op: str, request: _Request
) -> SpecAnswer:
    """What ``op``'s rules in ``table`` (one family's) answer ``request``: an outcome, or the
    rejection naming the rule it breaks."""
    try:
        rules = table[op]
    except KeyError:
        raise LookupError(f"the reference has no rules for op {op!r}") from None
    try:
        return SpecAnswer.wrap(rules(request))
    except RuleViolation as violation:
        return SpecAnswer.of(violation.rejection)


def outcome_of(
    rules: Callable[_Args, SpecAnswer | Pieces], *args: _Args.args, **kwargs: _Args.kwargs
) -> SpecOutcome:
    """``rules(*args)`` as one outcome (an answer's first reading), a violation as its rejection."""
    try:
        return SpecAnswer.wrap(rules(*args, **kwargs)).outcome
    except RuleViolation as violation:
        return violation.rejection


def normalize_axis(axis: int, rank: int, spec: str, *, negative: bool = True) -> int:
    """The axis as a dimension index in [0, rank), or a violation of ``spec``'s axis range;
    ``negative=False`` for texts that define no negative axis (ONNX Split-1 and -2)."""
    low = -rank if negative else 0
    if rank == 0:
        raise RuleViolation(
            "axis-range", f"{spec}: a rank-0 tensor has no axis to split on (got axis {axis})"
        )
    if not low <= axis <= rank - 1:
        raise RuleViolation(
            "axis-range", f"{spec}: axis {axis} is outside [{low}, {rank - 1}] for rank {rank}"
        )
    return axis + rank if axis < 0 else axis


def axis_and_dim(request: SplitRequest, spec: str) -> tuple[int, int]:
    """The request's axis (0 when it gives none) normalized, and the dimension along it."""
    axis = normalize_axis(0 if request.axis is None else request.axis, len(request.shape), spec)
    return axis, request.shape[axis]


def exact_lengths(axis: int, lengths: Sequence[int], dim: int, spec: str) -> Pieces:
    """Pieces of exactly the given non-negative lengths, which must sum to the dimension."""
    negative = [value for value in lengths if value < 0]
    if negative:
        raise RuleViolation("lengths-negative", f"{spec}: piece lengths must be >= 0; got {list(lengths)}")
    total = sum(lengths)
    if total != dim:
        raise RuleViolation(
            "lengths-sum",
            f"{spec}: the lengths must sum to the dimension along the axis; {list(lengths)} sums to "
            f"{total}, the dimension is {dim}",
        )
    return Pieces.from_lengths(axis, lengths)


def equal_lengths(length: int, count: int) -> list[int]:
    """``count`` pieces of ``length`` each."""
    return [length] * check_piece_count(count)


def ceil_lengths(dim: int, piece: int) -> list[int]:
    """Pieces of ``piece`` elements with a smaller last one: ceil(dim / piece) of them."""
    full, rest = divmod(dim, piece)
    check_piece_count(full + bool(rest))
    return [piece] * full + ([rest] if rest else [])


def balanced_lengths(dim: int, sections: int) -> list[int]:
    """Exactly ``sections`` pieces, the first ``dim % sections`` one element longer."""
    base, extra = divmod(dim, check_piece_count(sections))
    return [base + 1] * extra + [base] * (sections - extra)


def slice_bounds(axis: int, indices: Sequence[int], dim: int) -> Pieces:
    """Pieces [0:i0], [i0:i1], ..., [ik:dim] under Python slice rules, as the NumPy and
    torch.tensor_split texts describe: negative points count from the end, points clamp to [0, dim],
    and a point below its predecessor gives an empty piece (the next one starts from that point).
    """
    points = [0, *indices, dim]

    def clamp(point: int) -> int:
        if point < 0:
            point += dim
        return min(max(point, 0), dim)

    bounds = []
    for start, stop in itertools.pairwise(points):
        begin = clamp(start)
        bounds.append((begin, max(clamp(stop), begin)))
    return Pieces(axis, tuple(bounds))


def require_positive_count(count: int, rule: str, spec: str, what: str) -> None:
    """Counts of pieces (chunks, sections, outputs) start at one."""
    if count < 1:
        raise RuleViolation(rule, f"{spec}: {what} must be at least 1; got {count}")


def inferred_lengths(axis: int, lengths: Sequence[int], dim: int, spec: str, name: str) -> Pieces:
    """Pieces of the given sizes where at most one ``-1`` takes what the others leave (possibly 0):
    OpenVINO VariadicSplit's ``split_lengths`` and TensorFlow SplitV's ``size_splits``, which the
    LiteRT SPLIT_V builtin mirrors. ``name`` is the input's name in ``spec``'s text."""
    values = list(lengths)
    if any(value < -1 for value in values):
        raise RuleViolation(
            "lengths-below-minus-one", f"{spec}: {name} holds sizes and at most a single -1; got {values}"
        )
    if values.count(-1) > 1:
        raise RuleViolation(
            "lengths-minus-one-count", f"{spec}: {name} can contain a single -1; got {values}"
        )
    known = sum(value for value in values if value != -1)
    if -1 in values:
        if known > dim:
            raise RuleViolation(
                "lengths-sum",
                f"{spec}: the sizes other than -1 sum to {known}, more than the dimension {dim}, "
                "leaving nothing for -1 to take",
            )
        values = [dim - known if value == -1 else value for value in values]
    elif known != dim:
        raise RuleViolation(
            "lengths-sum",
            f"{spec}: the sum of {name} must match the dimension along the axis; {values} sums to "
            f"{known}, the dimension is {dim}",
        )
    return Pieces.from_lengths(axis, values)


def even_split(axis: int, dim: int, count: int, spec: str, name: str) -> Pieces:
    """``count`` equal pieces, as raw TensorFlow Split and the LiteRT SPLIT builtin it becomes
    define them: ``name`` (the count's name in ``spec``'s text) at least 1 and dividing ``dim``."""
    if count < 1:
        raise RuleViolation("num-split-positive", f"{spec}: {name} is a positive integer; got {count}")
    if dim % count:
        raise RuleViolation(
            "sections-divide", f"{spec}: {name} must divide the dimension along the axis; {dim} into {count}"
        )
    return Pieces.from_lengths(axis, equal_lengths(dim // count, count))
