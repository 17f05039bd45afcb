"""A conformance suite for the Split family of tensor operators.

The package is the pipeline, one sub-package per stage (docs/architecture.md):
``corpus`` (what is asked) -> ``oracle`` (what the specs answer) -> ``results`` (the results
contract) -> ``run`` (backends answer, through adapters implementing :mod:`conformance.plugin`)
-> ``certify`` and ``report`` -> the front doors :mod:`conformance.cli` and
:mod:`conformance.pytest.plugin`. Backends plug in as adapters through the
``conformance.adapters`` entry-point group.
"""

__version__ = "0.1.0"
