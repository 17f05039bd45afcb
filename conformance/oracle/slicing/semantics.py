"""The Slice family's reference semantics: each op id's rules (:data:`RULES`), and the one entry
point that turns a broken rule into a rejection (:func:`slice_answer`). Which requests an op can
state at all is the catalogue's (conformance.corpus.slice_ops).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from conformance.oracle.reference.answer import SpecAnswer
from conformance.oracle.reference.rules import answer_from
from conformance.oracle.slicing import library_slice, onnx_slice, openvino_slice, tensorflow_slice
from conformance.oracle.slicing.request import SliceRequest
from conformance.oracle.slicing.window import Window

RULES: dict[str, Callable[[SliceRequest], SpecAnswer | Window]] = {
    **{f"onnx.Slice-{version}": partial(onnx_slice.slice_op, version) for version in onnx_slice.VERSIONS},
    "openvino.Slice-8": openvino_slice.slice_8,
    "openvino.StridedSlice-1": openvino_slice.strided_slice_1,
    "torch.narrow": library_slice.torch_narrow,
    "torch.Tensor.__getitem__": library_slice.torch_getitem,
    "numpy.ndarray.__getitem__": library_slice.numpy_getitem,
    "tensorflow.slice": tensorflow_slice.slice_,
    "tensorflow.strided_slice": tensorflow_slice.strided_slice,
}


def slice_answer(op: str, request: SliceRequest) -> SpecAnswer:
    """What the document of ``op`` says ``request`` must give: a window, or a rejection naming its
    rule (several readings where the document admits them)."""
    return answer_from(RULES, op, request)
