"""Deprecated alias: this module moved to :mod:`conformance.corpus.case` (plugin API 2).

Kept so adapters written against the flat layout still import; new code imports
``conformance.corpus.case``. The alias will go with plugin API 3.
"""

import warnings

from conformance.corpus.case import *  # noqa: F403

warnings.warn(
    "conformance.case moved to conformance.corpus.case; import it from there",
    DeprecationWarning,
    stacklevel=2,
)
