"""Route ``onnx2tf``: the case's ONNX model converted to a LiteRT model by onnx2tf, run by the LiteRT
interpreter.

onnx2tf (https://github.com/PINTO0309/onnx2tf) is how many ONNX models reach LiteRT, and the
converter most often named in Split reports; it runs every ONNX Split and Slice op. The route writes the bytes every ONNX backend gets
(:func:`conformance.models.onnx_graphs.model_bytes`) as ``model.onnx`` to a private temporary
directory, calls ``onnx2tf.convert`` (the call is recorded in every results file) and reads back
``model_float32.tflite``. Two keywords depart from a bare call: ``non_verbose=True`` (errors only
in the log) and ``not_use_onnxsim=True`` (onnx2tf's default runs the ``onnxsim`` command three
times per model, 11 s an item against 0.5 s for the rest, and is skipped anyway where the command
is missing; onnx-simplifier is judged by route ``onnxruntime/onnxsim``).

What onnx2tf does is judged, never corrected: where it transposes inputs of rank 3 to 5 to
TensorFlow's layout, the data is still fed as the ONNX model declares it, so the interpreter
refuses it or answers in another layout, both onnx2tf's findings. Inputs are fed by their ONNX
names, which onnx2tf keeps in the ``serving_default`` signature. Outputs are matched by name where
the signature lists every ONNX output name, else (one layer yields every piece, renamed
``output_2``, ``output_2_1`` ...) taken in the signature's order, all a user has to go by.

What onnx2tf raises, or a ``sys.exit`` it calls, is its refusal, quoting the error lines it
printed. Importing onnx2tf changes the process (recursion limit, warnings silenced,
``TF_USE_LEGACY_KERAS=1``, op determinism), so it is imported in the worker only. Needs onnx2tf
1.29.24 and the modules it imports, installed without their pins (older numpy, onnx, onnxruntime
and TensorFlow than the suite's); where one is missing, the route's items are unsupported, naming
the install.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
import tempfile
from collections.abc import Callable, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Final

import numpy as np

from conformance.plugin import BackendRefusal, Route, Target, Task, Unsupported, backend_calls

if TYPE_CHECKING:
    from ai_edge_litert.interpreter import Interpreter

#: The keywords the route passes to onnx2tf.convert beside the two paths.
SETTINGS: Final[Mapping[str, bool]] = {"non_verbose": True, "not_use_onnxsim": True}
#: The modules onnx2tf 1.29.24 imports that its install without dependencies leaves out, by distribution.
NEEDED: Final = {
    "onnx2tf": "onnx2tf",
    "tf-keras": "tf_keras",
    "onnx-graphsurgeon": "onnx_graphsurgeon",
    "sng4onnx": "sng4onnx",
    "psutil": "psutil",
}
INSTALL: Final = (
    "pip install -c constraints.txt --no-deps onnx2tf==1.29.24 tf-keras==2.21.0 && "
    "pip install -c constraints.txt onnx-graphsurgeon==0.6.1 sng4onnx==2.0.1 psutil"
)
_MODEL: Final = "model"
#: How many characters of onnx2tf's printed errors a refusal quotes.
_QUOTED: Final = 600
_COLOUR: Final = re.compile(r"\x1b\[[0-9;]*m")


def missing() -> list[str]:
    """The distributions the route needs that cannot be found (found, not imported)."""
    return [name for name, module in NEEDED.items() if importlib.util.find_spec(module) is None]


def options() -> dict[str, str]:
    """onnx2tf's version and call, and the versions of what it imports beside the suite's pins."""
    versions = []
    for name in NEEDED:
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name} not installed")
    keywords = ", ".join(f"{key}={value}" for key, value in SETTINGS.items())
    return {
        "onnx2tf_version": versions[0].partition(" ")[2],
        "onnx2tf_call": (
            f"onnx2tf.convert(input_onnx_file_path='{_MODEL}.onnx', output_folder_path=..., {keywords}), "
            f"the other keywords at their defaults; the route runs {_MODEL}_float32.tflite"
        ),
        "onnx2tf_imports": ", ".join(versions[1:]),
    }


def _support(task: Task, target: Target) -> Unsupported | None:
    """A missing onnx2tf or module it imports, with the install; everything else is converted."""
    absent = missing()
    if not absent:
        return None
    return Unsupported(f"route onnx2tf needs {', '.join(absent)}: {INSTALL}")


def _convert(task: Task, target: Target) -> bytes:
    """The float32 flatbuffer onnx2tf writes for the task's ONNX model (see the module docstring)."""
    from conformance.models import onnx_graphs

    with tempfile.TemporaryDirectory(prefix="onnx2tf-") as directory:
        output = _call_onnx2tf(onnx_graphs.model_bytes(task), Path(directory))
        written = output / f"{_MODEL}_float32.tflite"
        if not written.is_file():
            found = (
                ", ".join(sorted(path.name for path in output.iterdir())) if output.is_dir() else "nothing"
            )
            raise BackendRefusal(f"onnx2tf wrote no {written.name} (found: {found})")
        return written.read_bytes()


