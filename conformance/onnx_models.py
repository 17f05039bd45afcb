"""Deprecated alias: this module moved to :mod:`conformance.models.onnx_graphs` (plugin API 2).

Kept so adapters written against the flat layout still import; new code imports
``conformance.models.onnx_graphs``. The alias will go with plugin API 3.
"""

import warnings

from conformance.models.onnx_graphs import *  # noqa: F403

warnings.warn(
    "conformance.onnx_models moved to conformance.models.onnx_graphs; import it from there",
    DeprecationWarning,
    stacklevel=2,
)
