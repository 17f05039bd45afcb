"""Standalone reproducers: Python statements that redo an item with JAX and NumPy alone.

They write out what :mod:`conformance_jax.calls` does as plain code (the mode, the call, the jit with
its static or traced split value, the lowering and compilation), so that a JAX developer can rerun a
finding without the suite. Each run of a case prints its pieces' shapes and dtypes: in the 32-bit
mode the dtype is the finding.
"""

from __future__ import annotations

from conformance import reproducers
from conformance.plugin import Target, Task
from conformance_jax import calls

_DATA_SPEC = "jax.ShapeDtypeStruct(data.shape, data.dtype)"
_PRINT = "print([(tuple(piece.shape), str(piece.dtype)) for piece in pieces])\n"


def _mode_code(device: str) -> str:
    """JAX on the device's platform (the CPU alone, or JAX's first GPU made the default device), in
    the device's mode (stated even when it is the default)."""
    x64 = calls.x64(device)
    mode = f"64-bit mode (device {device})" if x64 else f"default 32-bit mode (device {device})"
    if calls.platform(device) == calls.GPU:
        platform = 'jax.config.update("jax_default_device", jax.devices("gpu")[0])  # JAX\'s first GPU\n'
    else:
        platform = 'jax.config.update("jax_platforms", "cpu")\n'
    return f'import jax\n\n{platform}jax.config.update("jax_enable_x64", {x64})  # JAX\'s {mode}\n'


def _call_code(task: Task, data: str, value: str) -> str:
    """The op's call on ``data`` with ``value``, ``axis=`` only when the case states one."""
    axis = "".join(f", axis={given!r}" for given in calls.axis_keywords(task.request.axis).values())
    return f"{task.op}({data}, {value}{axis})"


def eager(task: Task, target: Target) -> str:
    """One call per run on that run's data and value: eager JAX has no model to build once."""
    body = _mode_code(target.device)
    for run in task.every_run:
        call = _call_code(run, "jax.numpy.asarray(data)", repr(calls.value(run)))
        body += f"{reproducers.run_heading(run)}{reproducers.array_code(run.data)}\npieces = {call}\n{_PRINT}"
    return body


def jit(task: Task, target: Target) -> str:
    """One jitted function, lowered and compiled for the first run's data, called for every run."""
    call = _call_code(task, "data", "value")
    body = _mode_code(target.device)
    if calls.traced(task):
        given = calls.traced_value(task)
        body += f"split = jax.jit(lambda data, value: {call})\n"
        lower = f"jax.ShapeDtypeStruct({given.shape!r}, np.{given.dtype.name})"
    else:
        body += f"split = jax.jit(lambda data, value: {call}, static_argnames='value')\n"
        lower = f"value={calls.value(task, hashable=True)!r}"
    for run in task.every_run:
        body += f"{reproducers.run_heading(run)}{reproducers.array_code(run.data)}\n"
        if run is task:
            body += f"compiled = split.lower({_DATA_SPEC}, {lower}).compile()\n"
        if calls.traced(task):
            value = calls.traced_value(run)
            body += f"value = np.array({value.tolist()!r}, dtype=np.{value.dtype.name})\n"
            body += "pieces = compiled(jax.numpy.asarray(data), jax.numpy.asarray(value))\n"
        else:
            body += "pieces = compiled(jax.numpy.asarray(data))\n"
        body += _PRINT
    return body
