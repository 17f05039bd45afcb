"""The tvm adapter: the ``onnx.Split*`` and ``onnx.Slice-*`` ops as one-node ONNX models imported by
Apache TVM's Relax ONNX frontend, compiled for the CPU and run on the Relax virtual machine.

Route ``onnx``, device ``llvm`` (TVM's CPU target): the bytes of
:func:`conformance.models.onnx_graphs.model_bytes` imported by ``from_onnx`` are the *build*;
``tvm.compile(target="llvm")`` and a ``relax.VirtualMachine`` the *compile*; ``vm["main"]`` the
*run* (:mod:`conformance_tvm.loading` has the details). Off the default run: importing and
compiling cost 40 to 60 ms an item, over the suite's 20 ms bound.

What is refused as unsupported, and why only that: complex data or lengths (TVM has no complex
element type, "unknown dtype `complex64`", so the model cannot be imported) and string data (no
string tensors, "unknown dtype `object`").

Everything else is handed to TVM, including what the spec forbids: a refusal of something the spec
allows is a finding listed in ``known_issues.yaml``. So is a ``split`` fed at run time: the
frontend's Split-13/18 and SplitToSequence converters refuse any non-constant ``split`` while
importing ("Dynamic Split not yet supported", "Only constant split supported for
SplitToSequence"), and that refusal is judged; Split-1's runtime ``split`` is imported and ignored.
Slice's index inputs fed at run time are imported as they are (dynamic_strided_slice), and Slice-1
goes through the frontend's only Slice converter, Slice-13's, which refuses it: judged too.
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
    version_of,
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
    """The suite's model imported by ``from_onnx``, where the frontend checks a Split or Slice request."""
    from conformance.models import onnx_graphs

    model = onnx_graphs.model_bytes(task)
    with backend_calls():
        return loading.import_model(model)


def _compile(model: loading.Imported, target: Target) -> loading.Compiled:
    with backend_calls():
        return loading.compile_module(model)


def _run(compiled: loading.Compiled, task: Task) -> Sequence[np.ndarray]:
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
    """The model (also saved as ``model.onnx``), TVM's import, compile and VM calls, and each run's
    feeds, a sequence printed as its pieces: TVM, onnx and NumPy only."""
    from conformance.models import onnx_graphs

    return onnx_graphs.snippet(task, _IMPORTS, _LOAD, _call, file="model.onnx")


def _call(variables: Mapping[str, str]) -> str:
    arguments = ", ".join(f"tvm.runtime.tensor({variable})" for variable in variables.values())
    return f'outputs = pieces(vm["main"]({arguments}))\nprint([output.shape for output in outputs])\n'


def _prepare(target: Target) -> None:
    """Import TVM and its ONNX frontend (seconds) before the first item is timed."""
    import tvm.relax.frontend.onnx  # noqa: F401


ROUTE: Final = Route(
    "onnx",
    ("onnx.Split*", "onnx.Slice-*"),
    "the ONNX model imported by TVM's Relax frontend (from_onnx), compiled for llvm and run on the Relax VM",
    build=_build,
    run=_run,
    support=_support,
    compile=_compile,
    reproducer=_reproducer,
    prepare=_prepare,
    default=False,  # see the module docstring
)


class TvmAdapter:
    """Runs the onnx.* ops through TVM; see the module docstring for the route and what is refused."""

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = AdapterOptions.parse(options, devices=("llvm",))

    def info(self) -> AdapterInfo:
        """TVM's version, the calls every model goes through, the target, and the onnx that wrote
        the models."""
        import onnx

        return AdapterInfo(
            name=NAME,
            backend="apache-tvm",
            version=version_of("apache-tvm"),
            routes=(ROUTE,),
            devices=self.options.devices,
            options={
                **self.options.resolved,
                "tvm_version": version_of("apache-tvm"),
                "call": loading.CALL,
                "from_onnx": loading.FRONTEND_ARGUMENTS,
                "target": loading.TARGET,
                "onnx_version": onnx.__version__,
            },
        )
