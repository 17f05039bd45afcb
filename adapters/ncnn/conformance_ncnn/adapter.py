"""The ncnn adapter: models converted by pnnx and run by Tencent's ncnn on the CPU.

Two routes, device ``cpu``, both off the default run (pnnx costs about a second per item):

``pnnx`` (the torch split ops, ``torch.narrow``, ``torch.Tensor.__getitem__``)
    the case's torch module traced with ``torch.jit.trace`` and converted by pnnx, as pnnx's README
    has a PyTorch user do it;
``onnx`` (``onnx.Split*``, ``onnx.Slice-*``)
    the suite's one-node ONNX model (the bytes every ONNX backend gets) through pnnx's ONNX import.

Build: the conversion (:mod:`conformance_ncnn.pnnx_calls`); compile: the ncnn model loaded into a
``Net``; run: an ``Extractor`` fed the source model's runtime inputs and every output extracted
(:mod:`conformance_ncnn.ncnn_calls`). A converter that prints a warning and exits 0 is not
trusted: the model it wrote is run and judged. A converter that dies by a signal takes the worker
with it (a ``crash``, one result).

Unsupported, and only that: what an ``ncnn.Mat`` cannot carry, i.e. every element type but float32
and ranks outside 1 to 4 (:mod:`conformance_ncnn.ncnn_calls` cites the binding and ncnn's answer on
other types), for the data and for every integer input fed at run time: a ``split`` (int64 for
Split-13/18), Slice-10+'s ``starts``, ``ends``, ``axes`` and ``steps``, narrow's 0-dim start.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

import numpy as np

from conformance.plugin import AdapterInfo, AdapterOptions, Route, Target, Task, Unsupported, version_of
from conformance_ncnn import ncnn_calls, pnnx_calls

NAME: Final = "ncnn"


def support(task: Task, target: Target) -> Unsupported | None:
    """Refuses what an ncnn.Mat cannot carry (see the module docstring)."""
    why = ncnn_calls.unfed(ncnn_calls.feeds(task))
    return None if why is None else Unsupported(why)


def build_torch(task: Task, target: Target) -> pnnx_calls.Converted:
    """Route ``pnnx``: the traced module converted by pnnx."""
    return pnnx_calls.convert_torch(task)


def build_onnx(task: Task, target: Target) -> pnnx_calls.Converted:
    """Route ``onnx``: the ONNX model converted by pnnx."""
    return pnnx_calls.convert_onnx(task)


def compile_model(model: pnnx_calls.Converted, target: Target) -> ncnn_calls.Loaded:
    """The ncnn model loaded into a net."""
    return ncnn_calls.load(model)


def run(model: ncnn_calls.Loaded, task: Task) -> Sequence[np.ndarray]:
    """This run's inputs through an extractor; every output the param file lists."""
    return ncnn_calls.run(model, ncnn_calls.feeds(task))


def reproducer(task: Task, target: Target) -> str | None:
    """The source model, pnnx's command, and ncnn's load and one extraction per run."""
    from conformance_ncnn import reproducer as snippets

    return snippets.snippet(task)


def _prepare_onnx(target: Target) -> None:
    """Load ncnn's library before the first item is timed."""
    import ncnn  # noqa: F401


def _prepare_pnnx(target: Target) -> None:
    """Load ncnn's library and torch, which traces, before the first item is timed."""
    import ncnn  # noqa: F401
    import torch  # noqa: F401


PNNX: Final = Route(
    "pnnx",
    ("torch.*split", "torch.chunk", "torch.narrow", "torch.Tensor.__getitem__"),
    "the torch module traced by torch.jit.trace, converted by pnnx, run by ncnn on the CPU",
    build=build_torch,
    compile=compile_model,
    run=run,
    support=support,
    reproducer=reproducer,
    prepare=_prepare_pnnx,
    default=False,
)
ONNX: Final = Route(
    "onnx",
    ("onnx.Split*", "onnx.Slice-*"),
    "the ONNX model converted by pnnx's ONNX import, run by ncnn on the CPU",
    build=build_onnx,
    compile=compile_model,
    run=run,
    support=support,
    reproducer=reproducer,
    prepare=_prepare_onnx,
    default=False,
)


class NcnnAdapter:
    """Runs the torch ops (route pnnx) and the ONNX ops (route onnx) through pnnx and ncnn."""

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = AdapterOptions.parse(options, devices=("cpu",))

    def info(self) -> AdapterInfo:
        """ncnn's and pnnx's versions (from their distributions: the parent loads neither), the
        converter's command and the net's options."""
        return AdapterInfo(
            name=NAME,
            backend="ncnn",
            version=version_of("ncnn"),
            routes=(PNNX, ONNX),
            devices=self.options.devices,
            options={
                **self.options.resolved,
                "pnnx_version": version_of("pnnx"),
                "converter": "pnnx model.pt|model.onnx inputshape=[dims]f32 (the wheel's executable)",
                "tracer": "torch.jit.trace(module, (data,)) on route pnnx",
                "net": ncnn_calls.OPTIONS,
            },
        )
