"""The IREE adapter: the ``onnx.*`` ops (Split, SplitToSequence, Slice) imported, compiled and run by IREE.

Route ``onnx`` (off the default run: compiling costs about 500 ms per item, see docs/performance.md),
device ``local-task``. The model is the one :func:`conformance.models.onnx_graphs.build_model` builds,
the bytes ONNX Runtime's and OpenVINO's routes are handed, taken through IREE's ONNX path as IREE's
ONNX guide lays it out (:mod:`conformance_iree.toolchain`): *build* is ``iree-import-onnx`` with its
defaults (the model's own opset, never upgraded); *compile* the MLIR compiled for ``llvm-cpu`` on the
``local`` target device and loaded into a system context of the ``local-task`` driver; *run* the
module's function (named after the ONNX graph) called with the graph's inputs in order, every result
copied to the host.

SplitToSequence: a compiled function cannot return a sequence (iree-compile fails on a function
whose result is the importer's ``!torch.list`` of tensors: llvm/torch-mlir#753), so the model is
built with the Sequence ops that consume its sequence, as a model that uses the op reaches IREE, by
the rule :data:`conformance.models.sequence_consumers.LENGTH` (recorded as the option
``onnx_sequence_consumer``): SequenceAt at each of the reference's pieces; where the reference
rejects the request, one SequenceLength (1-D lengths) or SequenceAt at position 0 (a size, or no
split, whose list IREE cannot count), since torch-mlir lowers no ConcatFromSequence, which would have
every such request refused for its consumer and pass vacuously; one ConcatFromSequence where the
reference's piece counts differ between runs.

A refusal by any of the three tools is IREE's answer and is judged (``known_issues.yaml`` lists them
by meaning). Only string tensors are ``unsupported``: neither the torch dialect the importer writes
nor IREE's HAL has a string element type. Dynamic dims, a runtime ``split`` and Slice's runtime
``starts``, ``ends``, ``axes`` and ``steps`` (int32 or int64) are built as the case says, and judged
by what IREE makes of them: torch-mlir lowers Slice from opset 13 on only, so Slice-1, -10 and -11
models are refused by ``iree-compile``, IREE's answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

import numpy as np

from conformance import dtypes
from conformance.plugin import AdapterInfo, AdapterOptions, Route, Target, Task, Unsupported, version_of
from conformance_iree import reproducer, toolchain

NAME = "iree"
DEVICES = (toolchain.DRIVER,)


def _support(task: Task, target: Target) -> Unsupported | None:
    """Refuses string tensors (see the module docstring)."""
    if "string" in (task.dtype, task.graph.lengths_dtype):
        return Unsupported(
            "IREE has no string element type: the torch dialect iree-import-onnx writes has no "
            "string tensors and IREE's HAL no string element type, so the model cannot be imported"
        )
    return None


def _build(task: Task, target: Target) -> toolchain.Imported:
    """The MLIR ``iree-import-onnx`` writes for the suite's model (a sequence read by its consumers)."""
    from conformance.models import sequence_consumers

    model = sequence_consumers.model(task, sequence_consumers.LENGTH)
    inputs = tuple(value.name for value in model.graph.input)
    return toolchain.import_onnx(model.SerializeToString(), model.graph.name, inputs)


def _compile(model: toolchain.Imported, target: Target) -> toolchain.Loaded:
    """The MLIR compiled for llvm-cpu and loaded on the local-task device."""
    return toolchain.load(toolchain.compile_mlir(model.mlir), model)


def _run(compiled: toolchain.Loaded, task: Task) -> Sequence[np.ndarray]:
    """The task's feeds (data, and a runtime ``split`` or Slice index inputs) in the graph's input order."""
    from conformance.models import onnx_graphs

    feeds = onnx_graphs.feeds(task)
    declared = dtypes.numpy_dtype(task.dtype)
    return toolchain.invoke(compiled, [feeds[name] for name in compiled.inputs], declared)


def _prepare(target: Target) -> None:
    """One throwaway import, compile and load: the first of a process initializes LLVM's targets."""
    toolchain.warm_up()


ROUTE: Final = Route(
    "onnx",
    ("onnx.Split*", "onnx.Slice-*"),
    "the ONNX model imported by iree-import-onnx, compiled by iree-compile for llvm-cpu, run on local-task",
    build=_build,
    run=_run,
    support=_support,
    compile=_compile,
    reproducer=reproducer.snippet,
    prepare=_prepare,
    default=False,
)


class IreeAdapter:
    """Runs the onnx.* ops through IREE's importer, compiler and runtime; see the module docstring."""

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = AdapterOptions.parse(options, devices=DEVICES)

    def info(self) -> AdapterInfo:
        """The compiler's version as the backend's, and everything else that decides what runs: the
        runtime's version, the importer and its opset handling, the compiler's flags, onnx, and how
        a SplitToSequence is read."""
        from conformance.models import sequence_consumers

        return AdapterInfo(
            name=NAME,
            backend="iree-base-compiler",
            version=version_of("iree-base-compiler"),
            routes=(ROUTE,),
            devices=self.options.devices,
            options={
                **self.options.resolved,
                "iree_runtime_version": version_of("iree-base-runtime"),
                "onnx_version": version_of("onnx"),
                "importer": "iree-import-onnx MODEL -o MODEL.mlir (its defaults, called in-process)",
                "opset": "the model's own (no --opset-version: never converted)",
                "compile_flags": " ".join(toolchain.COMPILE_FLAGS),
                "compiler_call": "iree.compiler.api Session and Invocation in-process, defaults otherwise",
                "driver": toolchain.DRIVER,
                "onnx_sequence_consumer": sequence_consumers.LENGTH.text,
            },
        )
