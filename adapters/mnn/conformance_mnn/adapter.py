"""The MNN adapter: the ``onnx.*`` ops (Split, SplitToSequence, Slice) as the suite's one-node ONNX
models, converted by MNN's converter and run by MNN on the CPU.

Route ``onnx``, device ``cpu``: the model of :func:`conformance.models.onnx_graphs.model_bytes`
(the bytes every ONNX backend is handed) converted by ``mnnconvert -f ONNX`` in a child process
is the *build*; ``MNN.nn.load_module_from_file`` the *compile*; ``forward`` with the task's data
(and a runtime ``split``, or Slice's runtime ``starts``, ``ends``, ``axes`` and ``steps``) the *run*. :mod:`conformance_mnn.mnn_calls` has the details: why the
converter's native entry and not its console script, how its success is told, and which element
types MNN holds.

A converter that prints a warning and exits 0 is not taken at its word: the model it wrote is
loaded, run and judged. A converter that dies by a signal takes the worker with it (a ``crash``,
one result); a refusal (no model written, a load or run that raises) is MNN's answer and judged.

Unsupported, and only that: element types MNN's Python API cannot be handed (int8, complex,
string: :data:`conformance_mnn.mnn_calls.NOT_FED`). Types MNN narrows (float64 to float32, int64
to int32 ...) are converted, run and judged: the narrowed outputs are MNN's answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

import numpy as np

from conformance.plugin import AdapterInfo, AdapterOptions, Route, Target, Task, Unsupported, version_of
from conformance_mnn import mnn_calls

NAME: Final = "mnn"


def _names(task: Task) -> tuple[list[str], list[str]]:
    """The graph's inputs (data, and a runtime ``split`` or Slice index inputs) and outputs, as the
    converted model keeps them."""
    from conformance.models import onnx_graphs

    inputs = list(onnx_graphs.feeds(task))
    if onnx_graphs.is_sequence(task.op):
        return inputs, [onnx_graphs.SEQUENCE]
    return inputs, [onnx_graphs.output_name(index) for index in range(onnx_graphs.output_count(task))]


#: Why SplitToSequence's pieces cannot be judged (checked on MNN 3.6.1).
SEQUENCE_OUTPUT: Final = (
    "MNN's converter turns SplitToSequence into a TensorArraySplit, and its Python API hands the "
    "TensorArray back as one flat variable holding every piece's elements end to end: it has no "
    "TensorArray read (MNN.expr offers none), so the pieces and their shapes cannot be taken out"
)


def support(task: Task, target: Target) -> Unsupported | None:
    """Refuses SplitToSequence and the element types MNN cannot be handed (the data's, or a Split-1
    ``split`` of the data's type)."""
    from conformance.models import onnx_graphs

    if onnx_graphs.is_sequence(task.op):
        return Unsupported(SEQUENCE_OUTPUT)
    for array in onnx_graphs.feeds(task).values():
        name = mnn_calls.suite_name(array)
        if name in mnn_calls.NOT_FED:
            return Unsupported(f"tensor({name}) cannot be fed to MNN: {mnn_calls.NOT_FED[name]}")
    return None


def build(task: Task, target: Target) -> mnn_calls.Converted:
    """The suite's one-node model converted by MNN's converter: the .mnn bytes it wrote, and the
    graph's input and output names the load asks for."""
    from conformance.models import onnx_graphs

    inputs, outputs = _names(task)
    converted = mnn_calls.convert(onnx_graphs.model_bytes(task))
    return mnn_calls.Converted(converted, tuple(inputs), tuple(outputs))


def compile_model(model: mnn_calls.Converted, target: Target) -> mnn_calls.Loaded:
    """The converted model loaded by MNN."""
    return mnn_calls.load(model)


def run(model: mnn_calls.Loaded, task: Task) -> Sequence[np.ndarray]:
    """Feeds this run's data (and runtime ``split`` or Slice indices) and returns every output MNN gives."""
    from conformance.models import onnx_graphs

    return mnn_calls.run(model, onnx_graphs.feeds(task))


def reproducer(task: Task, target: Target) -> str | None:
    """The model byte for byte, the converter in a child Python, MNN's load and one run per run."""
    from conformance_mnn import reproducer as snippets

    inputs, outputs = _names(task)
    return snippets.snippet(task, inputs, outputs)


def _prepare(target: Target) -> None:
    """Load MNN's library (it probes the CPU's features once) before the first item is timed."""
    import MNN.expr
    import MNN.nn  # noqa: F401


ROUTE: Final = Route(
    "onnx",
    ("onnx.Split-*", "onnx.SplitToSequence-11", "onnx.Slice-*"),
    "the ONNX model converted by MNN's converter (mnnconvert -f ONNX), run by MNN's Express module",
    build=build,
    compile=compile_model,
    run=run,
    support=support,
    reproducer=reproducer,
    prepare=_prepare,
    # about 110 ms per item: the converter is a child process (see docs/performance.md)
    default=False,
)


class MnnAdapter:
    """Runs the onnx.* ops through MNN's converter and runtime; see the module docstring."""

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = AdapterOptions.parse(options, devices=("cpu",))

    def info(self) -> AdapterInfo:
        """MNN's version (from its distribution: the parent never loads MNN), the converter's call
        and the load's settings, and the onnx that serialized the models."""
        import onnx

        return AdapterInfo(
            name=NAME,
            backend="MNN",
            version=version_of("MNN"),
            routes=(ROUTE,),
            devices=self.options.devices,
            options={
                **self.options.resolved,
                "converter": f"mnnconvert {' '.join(mnn_calls.CONVERTER_ARGS)}"
                " (its native entry, _tools.mnnconvert)",
                "load": mnn_calls.LOAD_CALL,
                "onnx_version": onnx.__version__,
            },
        )
