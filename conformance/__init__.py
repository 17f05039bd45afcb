"""A conformance suite for the Split family of tensor operators.

One sub-package per stage of the pipeline (docs/architecture.md): ``corpus`` -> ``oracle`` ->
``results`` -> ``run`` (backends answer through adapters, :mod:`conformance.plugin`) ->
``certify`` and ``report`` -> the front doors :mod:`conformance.cli` and
:mod:`conformance.pytest.front_door`.
"""

__version__ = "0.1.0"
