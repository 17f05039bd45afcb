"""The OpenVINO adapter: one backend reached by six routes, compiled and run the same way.

Routes differ only in how the ``ov.Model`` comes to be, so a disagreement between them is a
frontend's: ``native`` (a hand-built opset1 / opset8 graph), ``onnx`` (an ``.onnx`` file, ONNX frontend),
``pytorch`` (a ``torch.nn.Module``, TorchScript tracing), ``torch-export`` (a ``torch.export``
program, FX path), ``tensorflow`` (a traced ``tf.function``) and ``tflite`` (the LiteRT flatbuffer
converted from it). Routes that trace or convert (tens to hundreds of ms an item) are off the
default run: select them with ``--target 'openvino/tflite/*'`` and so on. Refused: complex data
where the model needs an OpenVINO element type (there is none), strings ending in NUL (the Python
API drops them), data of 1 GiB or more for the routes that trace a torch module with an example.

Options (``--option openvino.KEY=VALUE``): ``device``, comma-separated OpenVINO devices (default
``CPU``) checked against ``ov.Core().available_devices`` at construction, virtual ones (``AUTO``,
``AUTO:CPU``) left to OpenVINO to check; ``properties``, extra compile properties
``KEY=VALUE;KEY2=VALUE2``.

On CPU (and virtual devices that may use it) the adapter always compiles with
``INFERENCE_PRECISION_HINT=f32`` (``inference_precision`` in ``info().options``; ``properties``
asking for another are refused): bf16 or fp16 units otherwise lower float precision, and a Split
that rounds its data is wrong by the suite's bit-exact measure. On the CPU device itself it also
compiles with ``ENABLE_CPU_PINNING=NO`` unless ``properties`` set it (``cpu_pinning``): the
suite's workers share the cores, and pinned threads waited for theirs while another sat idle (the
default run on two cores: 50.3 s at -j 2 against 60.2 s pinned, every verdict the same).

Each route's model and feeds come from a module (:class:`RouteModule`) imported on first use, so
ONNX, torch and TensorFlow stay unimported unless their routes run.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Protocol, cast

import numpy as np

from conformance.errors import UsageError
from conformance.plugin import (
    AdapterError,
    AdapterInfo,
    AdapterOptions,
    Route,
    Target,
    Task,
    Unsupported,
    installed_distribution,
)
from conformance_openvino import reproducer

if TYPE_CHECKING:
    import openvino as ov  # type: ignore[import-untyped]  # ships .pyi stubs but no py.typed

NAME: Final = "openvino"


@dataclass(frozen=True)
class RouteSpec:
    """One route: its declaration, its module, its reproducer writer, and what sets it apart."""

    name: str
    ops: tuple[str, ...]
    description: str
    module: str
    snippet: reproducer.Writer
    default: bool = True
    #: its frontend is handed complex data as its users would hand it, and answers for itself
    complex_frontend: bool = False
    #: it traces the module with the example input (memory grows with the data)
    traces_example: bool = False
    #: its reproducer can carry complex data (a model file or a TensorFlow function needs no
    #: OpenVINO element type)
    complex_snippet: bool = False
    #: what its calls import (Route.imports): OpenVINO, and what writes the model it reads
    imports: tuple[str, ...] = ()


SPECS: Final = (
    RouteSpec(
        "native",
        ("openvino.*Split-*", "openvino.Slice-8", "openvino.StridedSlice-1"),
        "ov.Model built with openvino.opset1 Split / VariadicSplit / StridedSlice, opset8 Slice",
        "conformance_openvino.native",
        reproducer.native_snippet,
        imports=("openvino",),
    ),
    RouteSpec(
        "onnx",
        ("onnx.Split*", "onnx.Slice-*"),
        "ONNX model file read by OpenVINO's ONNX frontend (core.read_model); SplitToSequence through "
        "the SequenceAt or ConcatFromSequence that consumes it",
        "conformance_openvino.onnx_route",
        reproducer.onnx_snippet,
        complex_frontend=True,
        complex_snippet=True,
        imports=("onnx", "openvino"),
    ),
    RouteSpec(
        "pytorch",
        ("torch.*split", "torch.chunk", "torch.narrow", "torch.Tensor.__getitem__"),
        "torch.nn.Module converted by the PyTorch frontend (ov.convert_model)",
        "conformance_openvino.pytorch_route",
        reproducer.pytorch_snippet,
        default=False,  # about 33 ms an item (tracing, converting): over the default run's 20 ms
        complex_frontend=True,
        traces_example=True,
    ),
    RouteSpec(
        "torch-export",
        ("torch.*split", "torch.chunk", "torch.narrow", "torch.Tensor.__getitem__"),
        "a torch.export ExportedProgram converted by ov.convert_model (its FX path)",
        "conformance_openvino.torch_export_route",
        reproducer.torch_export_snippet,
        default=False,
        traces_example=True,
    ),
    RouteSpec(
        "tensorflow",
        ("tensorflow.*split", "tensorflow.slice", "tensorflow.strided_slice"),
        "the traced tf.function converted by OpenVINO's TensorFlow frontend (ov.convert_model)",
        "conformance_openvino.tensorflow_route",
        reproducer.tensorflow_snippet,
        default=False,
        complex_frontend=True,
        complex_snippet=True,
    ),
    RouteSpec(
        "tflite",
        ("tensorflow.split", "tensorflow.slice", "tensorflow.strided_slice", "tflite.*"),
        "the LiteRT flatbuffer converted from it, read by OpenVINO's TensorFlow Lite frontend",
        "conformance_openvino.tflite_route",
        reproducer.tflite_snippet,
        default=False,
    ),
)
#: Devices that stand for others (AUTO:CPU, MULTI:GPU ...) and so never appear as available.
_VIRTUAL_DEVICES: Final = frozenset({"AUTO", "HETERO", "MULTI", "BATCH"})
PRECISION_KEY: Final = "INFERENCE_PRECISION_HINT"
PRECISION: Final = "f32"
PINNING_KEY: Final = "ENABLE_CPU_PINNING"
PINNING: Final = "NO"
_NO_COMPLEX: Final = (
    "OpenVINO has no complex element type: ov.Type / ov::element::Type_t lists none "
    "(https://github.com/openvinotoolkit/openvino/blob/master/src/core/include/openvino/core/type/"
    "element_type.hpp), so no Parameter or tensor of complex data can be built"
)
_PYTORCH_EXAMPLE_LIMIT: Final = 1024**3
_TRAILING_NUL: Final = (
    "OpenVINO's Python API passes string tensors through fixed-width NumPy bytes arrays "
    "(Tensor.bytes_data / str_data, both ways), which drop a string's trailing NUL characters "
    "(https://numpy.org/doc/stable/reference/arrays.scalars.html#numpy.bytes_); this data holds "
    "such a string"
)


def _base_device(device: str) -> str:
    """The device a name stands on: ``CPU`` for ``CPU.0``, ``AUTO`` for ``AUTO:CPU``."""
    return device.split(":")[0].split(".")[0]


def _is_cpu(device: str) -> bool:
    """CPU, or a virtual device that may place work on it (one naming CPU, or one with no list)."""
    upper = device.upper()
    return "CPU" in upper or upper in _VIRTUAL_DEVICES


def _is_plain_cpu(device: str) -> bool:
    """The CPU device itself (``CPU``, ``CPU.0``), not a virtual device that may use it."""
    return _base_device(device).upper() == "CPU"


def _installed(package: str) -> str:
    """The installed version of import package ``package``, ``name version`` where the
    distribution has another name (``tensorflow-cpu``)."""
    found = installed_distribution(package)
    if found is None:
        return "not installed"
    name, version = found
    return version if name == package else f"{name} {version}"


class RouteModule(Protocol):
    """A route's module: why it cannot express a task (or None), the ``ov.Model`` built or read as
    a user of the route would, and the arrays to feed (in input order, or by input name)."""

    def unsupported(self, task: Task) -> str | None: ...

    def build_model(self, task: Task, core: ov.Core) -> ov.Model: ...

    def runtime_inputs(self, task: Task) -> Sequence[np.ndarray] | Mapping[str, np.ndarray]: ...


@dataclass(frozen=True)
class Compiled:
    """A compiled model with its infer request, reused for the first and the steady runs."""

    model: ov.CompiledModel
    request: ov.InferRequest


def parse_properties(text: str) -> dict[str, str]:
    """``KEY=VALUE;KEY2=VALUE2`` as a mapping; a malformed entry is a configuration error."""
    properties: dict[str, str] = {}
    for entry in filter(None, (part.strip() for part in text.split(";"))):
        key, sep, value = entry.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"openvino option properties: {entry!r} is not KEY=VALUE")
        properties[key.strip()] = value.strip()
    return properties


class OpenVINOAdapter:
    """Runs openvino.*, onnx.*, torch.*, tensorflow.* and tflite.* ops on OpenVINO devices."""

    def __init__(self, options: Mapping[str, str]) -> None:
        # device names are checked below against the plugins this machine has (any_device)
        parsed = AdapterOptions.parse(options, devices=("CPU",), known=("properties",), any_device=True)
        import openvino as ov

        self._ov = ov
        self._core = ov.Core()
        self.devices = parsed.devices
        available = list(self._core.available_devices)
        for device in self.devices:
            base = _base_device(device)
            if device not in available and base not in available and base not in _VIRTUAL_DEVICES:
                known = ", ".join(available)
                raise UsageError(f"openvino device {device!r} is not available (available: {known})")
        self.properties = parse_properties(parsed.get("properties", ""))
        pinned = self.properties.get(PRECISION_KEY, PRECISION)
        if any(_is_cpu(device) for device in self.devices) and pinned.lower() != PRECISION:
            raise UsageError(
                f"openvino properties: {PRECISION_KEY}={pinned} would let CPU inference alter float data; "
                f"the adapter pins {PRECISION}"
            )
        self.routes = tuple(RouteCalls(self, spec).route() for spec in SPECS)

    def config(self, device: str) -> dict[str, str]:
        """The compile properties for ``device``: the user's, plus f32 precision on CPU and, on the
        CPU device itself (a property of its plugin, which virtual devices need not pass on), no
        thread pinning unless the user's properties say otherwise."""
        config = dict(self.properties)
        if _is_cpu(device):
            config[PRECISION_KEY] = PRECISION
        if _is_plain_cpu(device):
            config.setdefault(PINNING_KEY, PINNING)
        return config

    def info(self) -> AdapterInfo:
        from conformance.models import sequence_consumers

        ov = self._ov
        options = {
            "device": ",".join(self.devices),
            # what the device option can name here: the plugins found, and the virtual devices
            "available_devices": ",".join([*self._core.available_devices, "AUTO", "HETERO:CPU", "MULTI:CPU"]),
            "build": ov.get_version(),
        }
        if self.properties:
            options["properties"] = ";".join(f"{key}={value}" for key, value in self.properties.items())
        if any(_is_cpu(device) for device in self.devices):
            options["inference_precision"] = PRECISION
        options["onnx_sequence_consumer"] = sequence_consumers.CONCAT.text  # the onnx route's
        if any(_is_plain_cpu(device) for device in self.devices):
            options["cpu_pinning"] = self.properties.get(PINNING_KEY, PINNING)
        # the packages that write the models the conversion routes read
        for frontend_input in ("onnx", "torch", "tensorflow", "ai_edge_litert"):
            options[f"{frontend_input}_version"] = _installed(frontend_input)
        return AdapterInfo(
            name=NAME,
            backend="openvino",
            version=ov.__version__.split("-")[0],
            routes=self.routes,
            devices=self.devices,
            options=options,
        )


