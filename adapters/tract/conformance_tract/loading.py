"""tract's side of an item: the ONNX model loaded the way tract's Python bindings document it, and
tensors carried between NumPy and tract without touching a value.

The calls, in the order tract's Python README and docstrings give them (tract 0.23):

1. ``tract.onnx().load(path)``: the ONNX frontend parses the file into an ``InferenceModel``. The
   bindings load from a path only, so the serialized model goes through a temporary file, as the
   openvino adapter's ONNX route does; the file is gone once loaded.
2. ``.into_model()``: shape and type inference, then translation to tract's typed model and its
   *declutter* pass (the Rust API's ``into_typed().into_decluttered()``). Where tract checks a Split
   request (its output count, a constant ``split``) and where it refuses one.
3. ``.into_runnable()``: the default CPU runtime, which runs ``into_optimized()`` and makes a plan.
   The bindings have no call that skips optimization, so the route judges the optimized model,
   which is what every user of the bindings runs.

Input facts are left as the model declares them: no ``set_input_fact``. The suite's model states
every dim (``data_shape: static``) or names each one ``d0``, ``d1`` ... (``dynamic``), which tract
turns into symbols, so a dynamic model is typed with symbolic dims and takes any shape at run time,
and a static one keeps its concrete dims. Declaring facts would judge the adapter's facts instead of
what tract makes of the model as written.

Inputs are fed as a list in the order tract lists the model's inputs (the graph inputs, by name:
``data``, then ``split`` when the case feeds it at run time). Outputs are tract ``Tensor`` objects;
``Tensor.to_numpy`` copies their bytes into an array of the matching ctypes type (float16 through a
uint16 view), so the element type and every bit are kept. tract has no bfloat16, complex or
sequence types, and its bindings cannot build string tensors: the adapter declares those items
unsupported before anything reaches this module.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, Final

import numpy as np

#: The pipeline, as recorded in every result's options.
CALL: Final = "tract.onnx().load(path).into_model().into_runnable()"
#: What into_model and into_runnable do (tract's Rust API behind the bindings).
PASSES: Final = "into_model: typed + decluttered; into_runnable: DefaultRuntime, into_optimized"
#: Input facts: the model's own (see the module docstring).
INPUT_FACTS: Final = "as the model declares them (no set_input_fact)"
#: std::backtrace reads this before RUST_BACKTRACE; see quiet_error_backtraces.
_LIB_BACKTRACE: Final = "RUST_LIB_BACKTRACE"
#: what a panic's hook reads; see quiet_error_backtraces.
_PANIC_BACKTRACE: Final = "RUST_BACKTRACE"


@dataclass(frozen=True)
class Loaded:
    """A runnable model and the names of its inputs in tract's order (what ``run`` feeds)."""

    runnable: Any  # tract.Runnable: the bindings ship no type information
    inputs: tuple[str, ...]


def version() -> str:
    """The installed ``tract`` distribution's version, read without loading the native library
    (the parent process lists adapters and plans runs without it)."""
    try:
        return metadata.version("tract")
    except metadata.PackageNotFoundError:
        return "not installed"


def quiet_error_backtraces() -> None:
    """Stop tract from capturing a stack trace into every error it returns.

    tract's errors are ``anyhow`` errors, which capture a backtrace when ``RUST_BACKTRACE`` is set
    (as it is on many developer machines); the bindings then put the whole trace in the message.
    Measured here: a refused load costs 65-77 ms with the capture and 0.2 ms without, and a message of
    3,800 characters instead of 140. ``RUST_LIB_BACKTRACE=0`` turns the capture off for errors only
    (a panic still prints its trace). Set before the first error of the process: Rust caches it.

    A panic (tract aborts the process on some invalid models) prints a fully resolved trace under
    ``RUST_BACKTRACE=1``: 40 frames with file and line, which made each of the 240 panicking items
    of a run cost about 0.4 s in the worker's death. The panic's own message names the line of
    tract that panicked, which is the evidence a crash result quotes, so panics print no trace
    either (``RUST_BACKTRACE=0`` in the worker only; the reproducer runs with the user's setting).
    """
    os.environ.setdefault(_LIB_BACKTRACE, "0")
    os.environ[_PANIC_BACKTRACE] = "0"


def load(model: bytes) -> Loaded:
    """The model through tract's three calls (see the module docstring); every exception is
    tract's, raised below the bindings."""
    import tract

    with tempfile.TemporaryDirectory(prefix="conformance-tract-") as directory:
        path = Path(directory) / "model.onnx"
        path.write_bytes(model)
        inference = tract.onnx().load(str(path))
    names = tuple(str(inference.input_name(index)) for index in range(inference.input_count()))
    return Loaded(inference.into_model().into_runnable(), names)


def run(loaded: Loaded, feeds: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    """Feed the arrays in tract's input order and copy every output tensor into NumPy."""
    inputs = [feeds[name] for name in loaded.inputs]
    outputs: Sequence[Any] = loaded.runnable.run(inputs)
    return [np.asarray(tensor.to_numpy()) for tensor in outputs]
