"""The reference semantics: the oracle every backend is judged against.

NumPy-free arithmetic over shapes, written from the spec documents in docs/specs.md, one module
per op family. :func:`answer`, the one entry point, maps an op id to its rules and turns a broken
rule into a :class:`Rejection` that names it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from conformance.oracle.reference import (
    directional_ops,
    jax_ops,
    keras_ops,
    library_ops,
    litert_ops,
    mlx_ops,
    numpy_namesakes,
    onnx_ops,
    onnx_sequence_ops,
    openvino_ops,
    paddle_ops,
    tensorflow_ops,
    tfjs_ops,
)
from conformance.oracle.reference.answer import (
    Pieces,
    Reading,
    Rejection,
    SpecAnswer,
    SpecOutcome,
    SplitRequest,
)
from conformance.oracle.reference.rules import MAX_PIECES, TooManyPieces, answer_from

__all__ = [
    "MAX_PIECES",
    "Pieces",
    "Reading",
    "Rejection",
    "SpecAnswer",
    "SpecOutcome",
    "SplitRequest",
    "TooManyPieces",
    "answer",
]

_RULES: dict[str, Callable[[SplitRequest], SpecAnswer | Pieces]] = {
    "openvino.Split-1": openvino_ops.split_1,
    "openvino.VariadicSplit-1": openvino_ops.variadic_split_1,
    **{f"onnx.Split-{v}": partial(onnx_ops.split, v) for v in onnx_ops.VERSIONS},
    "torch.split": library_ops.torch_split,
    "torch.tensor_split": library_ops.torch_tensor_split,
    "torch.chunk": library_ops.torch_chunk,
    "numpy.split": library_ops.numpy_split,
    "numpy.array_split": library_ops.numpy_array_split,
    "tensorflow.split": tensorflow_ops.split,
    "tensorflow.experimental.numpy.split": tensorflow_ops.numpy_split,
    "tflite.SPLIT": litert_ops.split,
    "tflite.SPLIT_V": litert_ops.split_v,
    "onnx.SplitToSequence-11": onnx_sequence_ops.split_to_sequence,
    **{f"numpy.{d.name}": partial(directional_ops.numpy_directional, d) for d in directional_ops.DIRECTIONS},
    **{f"torch.{d.name}": partial(directional_ops.torch_directional, d) for d in directional_ops.DIRECTIONS},
    **numpy_namesakes.every("jax.numpy"),
    "jax.lax.split": jax_ops.lax_split,
    "keras.ops.split": keras_ops.split,
    **numpy_namesakes.every("cupy"),
    "mlx.core.split": mlx_ops.split,
    "tfjs.split": tfjs_ops.split,
    **paddle_ops.RULES,
}


def answer(op: str, request: SplitRequest) -> SpecAnswer:
    """What the spec of ``op`` says ``request`` must give: pieces, or a rejection naming its rule.
    Raises TooManyPieces for an answer of more than MAX_PIECES pieces (not judged)."""
    return answer_from(_RULES, op, request)
