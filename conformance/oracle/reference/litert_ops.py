"""The LiteRT (TensorFlow Lite) builtin operators SPLIT and SPLIT_V, from the TFLite dialect
reference (``tfl.split``, ``tfl.split_v``) and LiteRT's op-compatibility pages (docs/specs.md:
``litert-SPLIT``, ``litert-SPLIT_V``).

The dialect states the operands, the element types and ``num_splits`` (a positive attribute,
one output per split); it says nothing of the axis range, of dividing the axis or of ``-1``
sizes. Those points follow the TensorFlow ops the builtins are converted from (raw Split and
SplitV), which is what LiteRT's own kernels enforce; docs/specs.md marks them "our reading".
"""

from __future__ import annotations

from conformance.oracle.reference.answer import Pieces, SplitRequest
from conformance.oracle.reference.rules import RuleViolation, even_split, inferred_lengths, normalize_axis

SPLIT = "LiteRT SPLIT"
SPLIT_V = "LiteRT SPLIT_V"
#: The element types the dialect lists for the data of both builtins (quantized types aside).
SPLIT_TYPES = ("float32", "int8", "int16", "int32", "int64", "uint8")


def _checked(request: SplitRequest, spec: str) -> int:
    """The data's element type, then the axis: what both builtins check first."""
    if request.dtype not in SPLIT_TYPES:
        raise RuleViolation(
            "data-type", f"{spec}: the data must be one of {', '.join(SPLIT_TYPES)}; got {request.dtype}"
        )
    assert request.axis is not None, "catalogue.why_not_applicable keeps axis-less cases away"
    return normalize_axis(request.axis, len(request.shape), spec)


def split(request: SplitRequest) -> Pieces:
    """SPLIT: ``num_splits`` equal pieces."""
    axis = _checked(request, SPLIT)
    dim = request.shape[axis]
    return even_split(axis, dim, request.integer, SPLIT, "num_splits")


def split_v(request: SplitRequest) -> Pieces:
    """SPLIT_V: pieces of the given sizes, one of which may be -1."""
    axis = _checked(request, SPLIT_V)
    sizes = request.integers
    if not sizes:
        raise RuleViolation("num-split-positive", f"{SPLIT_V}: num_splits is a positive integer; got 0 sizes")
    return inferred_lengths(axis, sizes, request.shape[axis], SPLIT_V, "size_splits")
