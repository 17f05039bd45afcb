"""The reference semantics: the oracle every backend is judged against.

Pure NumPy-free arithmetic over shapes, written from the spec texts in ../shared/specs, one
module per op family. :func:`judge` is the single entry point: it maps an op id to its rules
and turns a broken rule into a :class:`Rejection` that names it. Adding an op family (Concat,
say) adds a module and entries in ``_JUDGES``; callers do not change.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from conformance.oracle.reference import library_ops, onnx_ops, openvino_ops
from conformance.oracle.reference.outcome import Outcome, Pieces, Reading, Rejection, Request, Verdict
from conformance.oracle.reference.rules import RuleViolation

__all__ = ["Outcome", "Pieces", "Reading", "Rejection", "Request", "Verdict", "judge"]

_JUDGES: dict[str, Callable[[Request], Verdict | Pieces]] = {
    "openvino.Split-1": openvino_ops.split_1,
    "openvino.VariadicSplit-1": openvino_ops.variadic_split_1,
    **{f"onnx.Split-{v}": partial(onnx_ops.judge, v) for v in onnx_ops.VERSIONS},
    "torch.split": library_ops.torch_split,
    "torch.tensor_split": library_ops.torch_tensor_split,
    "torch.chunk": library_ops.torch_chunk,
    "numpy.split": library_ops.numpy_split,
    "numpy.array_split": library_ops.numpy_array_split,
}


def judge(op: str, request: Request) -> Verdict:
    """What the spec of ``op`` says ``request`` must give: pieces, or a rejection naming its rule."""
    try:
        rules = _JUDGES[op]
    except KeyError:
        raise ValueError(f"the reference has no rules for op {op!r}") from None
    try:
        return Verdict.wrap(rules(request))
    except RuleViolation as violation:
        return Verdict.of(violation.rejection)
