"""Deprecated alias: this module moved to :mod:`conformance.models.torch_modules` (plugin API 2).

Kept so adapters written against the flat layout still import; new code imports
``conformance.models.torch_modules``. The alias will go with plugin API 3.
"""

import warnings

from conformance.models.torch_modules import *  # noqa: F403

warnings.warn(
    "conformance.torch_modules moved to conformance.models.torch_modules; import it from there",
    DeprecationWarning,
    stacklevel=2,
)
