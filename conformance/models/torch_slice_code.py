"""The torch slicing calls (``torch.narrow``, basic slicing ``x[a:b:c, ...]``) as Python source, for
reproducers: the run's own process writes them and must not import torch, so they live apart from
the modules (conformance.models.torch_slicing), as torch_code does for the split calls.
"""

from __future__ import annotations

from typing import Final

from conformance import reproducers
from conformance.corpus.case import SliceArguments
from conformance.plugin import Task

NARROW: Final = "torch.narrow"
GETITEM: Final = "torch.Tensor.__getitem__"
OPS: Final = (NARROW, GETITEM)


def slice_arguments(task: Task) -> SliceArguments:
    """The task's Slice request; any other op reaching here is the suite's defect."""
    if task.op not in OPS or not isinstance(task.request, SliceArguments):
        raise ValueError(f"{task.op} with {task.request} is not a torch slicing request ({', '.join(OPS)})")
    return task.request


def narrow_arguments(task: Task) -> tuple[int, int, int]:
    """``(dim, start, length)`` of the narrow call: torch.narrow has no default dim, so a case
    without ``axes`` narrows dim 0, the first entry its start and size describe."""
    arguments = slice_arguments(task)
    (start,), (length,) = arguments.starts, arguments.sizes or ()
    (dim,) = arguments.axes or (0,)
    assert start is not None, "the catalogue hands torch.narrow no omitted start"
    return dim, start, length


def start_fed(task: Task) -> bool:
    """Whether narrow's start is a forward input (a 0-dim tensor of ``graph.index_dtype``)."""
    return task.op == NARROW and task.graph.runtime("starts")


def module_code(task: Task) -> str:
    """Statements defining ``Slice``, torch_slicing.build_module's module, and ``tensor(array)``,
    the bit-exact conversion of the data."""
    if task.op == NARROW:
        dim, start, length = narrow_arguments(task)
        signature, given = ("x, start", "start") if start_fed(task) else ("x", str(start))
        call = f"torch.narrow(x, {dim}, {given}, {length})"
    else:
        signature, call = "x", f"x{reproducers.selection_code(slice_arguments(task))}"
    tensor = (
        "torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)"
        if task.dtype == "bfloat16"
        else "torch.from_numpy(array)"
    )
    return (
        f"class Slice(torch.nn.Module):\n    def forward(self, {signature}):\n"
        f"        return ({call},)\n\n"
        f"def tensor(array):\n    return {tensor}\n"
    )


def inputs_code(task: Task) -> str:
    """The forward inputs of this run, after ``data`` is defined: the data, and a fed start."""
    if not start_fed(task):
        return "tensor(data)"
    start = narrow_arguments(task)[1]
    return f"tensor(data), torch.tensor({start}, dtype=torch.{task.graph.index_dtype})"


def export_code(task: Task, example: str) -> str:
    """The ``torch.export.export`` call torch_slicing.exported_program makes, on the forward inputs
    ``example`` (:func:`inputs_code`)."""
    shapes = ""
    if task.graph.data_shape == "dynamic":
        dims = f"dict.fromkeys(range({task.data.ndim}), torch.export.Dim.DYNAMIC)"
        shapes = f", dynamic_shapes={{'x': {dims}" + (", 'start': None}" if start_fed(task) else "}")
    return f"torch.export.export(Slice(), ({example},){shapes})"
