"""Functions other libraries present as NumPy's own: ``jax.numpy.split``, ``cupy.array_split`` ...
(docs/specs.md: ``jax-jax.numpy.split``, ``cupy-cupy.split`` and their siblings).

Their pages say each follows the NumPy function of the same name, so each is judged by NumPy's
text (``numpy-numpy.split``, ``numpy-numpy.array_split``, ``numpy-numpy.hsplit`` ...) under its own
name: the rejections name the function judged and the text it claims. Where a library's page states
a difference from NumPy, docs/specs.md records it; none of the recorded ones changes a rule.
"""

from __future__ import annotations

from collections.abc import Callable

from conformance.oracle.reference import directional_ops
from conformance.oracle.reference.answer import Pieces, SplitRequest
from conformance.oracle.reference.library_ops import sections_or_indices

Rules = Callable[[SplitRequest], Pieces]

#: NumPy's split functions a namesake may claim, each with how NumPy's text applies it.
_DIRECTIONS = {direction.name: direction for direction in directional_ops.DIRECTIONS}
_MUST_DIVIDE = {"split": True, "array_split": False}
NAMES = (*_MUST_DIVIDE, *_DIRECTIONS)


def rules(module: str, name: str) -> Rules:
    """The rules of ``<module>.<name>``: NumPy's text for ``numpy.<name>``, named for the function."""
    spec = f"{module}.{name} (numpy.{name}'s text)"
    if name in _DIRECTIONS:
        direction = _DIRECTIONS[name]
        return lambda request: directional_ops.numpy_directional(direction, request, spec)
    must_divide = _MUST_DIVIDE[name]
    return lambda request: sections_or_indices(request, spec, must_divide=must_divide)


def every(module: str) -> dict[str, Rules]:
    """The rules of every NumPy split function ``module`` has, by op id (``cupy.split`` ...)."""
    return {f"{module}.{name}": rules(module, name) for name in NAMES}
