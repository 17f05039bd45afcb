"""tract's side of an item: the ONNX model loaded as tract's Python bindings document it (tract
0.23), and tensors carried between NumPy and tract without touching a value.

1. ``tract.onnx().load(path)``: the ONNX frontend parses the file (the bindings load from a path
   only, so the model goes through a temporary file, gone once loaded).
2. ``.into_model()``: type inference, translation to tract's typed model and its *declutter*
   pass: where tract checks a Split request and where it refuses one.
3. ``.into_runnable()``: the default CPU runtime, which optimizes first; the bindings cannot skip
   that, so the route judges the optimized model, as every user of the bindings runs it.

Input facts are the model's own (no ``set_input_fact``): a dynamic model names its dims ``d0``,
``d1`` ..., which tract types as symbols, so it takes any shape at run time; declaring facts would
judge the adapter's facts instead of the model as written. Inputs are fed in tract's order (``data``,
then a runtime ``split`` or Slice's runtime index inputs); ``Tensor.to_numpy`` copies each output's bytes into an array of its
element type, so every bit is kept.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

#: The pipeline, as recorded in every result's options.
CALL: Final = "tract.onnx().load(path).into_model().into_runnable()"
#: What into_model and into_runnable do (tract's Rust API behind the bindings).
PASSES: Final = "into_model: typed + decluttered; into_runnable: DefaultRuntime, into_optimized"
#: Input facts: the model's own (see the module docstring).
INPUT_FACTS: Final = "as the model declares them (no set_input_fact)"


@dataclass(frozen=True)
class Loaded:
    """A runnable model and the names of its inputs in tract's order (what ``run`` feeds)."""

    runnable: Any  # tract.Runnable: the bindings ship no type information
    inputs: tuple[str, ...]


def quiet_error_backtraces() -> None:
    """Stop tract from capturing a stack trace into every error and panic message.

    Under ``RUST_BACKTRACE`` tract's ``anyhow`` errors capture a trace into their message, which
    made a refused load cost 70 ms instead of 0.2 ms; ``RUST_LIB_BACKTRACE=0`` turns that off (set
    before the process's first error: Rust caches it). ``RUST_BACKTRACE=0`` keeps panics short too:
    their message already names tract's line. Workers only; a reproducer keeps the user's setting.
    """
    os.environ.setdefault("RUST_LIB_BACKTRACE", "0")
    os.environ["RUST_BACKTRACE"] = "0"


def load(model: bytes) -> Loaded:
    """The model through tract's three calls; every exception is tract's."""
    import tract

    with tempfile.TemporaryDirectory(prefix="conformance-tract-") as directory:
        path = Path(directory) / "model.onnx"
        path.write_bytes(model)
        inference = tract.onnx().load(str(path))
    names = tuple(str(inference.input_name(index)) for index in range(inference.input_count()))
    return Loaded(inference.into_model().into_runnable(), names)


def run(loaded: Loaded, feeds: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    """Feed the arrays in tract's input order and copy every output tensor into NumPy."""
    outputs: Sequence[Any] = loaded.runnable.run([feeds[name] for name in loaded.inputs])
    return [np.asarray(tensor.to_numpy()) for tensor in outputs]
