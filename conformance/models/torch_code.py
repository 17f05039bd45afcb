"""The torch split calls as Python source, for reproducers. The run's own process writes them and
must not import torch (1.7 s), so they live apart from the modules (conformance.models.torch_modules).
"""

from __future__ import annotations

from typing import Final

from conformance.plugin import Task

#: The request forms each torch op takes.
FORMS: Final[dict[str, frozenset[str]]] = {
    "torch.split": frozenset({"size", "lengths"}),
    "torch.tensor_split": frozenset({"parts", "indices"}),
    "torch.chunk": frozenset({"parts"}),
    "torch.hsplit": frozenset({"parts", "indices"}),
    "torch.vsplit": frozenset({"parts", "indices"}),
    "torch.dsplit": frozenset({"parts", "indices"}),
}
_LIST_FORMS: Final = frozenset({"lengths", "indices"})


def split_argument(task: Task) -> int | list[int]:
    """The second argument of the call: an int for ``size``/``parts``, a list for ``lengths``/``indices``."""
    if task.op not in FORMS:
        raise ValueError(f"{task.op} is not a torch op; known: {', '.join(FORMS)}")
    allowed = FORMS[task.op]
    if task.request.form.kind not in allowed:
        raise ValueError(
            f"{task.op} takes no '{task.request.form.kind}' request (it takes {', '.join(sorted(allowed))})"
        )
    if task.request.form.kind in _LIST_FORMS:
        return [int(v) for v in task.request.form.values]
    return int(task.request.form.values[0])


def module_code(task: Task) -> str:
    """Statements defining ``Split``, torch_modules.build_module's module, and ``tensor(array)``,
    the bit-exact conversion."""
    argument = split_argument(task)
    dim = "" if task.request.axis is None else f", dim={task.request.axis}"
    tensor = (
        "torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)"
        if task.dtype == "bfloat16"
        else "torch.from_numpy(array)"
    )
    return (
        "class Split(torch.nn.Module):\n    def forward(self, x):\n"
        f"        return {task.op}(x, {argument!r}{dim})\n\n"
        f"def tensor(array):\n    return {tensor}\n"
    )


def dynamic_code(task: Task) -> str:
    """The ``dynamic_shapes`` argument (after a comma) torch_modules.dynamic_shapes gives an export
    of ``Split`` when the case's data dims are unknown, else nothing."""
    if task.graph.data_shape != "dynamic":
        return ""
    return f", dynamic_shapes={{'x': dict.fromkeys(range({task.data.ndim}), torch.export.Dim.DYNAMIC)}}"


def export_code(task: Task, example: str) -> str:
    """The ``torch.export.export`` call torch_modules.exported_program makes, on the tensor ``example``."""
    return f"torch.export.export(Split(), ({example},){dynamic_code(task)})"
