"""IREE's three tools as the route calls them: importer, compiler, runtime, each in this process.

- :func:`import_onnx`: ``iree-import-onnx model.onnx -o model.mlir`` with its defaults, called as the
  console script's own ``main`` (the checker, shape inference and MLIR verification are the tool's).
  No ``--opset-version``: a Split-13 model is judged as Split-13, not as onnx's version converter
  makes it.
- :func:`compile_mlir`: the compiler's embedding API (``iree.compiler.api``, the library
  ``iree-compile`` fronts) with :data:`COMPILE_FLAGS` and every other setting at its default, MLIR's
  threading included (turning it off needs the session's MLIR context in Python, and such a session
  leaks memory on every compile, enough to exhaust a worker over a run). Its diagnostics go to the
  process's stderr, the only channel the API offers to Python, so file descriptor 2 is pointed at a
  temporary file for the call and the text becomes the refusal's message.
- :func:`load` and :func:`invoke`: ``iree.runtime`` on the ``local-task`` driver, the module's one
  function called with NumPy arrays, every result copied to the host.

In-process calls spare a process per tool and item and keep the importer's and the runtime's
exceptions as Python exceptions; the compile costs the same either way.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final

import numpy as np

from conformance.plugin import BackendRefusal

#: The console script ``iree-import-onnx`` runs this module's ``main``.
IMPORTER: Final = "iree.compiler.tools.import_onnx.__main__"
#: iree-compile's flags for the host CPU through LLVM, as IREE's CPU deployment guide gives them.
COMPILE_FLAGS: Final = (
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
)
#: The runtime's HAL driver: the asynchronous, multithreaded CPU device.
DRIVER: Final = "local-task"


@dataclass(frozen=True)
class Imported:
    """What the importer wrote: the MLIR text, the function it holds (named after the graph) and
    the graph's input names in the order the function takes them."""

    mlir: str
    function: str
    inputs: tuple[str, ...]


@dataclass(frozen=True)
class Loaded:
    """A compiled module loaded on the device, the function to call and its inputs' names."""

    context: Any  # iree.runtime.SystemContext (IREE ships no type information)
    function: Any  # iree.runtime.system_api.BoundFunction
    inputs: tuple[str, ...]


def import_onnx(model: bytes, function: str, inputs: tuple[str, ...]) -> Imported:
    """``iree-import-onnx model.onnx -o model.mlir`` in a private directory, removed afterwards."""
    tool = importlib.import_module(IMPORTER)
    with tempfile.TemporaryDirectory(prefix="conformance-iree-") as workdir:
        source, target = Path(workdir, "model.onnx"), Path(workdir, "model.mlir")
        source.write_bytes(model)
        tool.main(tool.parse_arguments([str(source), "-o", str(target)]))
        return Imported(target.read_text(), function, inputs)


def compile_mlir(mlir: str) -> bytes:
    """The VM flatbuffer for ``mlir``; a compiler that fails says why in its diagnostics, which are
    raised as the backend's refusal."""
    from iree.compiler.api import Output, Session, Source

    session = Session()
    try:
        session.set_flags(*COMPILE_FLAGS)
        invocation = session.invocation()
        invocation.enable_console_diagnostics()
        source = Source.wrap_buffer(session, mlir.encode() + b"\0", buffer_name="model.mlir")
        with tempfile.TemporaryFile() as sink:
            with _stderr_to(sink):
                compiled = invocation.parse_source(source) and invocation.execute()
            sink.seek(0)
            diagnostics = sink.read().decode("utf-8", "replace")
        if not compiled:
            clipped = diagnostics if len(diagnostics) <= 4000 else diagnostics[:4000] + " ..."
            raise BackendRefusal(f"iree-compile failed: {clipped.strip() or 'no diagnostics'}")
        output = Output.open_membuffer()
        invocation.output_vm_bytecode(output)
        return bytes(output.map_memory())
    finally:
        session.close()


@contextmanager
def _stderr_to(sink: IO[bytes]) -> Iterator[None]:
    """Point file descriptor 2 at ``sink``, then restore it: native code writes there directly, past
    Python's ``sys.stderr``."""
    sys.stderr.flush()
    saved = os.dup(2)
    os.dup2(sink.fileno(), 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


@functools.cache
def config() -> Any:
    """The driver's runtime config, one per process: it owns the device and its worker threads."""
    import iree.runtime as ireert

    return ireert.Config(DRIVER)


def load(vmfb: bytes, imported: Imported) -> Loaded:
    """The flatbuffer loaded into a fresh system context on the device, and its function."""
    import iree.runtime as ireert

    context = ireert.SystemContext(config=config())
    context.add_vm_module(ireert.VmModule.copy_buffer(context.instance, vmfb))
    return Loaded(context, context.modules.module[imported.function], imported.inputs)


_WARM_UP: Final = "func.func @copy(%a: tensor<2xf32>) -> tensor<2xf32> {\n  return %a : tensor<2xf32>\n}\n"


def warm_up() -> None:
    """Import the tools, create the device and compile and load one trivial module."""
    importlib.import_module(IMPORTER)
    load(compile_mlir(_WARM_UP), Imported(_WARM_UP, "copy", ("a",)))


def invoke(loaded: Loaded, arguments: Sequence[np.ndarray], declared: np.dtype[Any]) -> list[np.ndarray]:
    """Call the function and copy every result to the host, in order. ``declared``: the element type
    the model declares for every output (a split's pieces have the data's type)."""
    results = loaded.function(*arguments)  # one result comes bare, several as a tuple, none as None
    # a function with one result returns it bare, one with several a tuple, one with none None
    tensors = () if results is None else results if isinstance(results, tuple) else (results,)
    return [_host(tensor, declared) for tensor in tensors]


#: HAL element types encode their numerical type in the top byte: 0x10 is an integer of no stated
#: signedness (0x11 signed, 0x12 unsigned; iree/hal/buffer_view.h).
_SIGNLESS_INTEGER: Final = 0x10


def _host(tensor: Any, declared: np.dtype[Any]) -> np.ndarray:
    """A device array as a NumPy array the caller owns (the runtime's mapping dies with its buffer).

    Compiled functions return integers as signless HAL element types (the torch dialect's ``ui8``
    becomes the builtin ``i8`` on the way down), which the runtime's Python API hands out as the
    signed NumPy type. Such a buffer states no signedness, so its bytes are viewed as the model's
    declared integer type of the same width; a buffer that states a signedness is returned as stated.
    """
    host = np.array(tensor.to_host() if hasattr(tensor, "to_host") else tensor, copy=True)
    view = getattr(tensor, "_buffer_view", None)  # DeviceArray's buffer view: no public accessor
    signless = view is not None and int(view.element_type) >> 24 == _SIGNLESS_INTEGER
    same_width = (
        host.dtype.kind in "iu" and declared.kind in "iu" and host.dtype.itemsize == declared.itemsize
    )
    return host.view(declared) if signless and same_width and host.dtype != declared else host