def _call_onnx2tf(model: bytes, directory: Path) -> Path:
    """onnx2tf.convert as the route calls it on ``model`` saved in ``directory``, and the folder it
    writes to; its ``sys.exit`` on an error becomes a refusal that quotes the error lines it
    printed (in colour, to stdout, whatever ``non_verbose`` says)."""
    import onnx2tf

    source, output = directory / f"{_MODEL}.onnx", directory / "converted"
    source.write_bytes(model)
    printed = io.StringIO()
    with backend_calls(), contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        try:
            onnx2tf.convert(input_onnx_file_path=str(source), output_folder_path=str(output), **SETTINGS)
        except SystemExit as exit_:
            raise BackendRefusal(f"onnx2tf exited ({exit_.code}): {_errors(printed.getvalue())}") from None
    return output


def _errors(printed: str) -> str:
    """The ERROR lines onnx2tf printed, colours stripped, the last ones if they are long."""
    lines = [" ".join(line.split()) for line in _COLOUR.sub("", printed).splitlines()]
    errors = [line for line in lines if "ERROR" in line] or [line for line in lines if line][-3:]
    said = " | ".join(errors) or "nothing printed"
    return said if len(said) <= _QUOTED else "... " + said[-_QUOTED:]


def warm_up(target: Target) -> None:
    """Convert one throwaway model: the first conversion of a process loads onnx2tf, tf_keras and
    onnxruntime and sets up TensorFlow (seconds), which would otherwise be one item's build."""
    if missing():
        return
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Split", ["data"], ["a", "b"], axis=0)],
        "warm_up",
        [helper.make_tensor_value_info("data", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, [1]) for name in ("a", "b")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    with tempfile.TemporaryDirectory(prefix="onnx2tf-") as directory:
        _call_onnx2tf(model.SerializeToString(), Path(directory))


def signature(loaded: Interpreter, onnx_outputs: Sequence[str]) -> tuple[dict[str, int], list[int]]:
    """The converted model's inputs by name and its outputs in the ONNX model's order, as tensor
    indices: by name when the ``serving_default`` signature lists every ONNX output name, else in
    the signature's own order (see the module docstring)."""
    runner = loaded.get_signature_runner()
    inputs = {name: detail["index"] for name, detail in runner.get_input_details().items()}
    outputs = runner.get_output_details()
    named = set(onnx_outputs) <= set(outputs)
    ordered = list(onnx_outputs) if named else list(outputs)
    return inputs, [outputs[name]["index"] for name in ordered]


def _invoke(loaded: Interpreter, task: Task) -> list[np.ndarray]:
    """Feed the ONNX model's inputs by name (resized where dims are unknown, as
    :func:`conformance.models.tflite_models.invoke` does), invoke, copy the outputs in the ONNX
    model's order. Inputs onnx2tf renamed or dropped are its refusal of the model as declared."""
    from conformance.models import onnx_graphs, tflite_models

    feeds = {name: np.array(array, copy=True, order="C") for name, array in onnx_graphs.feeds(task).items()}
    with backend_calls():
        inputs, outputs = signature(loaded, output_names(task))
        if set(inputs) != set(feeds):
            raise BackendRefusal(
                f"the converted model's inputs are {', '.join(inputs) or 'none'}; "
                f"the ONNX model's are {', '.join(feeds)}"
            )
        return tflite_models.invoke_indexed(loaded, inputs, outputs, feeds)


def output_names(task: Task) -> list[str]:
    """The ONNX model's graph outputs, in order."""
    from conformance.models import onnx_graphs

    if onnx_graphs.is_sequence(task.op):
        return [onnx_graphs.SEQUENCE]
    return [onnx_graphs.output_name(index) for index in range(onnx_graphs.output_count(task))]


def route(
    compile_: Callable[[bytes, Target], Interpreter], reproducer: Callable[[Task, Target], str]
) -> Route:
    """The route, its model loaded by the interpreter as the adapter loads every model
    (``compile_``), its snippet written by the adapter (which knows the interpreter's settings)."""
    return Route(
        "onnx2tf",
        ("onnx.Split*", "onnx.Slice-*"),
        "the ONNX model converted by onnx2tf.convert (float32 .tflite), run by the LiteRT interpreter",
        build=_convert,
        compile=compile_,
        run=_invoke,
        support=_support,
        reproducer=reproducer,
        prepare=warm_up,
        default=False,
    )