class RouteCalls:
    """One route's calls: its module makes the model and the feeds; compiling, feeding and
    reading back are the same for every route."""

    def __init__(self, adapter: OpenVINOAdapter, spec: RouteSpec) -> None:
        self.adapter, self.spec = adapter, spec
        self._module: RouteModule | None = None

    def route(self) -> Route:
        """The route these calls serve."""
        spec = self.spec
        return Route(
            spec.name, spec.ops, spec.description, build=self.build, run=self.run, compile=self.compile,
            support=self.support, reproducer=self.reproducer, prepare=self.prepare, default=spec.default,
            imports=spec.imports,
        )  # fmt: skip

    def prepare(self, target: Target) -> None:
        """Import the route's frontend and load the device plugin before the first item is timed."""
        module = self.module()
        self.adapter._core.get_property(target.device, "FULL_DEVICE_NAME")
        warm_up = getattr(module, "warm_up", None)
        if callable(warm_up):
            warm_up()

    def module(self) -> RouteModule:
        """The route's module, imported on first use."""
        if self._module is None:
            self._module = cast(RouteModule, importlib.import_module(self.spec.module))
        return self._module

    def support(self, task: Task, target: Target) -> Unsupported | None:
        if task.dtype in ("complex64", "complex128") and not self.spec.complex_frontend:
            return Unsupported(_NO_COMPLEX)
        strings = task.dtype == "string"
        if strings and any(str(item).endswith("\0") for run in task.every_run for item in run.data.flat):
            return Unsupported(_TRAILING_NUL)
        if self.spec.traces_example and task.data.nbytes >= _PYTORCH_EXAMPLE_LIMIT:
            return Unsupported(
                f"the PyTorch frontend traces the module with the example input: with {task.data.nbytes} "
                "bytes of data it needs more than ten times that (a 2 GiB uint8 example took 23.7 GiB "
                "before the kernel's OOM killer ended it), so data of 1 GiB or more is not converted"
            )
        try:
            module = self.module()
        except ImportError as error:
            return Unsupported(f"route {target.route} needs {error.name or error}, which is not installed")
        reason = module.unsupported(task)
        return None if reason is None else Unsupported(reason)

    def reproducer(self, task: Task, target: Target) -> str | None:
        """The route's steps in plain OpenVINO calls, with this run's compile properties."""
        config = self.adapter.config(target.device)
        return reproducer.snippet(task, target, config, self.spec.snippet, self.spec.complex_snippet)

    def build(self, task: Task, target: Target) -> ov.Model:
        return self.module().build_model(task, self.adapter._core)

    def compile(self, model: ov.Model, target: Target) -> Compiled:
        compiled = self.adapter._core.compile_model(model, target.device, self.adapter.config(target.device))
        return Compiled(compiled, compiled.create_infer_request())

    def run(self, compiled: Compiled, task: Task) -> Sequence[np.ndarray]:
        from conformance_openvino.tensors import from_tensor, to_tensor  # imports openvino

        feeds = self.module().runtime_inputs(task)
        # A frontend may drop an input no output depends on (a split of zero-size data folded to
        # constants, an exported split into no pieces): there is then nothing to feed it to, and
        # the outputs, compared as usual, show whether dropping it was right.
        ports = compiled.model.inputs
        if isinstance(feeds, Mapping):
            by_name = {name: index for index, port in enumerate(ports) for name in port.get_names()}
            indexed = {by_name[name]: array for name, array in feeds.items() if name in by_name}
        else:
            indexed = {index: array for index, array in enumerate(feeds) if index < len(ports)}
        unfed = [port.get_any_name() for index, port in enumerate(ports) if index not in indexed]
        if unfed:  # a name lost on the way: running would read whatever the tensor held
            raise AdapterError(f"route {self.spec.name} has no feed for the model's input(s) {unfed}")
        request = compiled.request
        # OpenVINO has no complex tensor: complex data is handed to infer as the NumPy array, for
        # OpenVINO's own conversion to the type its model declares.
        request.infer(
            {
                index: array if array.dtype.kind == "c" else to_tensor(array)
                for index, array in indexed.items()
            }
        )
        return [from_tensor(request.get_output_tensor(index)) for index in range(len(compiled.model.outputs))]
