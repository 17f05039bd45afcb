"""What an adapter's constructor does: the quiet import first, then a route module."""

from quiet_package import zz_quiet  # noqa: F401  # first: it turns the backend's thread off

# isort: split
from quiet_package import route  # noqa: F401
