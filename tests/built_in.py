"""The built-in adapters as adapters.toml lists them (``adapters``: what the main job installs and
runs; ``extra_adapters``: those only ``nox -s extra_targets`` runs), through scripts/adapter_table.py,
which the noxfile reads them with too."""

from __future__ import annotations

import pytest
from _pytest.mark.structures import ParameterSet

from scripts import adapter_table


def adapters() -> tuple[str, ...]:
    """The adapters with a target in the default run, in install order: the main job installs and
    runs them."""
    return adapter_table.ADAPTERS


def extra_adapters() -> tuple[str, ...]:
    """The other built-in adapters: none of their targets is in the default run."""
    return adapter_table.EXTRA_ADAPTERS


def every_adapter() -> tuple[str, ...]:
    return (*adapters(), *extra_adapters())


def off_default_run(*values: object) -> ParameterSet:
    """A parametrised case that runs a target off the default run: marked ``extra_targets``, which
    ``nox -s tests`` leaves out (CI runs those in a step of their own, see noxfile.py)."""
    return pytest.param(*values, marks=pytest.mark.extra_targets)
