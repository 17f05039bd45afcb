"""The tract adapter: the ``onnx.Split*`` and ``onnx.Slice-*`` ops as one-node ONNX models loaded
and run by Sonos' tract.

Route ``onnx``, device ``cpu`` (the bindings' default runtime; they take no thread count, and a
split or a slice moves data, so there are no other options): the bytes of
:func:`conformance.models.onnx_graphs.model_bytes` are the *build*, tract's
``onnx().load(path).into_model().into_runnable()`` the *compile*, ``runnable.run([...])`` the *run*
(:mod:`conformance_tract.loading` has the details).

What is refused as unsupported, and why only that:

- SplitToSequence: tract has no ONNX sequence type and no SplitToSequence operator
  (sonos/tract#2665): every such model fails when it is typed, whatever the request;
- bfloat16 and complex data or lengths: tract's ONNX frontend maps no element type for them;
- string tensors fed at run time: the Python bindings cannot build a string tensor from NumPy.

Everything else is handed to tract, including what the spec forbids: a refusal of something the
spec allows is a finding listed in ``known_issues.yaml``. So is a ``split`` fed at run time: tract
takes Split-13/18's ``split`` only as a constant and Split-1's lengths only as the attribute, and
refuses every such model while typing it (onnx/src/ops/array/split.rs); that refusal is judged.
Slice's index inputs fed at run time are handed over the same way: tract reads Slice-10/11/13 as its
StridedSlice, which takes steps and axes only as constants (core/src/ops/array/strided_slice.rs).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

import numpy as np

from conformance.plugin import AdapterInfo, AdapterOptions, Route, Target, Task, Unsupported, version_of
from conformance_tract import loading

NAME: Final = "tract"
#: Why a SplitToSequence model cannot be judged (checked on tract 0.23.9).
SEQUENCE_OUTPUT: Final = (
    "tract has no ONNX sequence type and no SplitToSequence operator: the model fails when it is "
    "typed, whatever the request ('Unimplemented(SplitToSequence) ... Operator can not be made a "
    "TypedOp'; https://github.com/sonos/tract/issues/2665)"
)
#: Element types tract's ONNX frontend cannot read, and why.
_NO_ELEMENT_TYPE: Final = {
    "bfloat16": "tract has no bfloat16 type (https://github.com/sonos/tract/issues/2325)",
    "complex64": "tract's ONNX frontend maps no complex element type",
    "complex128": "tract's ONNX frontend maps no complex element type",
}
_STRING_FEED: Final = (
    "tract's Python bindings cannot build a string tensor: Tensor.from_numpy hands tract the array's "
    "bytes with an element type that dt_numpy_to_tract maps from the dtype's kind (bool, integers, "
    "floats, complex only) and refuses any other (api/py/tract/tensor.py, "
    "https://github.com/sonos/tract/blob/main/api/py/tract/tensor.py); tract itself has a String type, "
    "so strings held in the model load"
)


def _support(task: Task, target: Target) -> Unsupported | None:
    from conformance.models import onnx_graphs

    if onnx_graphs.is_sequence(task.op):
        return Unsupported(SEQUENCE_OUTPUT)
    for name in (task.dtype, task.graph.lengths_dtype):
        if name in _NO_ELEMENT_TYPE:
            return Unsupported(
                f"tract's ONNX frontend has no element type for tensor({name}), so the model cannot "
                f"be loaded ('Unknown DatumType'): {_NO_ELEMENT_TYPE[name]}"
            )
    if any(array.dtype.kind in "OUS" for array in onnx_graphs.feeds(task).values()):
        return Unsupported(_STRING_FEED)
    return None


def _build(task: Task, target: Target) -> bytes:
    from conformance.models import onnx_graphs

    return onnx_graphs.model_bytes(task)


def _compile(model: bytes, target: Target) -> loading.Loaded:
    loading.quiet_error_backtraces()  # here too: a worker not started for this target skipped prepare
    return loading.load(model)


def _run(compiled: loading.Loaded, task: Task) -> Sequence[np.ndarray]:
    from conformance.models import onnx_graphs

    return loading.run(compiled, onnx_graphs.feeds(task))


_LOAD: Final = """\
# load: the ONNX frontend; into_model: typing and declutter; into_runnable: optimized CPU plan
runnable = tract.onnx().load("model.onnx").into_model().into_runnable()
"""


def _reproducer(task: Task, target: Target) -> str:
    """The model saved as ``model.onnx`` (tract loads from a path), tract's three calls, and each
    run's feeds in tract's input order: tract and NumPy only."""
    from conformance.models import onnx_graphs

    return onnx_graphs.snippet(task, "import tract\n\n", _LOAD, _call, file="model.onnx")


def _call(variables: Mapping[str, str]) -> str:
    return (
        f"outputs = [tensor.to_numpy() for tensor in runnable.run([{', '.join(variables.values())}])]\n"
        "print([output.shape for output in outputs])\n"
    )


def _prepare(target: Target) -> None:
    """Quiet tract's backtraces and load its native library before the first item is timed."""
    loading.quiet_error_backtraces()
    import tract  # noqa: F401


ROUTE: Final = Route(
    "onnx",
    ("onnx.Split*", "onnx.Slice-*"),
    "the ONNX model loaded by tract (onnx().load, into_model, into_runnable) and run",
    build=_build,
    run=_run,
    support=_support,
    compile=_compile,
    reproducer=_reproducer,
    prepare=_prepare,
    # off the default run: each of its panics costs a worker, which added 80 s to the main job
    default=False,
)


class TractAdapter:
    """Runs the onnx.* ops through tract; see the module docstring for the route and what is refused."""

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = AdapterOptions.parse(options, devices=("cpu",))

    def info(self) -> AdapterInfo:
        """tract's version, the calls every model goes through, and the onnx that wrote the models."""
        import onnx

        return AdapterInfo(
            name=NAME,
            backend="tract",
            version=version_of("tract"),
            routes=(ROUTE,),
            devices=self.options.devices,
            options={
                **self.options.resolved,
                "tract_version": version_of("tract"),
                "call": loading.CALL,
                "passes": loading.PASSES,
                "input_facts": loading.INPUT_FACTS,
                "onnx_version": onnx.__version__,
            },
        )
