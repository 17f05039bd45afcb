"""The index inputs and masks of OpenVINO's Slice ops, as a case states them (no OpenVINO import).

The native route builds its ``Slice-8`` or ``StridedSlice-1`` node from these, and its reproducer
writes the same inputs as ``openvino`` calls, so the two cannot drift apart. Both ops take their
indices as tensors of one integer type (``graph.index_dtype``), each a Constant or, where the case
feeds it at run time, a Parameter. Slice-8's ``step`` input is required and StridedSlice-1's Python
builder takes ``strides`` always: a case without steps gets ones there, as a user writes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np

from conformance import dtypes
from conformance.corpus.case import MASK_NAMES, SliceArguments
from conformance.plugin import Task

SLICE_8: Final = "openvino.Slice-8"
STRIDED: Final = "openvino.StridedSlice-1"
OPS: Final = (SLICE_8, STRIDED)
#: Each op's index inputs in node order: (its name in the op's specification, the case key).
_INPUTS: Final = {
    SLICE_8: (("start", "starts"), ("stop", "ends"), ("step", "steps"), ("axes", "axes")),
    STRIDED: (("begin", "starts"), ("end", "ends"), ("stride", "steps")),
}


@dataclass(frozen=True)
class IndexInput:
    """One index input of the node: the op's name for it, the case key it comes from, its values
    in ``graph.index_dtype`` and whether the case feeds it at run time."""

    name: str
    key: str
    array: np.ndarray
    runtime: bool


def arguments_of(task: Task) -> SliceArguments:
    """The task's request, which the catalogue gives as Slice arguments for these ops."""
    request = task.request
    assert isinstance(request, SliceArguments), f"{task.op} takes a Slice request"
    return request


def values(task: Task) -> dict[str, tuple[int, ...]]:
    """The integers each index input holds, by case key; steps of ones where the case gives none.
    Omitted axes stay absent (Slice-8 then slices the leading axes)."""
    arguments = arguments_of(task)
    starts = arguments.starts
    assert None not in starts + (arguments.ends or ()), "the catalogue keeps omitted bounds away"
    given: dict[str, tuple[int, ...]] = {
        "starts": tuple(int(value) for value in starts if value is not None),
        "ends": tuple(int(value) for value in arguments.ends or () if value is not None),
        "steps": arguments.steps if arguments.steps is not None else (1,) * len(starts),
    }
    if arguments.axes is not None:
        given["axes"] = arguments.axes
    return given


def index_inputs(task: Task) -> list[IndexInput]:
    """The node's index inputs after ``data``, in its order, typed as the case says."""
    given = values(task)
    arguments = arguments_of(task)
    numpy_type = dtypes.numpy_dtype(task.graph.index_dtype)
    found = []
    for name, key in _INPUTS[task.op]:
        if key in given:
            array = np.asarray(given[key], dtype=np.int64).astype(numpy_type).reshape(len(given[key]))
            runtime = getattr(arguments, key) is not None and task.graph.runtime(key)
            found.append(IndexInput(name, key, array, runtime))
    return found


def masks(task: Task) -> dict[str, list[int]]:
    """StridedSlice-1's five mask attributes as 0/1 lists, one entry per begin position."""
    given = arguments_of(task).masks
    assert given is not None, "the catalogue hands StridedSlice-1 the strided form only"
    length = len(arguments_of(task).starts)
    return {f"{name}_mask": given.vector(name, length) for name in MASK_NAMES}
