"""The tract adapter: the ``onnx.*`` ops as one-node ONNX models loaded and run by Sonos' tract.

Route ``onnx``, device ``cpu``: the model of :func:`conformance.models.onnx_graphs.model_bytes` (the
same bytes ONNX Runtime and OpenVINO's ONNX frontend are handed) is the *build*; tract's
``onnx().load(path).into_model().into_runnable()`` the *compile*; ``runnable.run([...])`` with the
task's data (and a runtime ``split``) the *run*. :mod:`conformance_tract.loading` has the details:
why the input facts are the model's own (a dynamic model keeps symbolic dims), the order inputs are
fed in, and how tract's tensors become arrays bit for bit.

No options besides ``device`` (``cpu``, the only one: the bindings' default runtime). tract takes
no thread count through its Python API, and a split moves data, so nothing else could change a
result.

What is refused as unsupported, and why only that:

- SplitToSequence: tract has no ONNX sequence type and no SplitToSequence operator
  (sonos/tract#2665), so the op cannot be expressed to it at all: every such model fails when it
  is typed, whatever the request;
- bfloat16 and complex data or lengths: tract's ONNX frontend maps no element type for them (its
  ``DatumType`` has neither), so the model cannot be loaded at all;
- string tensors fed at run time: tract has a String type, but its Python bindings cannot build a
  string tensor from NumPy (``Tensor.from_numpy`` takes fixed-size elements only).

Everything else is built and handed to tract, including what a version's spec forbids: a refusal
of something the spec allows is a finding, judged as ``error`` and listed in ``known_issues.yaml``.
That includes a ``split`` fed at run time: tract takes Split-13/18's ``split`` input only as a
constant and Split-1's lengths only as the attribute, and refuses every such model while typing it,
whatever the values (onnx/src/ops/array/split.rs); tract is reached and answers, so the refusal is
judged (a pass where the spec rejects the request, a known issue where it accepts it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

import numpy as np

from conformance.plugin import AdapterInfo, AdapterOptions, Route, Target, Task, Unsupported
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
    """Refuses only what cannot be handed to tract at all (see the module docstring)."""
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
    """The suite's one-node model, serialized; building never validates, invalid cases reach tract."""
    from conformance.models import onnx_graphs

    return onnx_graphs.model_bytes(task)


def _compile(model: bytes, target: Target) -> loading.Loaded:
    """tract's load, typing and optimization: where it checks and refuses a Split request
    (backtraces off here too: a worker that was not started for this target never ran
    ``prepare``)."""
    loading.quiet_error_backtraces()
    return loading.load(model)


def _run(compiled: loading.Loaded, task: Task) -> Sequence[np.ndarray]:
    """Feeds this run's data (and runtime ``split``) and returns every output, types kept."""
    from conformance.models import onnx_graphs

    return loading.run(compiled, onnx_graphs.feeds(task))


_LOAD: Final = """\
# load: the ONNX frontend; into_model: typing and declutter; into_runnable: optimized CPU plan
runnable = tract.onnx().load("model.onnx").into_model().into_runnable()
"""


def _reproducer(task: Task, target: Target) -> str:
    """The model byte for byte, saved as ``model.onnx`` (tract's bindings load from a path),
    tract's three calls as :mod:`conformance_tract.loading` makes them, and each run's feeds in
    tract's input order (the graph's: ``data``, then a runtime ``split``): tract and NumPy only."""
    from conformance.models import onnx_graphs

    return onnx_graphs.snippet(task, "import tract\n\n", _LOAD, _call, file="model.onnx")


def _call(variables: Mapping[str, str]) -> str:
    return (
        f"outputs = [tensor.to_numpy() for tensor in runnable.run([{', '.join(variables.values())}])]\n"
        "print([output.shape for output in outputs])\n"
    )


def _prepare(target: Target) -> None:
    """Turn off tract's error backtraces (see :func:`loading.quiet_error_backtraces`) and load
    tract's native library before the first item is timed."""
    loading.quiet_error_backtraces()
    import tract  # noqa: F401


ROUTE: Final = Route(
    "onnx",
    ("onnx.*",),
    "the ONNX model loaded by tract (onnx().load, into_model, into_runnable) and run",
    # Off the default run: alone, 3,459 items take 18.5 s at -j 2, but in the main job each of its
    # 240 panics costs a worker forked from a zygote holding every backend, and the route added
    # 80 s to it (293.5 s against 213.7 s at -j 2, quiet): about 46 ms of worker time per item.
    build=_build,
    run=_run,
    support=_support,
    compile=_compile,
    reproducer=_reproducer,
    prepare=_prepare,
    default=False,
    # importing tract loads its native library and starts no thread (checked: /proc/self/task)
)


class TractAdapter:
    """Runs the onnx.* ops through tract; see the module docstring for the route and what is refused."""

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = AdapterOptions.parse(options, devices=("cpu",))

    def info(self) -> AdapterInfo:
        """tract's version (from its distribution, so the parent never loads the native library),
        the calls every model goes through, and the onnx package that serialized the models."""
        import onnx

        return AdapterInfo(
            name=NAME,
            backend="tract",
            version=loading.version(),
            routes=(ROUTE,),
            devices=self.options.devices,
            options={
                **self.options.resolved,
                "tract_version": loading.version(),
                "call": loading.CALL,
                "passes": loading.PASSES,
                "input_facts": loading.INPUT_FACTS,
                "onnx_version": onnx.__version__,
            },
        )
