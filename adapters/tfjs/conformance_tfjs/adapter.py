"""The TensorFlow.js adapter: ``tf.split`` run by TF.js in Node.js, on its CPU or WASM backend.

Route ``node``: each item is one request to this worker's Node process (:mod:`node_process`), which
builds a tensor of the case's data on the target's backend (``@tensorflow/tfjs-backend-cpu`` or
``-wasm``), calls ``tf.split(x, numOrSizeSplits, axis)`` with the count or the sizes as the case
states them (the axis left out when the case gives none) and sends every piece's bytes back. Each
request builds its own tensor and its own size array: TF.js writes into the array it is handed.

Element types: TF.js's DataType is float32, int32, bool, complex64 and string, each carried as it
is (bool as one byte per element, complex64 as float32 pairs, strings as UTF-8 bytes). Its tensor
functions take typed arrays of other kinds and convert them (a Float64Array becomes float32), so
every other type is unsupported here rather than narrowed. Where Node.js or the npm packages are
missing, every item is unsupported with a reason that says which (run ``npm ci`` in the node folder).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from conformance import dtypes
from conformance.plugin import AdapterInfo, AdapterOptions, BackendRefusal, Route, Target, Task, Unsupported
from conformance_tfjs import node_process, reproducer

NAME = "tfjs"
DEVICES = ("cpu", "wasm")
TFJS_VERSION = "4.22.0"
DTYPE_PAGE = "https://js.tensorflow.org/api/latest/#tensor"
#: The WASM backend registers no Complex kernel, so it cannot make a complex64 tensor at all.
WASM_KERNELS = (
    "https://github.com/tensorflow/tfjs/blob/tfjs-v4.22.0/tfjs-backend-wasm/src/register_all_kernels.ts"
)
#: The largest integer a JavaScript number holds exactly (Number.MAX_SAFE_INTEGER).
SAFE_INTEGER = 2**53 - 1
#: The suite's types TF.js has, with the NumPy type its bytes travel as.
CARRIED = {"float32": np.float32, "int32": np.int32, "bool": np.uint8, "complex64": np.complex64}


@dataclass(frozen=True)
class Call:
    """What ``build`` makes: the TF.js backend the target names."""

    backend: str


def _support(task: Task, target: Target) -> Unsupported | None:
    """What TF.js cannot be handed: a missing Node.js or TF.js, a type it lacks, complex64 on WASM,
    and integers a JavaScript number cannot hold exactly."""
    problem = node_process.setup_problem()
    if problem is not None:
        return Unsupported(problem)
    if task.dtype not in (*CARRIED, "string"):
        return Unsupported(
            f"TF.js has no {task.dtype} (its DataType: float32, int32, bool, complex64, string): {DTYPE_PAGE}"
        )
    if task.dtype == "complex64" and target.device == "wasm":
        return Unsupported(
            f"TF.js's WASM backend registers no Complex kernel, so makes no complex64 tensor: {WASM_KERNELS}"
        )
    numbers = [*task.request.form.values, *([] if task.request.axis is None else [task.request.axis])]
    if any(abs(value) > SAFE_INTEGER for value in numbers):
        return Unsupported(
            "a JavaScript number holds integers exactly only up to 2^53 - 1 (Number.MAX_SAFE_INTEGER)"
        )
    return None


def _build(task: Task, target: Target) -> Call:
    return Call(target.device)


def _run(call: Call, task: Task) -> list[np.ndarray]:
    """One request to this worker's Node process; TF.js's exception comes back as its refusal."""
    answer = node_process.node().ask(_request(call.backend, task))
    if "error" in answer:
        error = answer["error"]
        raise _js_error(str(error["name"]))(f"{error['name']}: {error['message']}")
    return [_decoded(piece, task.dtype) for piece in answer["pieces"]]


def _request(backend: str, task: Task) -> dict[str, Any]:
    data = task.data
    if task.dtype == "string":
        encoded: Any = [_b64(str(value).encode("utf-8", "surrogatepass")) for value in data.reshape(-1)]
    else:
        encoded = _b64(np.ascontiguousarray(data, dtype=CARRIED[task.dtype]).tobytes())
    return {
        "backend": backend,
        "dtype": task.dtype,
        "shape": list(data.shape),
        "data": encoded,
        "split": _split_argument(task),
        "axis": task.request.axis,
    }


def _decoded(piece: dict[str, Any], kind: str) -> np.ndarray:
    shape = tuple(piece["shape"])
    if kind == "string":
        values = [base64.b64decode(value).decode("utf-8", "surrogatepass") for value in piece["data"]]
        return np.array(values, dtype=object).reshape(shape)
    raw = np.frombuffer(base64.b64decode(piece["data"]), dtype=CARRIED[kind]).reshape(shape)
    return raw.astype(dtypes.numpy_dtype(kind))


def _split_argument(task: Task) -> int | list[int]:
    """``numOrSizeSplits`` as the case states it: the sizes as a list, or the count."""
    form = task.request.form
    return list(form.values) if form.kind == "lengths" else int(form.values[0])


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


_JS_ERRORS: dict[str, type[BackendRefusal]] = {}


def _js_error(name: str) -> type[BackendRefusal]:
    """A refusal type named for the JavaScript error TF.js threw (``RangeError``), so that results
    and known issues can tell TF.js's own checks (``Error``) from the language's."""
    if name not in _JS_ERRORS:
        _JS_ERRORS[name] = type(name if name.isidentifier() else "JsError", (BackendRefusal,), {})
    return _JS_ERRORS[name]


def _prepare(target: Target) -> None:
    """Start this worker's Node process and make the target's backend ready (the WASM module
    compiles once), so that neither is charged to the first item."""
    if node_process.setup_problem() is None:
        request = {
            "backend": target.device,
            "dtype": "float32",
            "shape": [2],
            "data": _b64(bytes(8)),
            "split": 2,
            "axis": None,
        }
        node_process.node().ask(request)


ROUTES = (
    Route(
        "node",
        ("tfjs.split",),
        build=_build,
        run=_run,
        support=_support,
        reproducer=reproducer.snippet,
        prepare=_prepare,
        description="tf.split run by TF.js in this worker's Node.js process, fed over a pipe",
        # no imports: the backend is TF.js in Node.js, no Python module (setup_problem says what lacks)
    ),
)


class TfjsAdapter:
    """Runs tfjs.split through TF.js's CPU and WASM backends in Node.js; see the module docstring."""

    def __init__(self, options: Mapping[str, str]) -> None:
        # Both backends by default: each costs about a millisecond an item (docs/performance.md).
        self.options = AdapterOptions.parse({"device": ",".join(DEVICES), **options}, devices=DEVICES)

    def info(self) -> AdapterInfo:
        """TF.js's npm version, pinned by the node folder's package-lock.json (there is no Python
        distribution of it to read a version from)."""
        return AdapterInfo(
            name=NAME,
            backend="@tensorflow/tfjs-core",
            version=TFJS_VERSION,
            routes=ROUTES,
            devices=self.options.devices,
            options=self.options.resolved,
        )
