"""torch.narrow, and basic slicing of torch and NumPy (``x[a:b:c, ...]``), from PyTorch's API and
indexing pages and NumPy's indexing page (docs/specs.md, ``pytorch-torch.narrow``,
``pytorch-indexing``, ``numpy-indexing``).

NumPy's page defines basic slicing per dimension by Python's sequence slicing (``k != 0``, negative
bounds from the end, omitted bounds the fullest range in the step's direction, missing trailing
entries ``:``); the clamping of out-of-range bounds is Python's. PyTorch's pages say tensors are
indexed with Python's slicing notation and follow NumPy's basic indexing, and say nothing of
negative steps; PyTorch's maintainers state that they are not supported (pytorch/pytorch issues
59786 and 99297), so a negative step is read both ways.

A case's ``axes`` say which dimension each entry slices: ``x[:, a:b]`` for axes [1], and with
negative axes ``x[..., a:b]``. An entry beyond the array's dimensions makes the selection tuple
longer than the rank, which NumPy refuses (``index-count``).
"""

from __future__ import annotations

from collections.abc import Sequence

from conformance import dtypes
from conformance.oracle.reference.answer import Rejection, SpecAnswer
from conformance.oracle.reference.rules import RuleViolation
from conformance.oracle.slicing.indexing import (
    attempt,
    either,
    from_end,
    integers,
    normalize_axes,
    python_span,
    require_nonzero_steps,
)
from conformance.oracle.slicing.request import SliceRequest
from conformance.oracle.slicing.window import Window, full_span, span_of

NARROW = "torch.narrow"
TORCH_GETITEM = "torch.Tensor.__getitem__"
NUMPY_GETITEM = "numpy.ndarray.__getitem__"


def numpy_getitem(request: SliceRequest) -> Window:
    """NumPy's basic slicing."""
    return _basic_slicing(request, NUMPY_GETITEM)


#: Why a negative step is an open point for torch's basic slicing.
NEGATIVE_STEP_AMBIGUITY = (
    "PyTorch's pages index tensors with Python's slicing notation and follow NumPy's basic indexing, "
    "saying nothing of negative steps; its maintainers state they are not supported "
    "(pytorch/pytorch issues 59786 and 99297)"
)


def torch_getitem(request: SliceRequest) -> SpecAnswer | Window:
    """torch's basic slicing: NumPy's, with a negative step read both ways."""
    steps = request.arguments.steps or ()
    require_nonzero_steps(steps, TORCH_GETITEM, "Python's slice step k cannot be 0")
    negative = [step for step in steps if step < 0]
    if not negative:
        return _basic_slicing(request, TORCH_GETITEM)
    refused = Rejection(
        "step-positive",
        f"{TORCH_GETITEM}: PyTorch does not support negative slice steps (its maintainers' word in "
        f"pytorch/pytorch issue 59786); got steps {list(steps)}",
    )
    return either(
        [
            ("negative steps refused", refused),
            ("reversed, as NumPy's basic slicing", attempt(_basic_slicing, request, TORCH_GETITEM)),
        ],
        NEGATIVE_STEP_AMBIGUITY,
    )


def _basic_slicing(request: SliceRequest, spec: str) -> Window:
    """``x[start:stop:step]`` on each listed dimension, ``:`` on the others."""
    arguments, shape = request.arguments, request.shape
    starts, ends = list(arguments.starts), list(arguments.ends or ())
    steps = list(arguments.steps) if arguments.steps is not None else [1] * len(starts)
    require_nonzero_steps(steps, spec, "the step k of i:j:k is not 0")
    spans = [full_span(dim) for dim in shape]
    axes = _dimensions(arguments.axes, len(starts), shape, spec)
    for axis, start, stop, step in zip(axes, starts, ends, steps, strict=True):
        spans[axis] = python_span(shape[axis], start, stop, step)
    return Window(tuple(spans))


def _dimensions(axes: Sequence[int] | None, count: int, shape: tuple[int, ...], spec: str) -> list[int]:
    """The dimension each entry slices; the selection tuple cannot reach past the array's rank."""
    listed = list(axes) if axes is not None else list(range(count))
    positions = [from_end(axis, len(shape)) for axis in listed]
    if any(not 0 <= position < len(shape) for position in positions):
        raise RuleViolation(
            "index-count",
            f"{spec}: a selection tuple has at most one entry per dimension; entries on axes {listed} "
            f"do not fit rank {len(shape)}",
        )
    return positions


def torch_narrow(request: SliceRequest) -> Window:
    """``torch.narrow(x, dim, start, length)``: ``length`` elements from ``start`` along ``dim``."""
    arguments, shape, graph = request.arguments, request.shape, request.graph
    if graph.runtime("starts") and graph.index_dtype not in dtypes.INTEGER:
        raise RuleViolation(
            "index-type", f"{NARROW}: a Tensor start is a 0-dim integral tensor; got {graph.index_dtype}"
        )
    (start,), (length,) = integers(arguments.starts), tuple(arguments.sizes or ())
    (axis,) = normalize_axes(arguments.axes or (0,), len(shape), NARROW)
    if length < 0:
        raise RuleViolation("length-negative", f"{NARROW}: length must be weakly positive; got {length}")
    dim = shape[axis]
    first = from_end(start, dim)
    if not 0 <= first <= first + length <= dim:
        raise RuleViolation(
            "slice-range",
            f"{NARROW}: the narrowed dimension runs from start to start + length inside the input; got "
            f"start {start}, length {length} on a dimension of {dim}",
        )
    spans = [full_span(size) for size in shape]
    spans[axis] = span_of(first, 1, length)
    return Window(tuple(spans))
