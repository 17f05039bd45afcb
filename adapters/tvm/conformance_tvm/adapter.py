"""The tvm adapter: the ``onnx.*`` ops as one-node ONNX models imported by Apache TVM's Relax ONNX
frontend, compiled for the CPU and run on the Relax virtual machine.

Route ``onnx``, device ``llvm`` (TVM's CPU target, the host): the model of
:func:`conformance.models.onnx_graphs.model_bytes` (the same bytes ONNX Runtime, OpenVINO and tract
are handed) imported by ``from_onnx`` is the *build*; ``tvm.compile(target="llvm")`` and a
``relax.VirtualMachine`` the *compile*; ``vm["main"]`` with the task's data (and a runtime ``split``)
the *run*. :mod:`conformance_tvm.loading` has the details (what ``from_onnx`` is given and why,
the order inputs are fed in, outputs bit for bit).

The route is off the default run (``default=False``): converting and compiling cost 40 to 60 ms per
item, over the suite's 20 ms bound; ``nox -s extra_targets`` or ``--target 'tvm/*'`` runs it.

What is refused as unsupported, and why only that:

- complex data or lengths: TVM has no complex element type ("unknown dtype `complex64`"), so the
  model cannot be imported at all;
- string data: TVM has no string tensors ("unknown dtype `object`").

Everything else is handed to TVM, including what a version's spec forbids: a refusal of something
the spec allows is a finding, judged as ``error`` and listed in ``known_issues.yaml``. That includes
a ``split`` fed at run time: the frontend's Split-13/18 and SplitToSequence converters refuse any
non-constant ``split`` while importing, whatever its values ("Dynamic Split not yet supported",
"Only constant split supported for SplitToSequence"); TVM is reached and answers, so the refusal is
judged (a pass where the spec rejects the request, a known issue where it accepts it). Split-1's
runtime ``split`` is imported, and ignored, which is a finding too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

import numpy as np

from conformance.plugin import (
    AdapterInfo,
    AdapterOptions,
    Route,
    Target,
    Task,
    Unsupported,
    backend_calls,
)
from conformance_tvm import loading

NAME: Final = "tvm"
#: Element types TVM has no dtype for, and why.
_NO_ELEMENT_TYPE: Final = {
    "complex64": "TVM has no complex element type",
    "complex128": "TVM has no complex element type",
}
_STRING_DATA: Final = (
    "TVM has no string tensors: tvm.runtime.tensor refuses object arrays ('unknown dtype `object`')"
)


def _support(task: Task, target: Target) -> Unsupported | None:
    """Refuses only what cannot be handed to TVM at all (see the module docstring)."""
    from conformance.models import onnx_graphs

    for name in (task.dtype, task.graph.lengths_dtype):
        if name in _NO_ELEMENT_TYPE:
            return Unsupported(
                f"TVM has no dtype for tensor({name}), so the model cannot be imported "
                f"('unknown dtype `{name}`'): {_NO_ELEMENT_TYPE[name]}"
            )
    if any(array.dtype.kind in "OUS" for array in onnx_graphs.feeds(task).values()):
        return Unsupported(_STRING_DATA)
    return None


def _build(task: Task, target: Target) -> loading.Imported:
    """The suite's one-node model, serialized, then imported by ``from_onnx``: where the
    frontend checks a Split request. Building never validates: invalid cases reach TVM."""
    from conformance.models import onnx_graphs

    model = onnx_graphs.model_bytes(task)
    with backend_calls():
        return loading.import_model(model)


def _compile(model: loading.Imported, target: Target) -> loading.Compiled:
    """``tvm.compile`` for llvm and a Relax VM on the CPU."""
    with backend_calls():
        return loading.compile_module(model)


def _run(compiled: loading.Compiled, task: Task) -> Sequence[np.ndarray]:
    """Feeds this run's data (and a runtime Split-1 ``split``) and returns every output, types kept."""
    from conformance.models import onnx_graphs

    feeds = onnx_graphs.feeds(task)
    with backend_calls():
        return loading.run(compiled, feeds)


_IMPORTS: Final = (
    "import onnx\nimport tvm\nfrom tvm import relax\nfrom tvm.relax.frontend.onnx import from_onnx\n\n"
)
_LOAD: Final = """\
# import: TVM's Relax ONNX frontend, the model's own opset and input shapes
mod = from_onnx(onnx.load_from_string(model))
# compile for the host CPU, and a Relax VM on it
vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())


def pieces(output):
    return [output.numpy()] if hasattr(output, "numpy") else [p for o in output for p in pieces(o)]
"""


def _reproducer(task: Task, target: Target) -> str:
    """The model byte for byte (also saved as ``model.onnx``, for anyone who wants to open it),
    TVM's import, compile and VM calls as :mod:`conformance_tvm.loading` makes them, and each run's
    feeds in the model's input order (a SplitToSequence's sequence comes back as a tuple of
    tensors, printed as its pieces): TVM, onnx and NumPy only."""
    from conformance.models import onnx_graphs

    return onnx_graphs.snippet(task, _IMPORTS, _LOAD, _call, file="model.onnx")


def _call(variables: Mapping[str, str]) -> str:
    arguments = ", ".join(f"tvm.runtime.tensor({variable})" for variable in variables.values())
    return f'outputs = pieces(vm["main"]({arguments}))\nprint([output.shape for output in outputs])\n'


def _prepare(target: Target) -> None:
    """Import TVM and its ONNX frontend (3 s) before the first item is timed."""
    import tvm.relax.frontend.onnx  # noqa: F401


ROUTE: Final = Route(
    "onnx",
    ("onnx.*",),
    "the ONNX model imported by TVM's Relax frontend (from_onnx), compiled for llvm and run on the Relax VM",
    # 40-60 ms per item (import, then compile), over the default run's 20 ms bound
    build=_build,
    run=_run,
    support=_support,
    compile=_compile,
    reproducer=_reproducer,
    prepare=_prepare,
    default=False,
    # importing tvm (and its Relax ONNX frontend) starts no thread: checked with /proc/self/task
    # under the zygote's OPENBLAS_NUM_THREADS=1
)


class TvmAdapter:
    """Runs the onnx.* ops through TVM; see the module docstring for the route and what is refused."""

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = AdapterOptions.parse(options, devices=("llvm",))

    def info(self) -> AdapterInfo:
        """TVM's version (from its distribution, so the parent never imports TVM), the calls every
        model goes through, the target, and the onnx package that serialized the models."""
        import onnx

        return AdapterInfo(
            name=NAME,
            backend="apache-tvm",
            version=loading.version(),
            routes=(ROUTE,),
            devices=self.options.devices,
            options={
                **self.options.resolved,
                "tvm_version": loading.version(),
                "call": loading.CALL,
                "from_onnx": loading.FRONTEND_ARGUMENTS,
                "target": loading.TARGET,
                "onnx_version": onnx.__version__,
            },
        )
