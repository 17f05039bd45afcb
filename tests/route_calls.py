"""An adapter's calls as the executor reaches them, for tests: through its checked routes, and
with every route's outputs changed, to prove that the judge catches a wrong answer."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from conformance.loading import hooks, registry
from conformance.plugin import Adapter, AdapterInfo, Route, Target, Task, Unsupported

Change = Callable[[list[np.ndarray]], list[np.ndarray]]
Run = Callable[[Any, Task], Sequence[np.ndarray]]


def route(adapter: Adapter, target: Target) -> Route:
    """The route of ``adapter`` that ``target`` names, its calls checked as a load checks them."""
    return hooks.of(adapter).route(target)


def prepare(adapter: Adapter, target: Target) -> None:
    """The route's untimed start-up, as a worker calls it before the target's first item."""
    hooks.of(adapter).prepare(target)


def support(adapter: Adapter, task: Task, target: Target) -> Unsupported | None:
    return hooks.of(adapter).unsupported(task, target)


def reproducer(adapter: Adapter, task: Task, target: Target) -> str | None:
    """The route's snippet, or None for a route without a reproducer."""
    write = route(adapter, target).reproducer
    return None if write is None else write(task, target)


def snippet(target: Target, task: Task) -> str | None:
    """The reproducer the installed adapter of ``target`` writes for ``task`` there."""
    return reproducer(registry.load(target.adapter).adapter, task, target)


def outcome(adapter: Adapter, task: Task, target: Target) -> Sequence[np.ndarray]:
    """Build, compile and run, as one item's first run does (untimed)."""
    checked = hooks.of(adapter)
    run = checked.route(target).run
    assert run is not None
    build = checked.route(target).build
    assert build is not None
    return run(checked.compiled(build(task, target), target), task)


def tampered(info: AdapterInfo, change: Change) -> AdapterInfo:
    """``info`` with every route's outputs passed through ``change``."""

    def wrapped(run: Run) -> Run:
        return lambda model, task: change([np.array(piece, copy=True) for piece in run(model, task)])

    routes = tuple(r if r.run is None else dataclasses.replace(r, run=wrapped(r.run)) for r in info.routes)
    return dataclasses.replace(info, routes=routes)


def with_outputs(adapter: Adapter, change: Change) -> hooks.Hooks:
    """``adapter``'s checked calls with every route's outputs passed through ``change``: a broken
    adapter (pieces swapped, a bit flipped) whose results the comparison must fail."""
    return hooks.check("a tampered adapter", adapter, tampered(adapter.info(), change))


def swap_first_two(pieces: list[np.ndarray]) -> list[np.ndarray]:
    """The first two pieces in the wrong order."""
    pieces[0], pieces[1] = pieces[1], pieces[0]
    return pieces


def flip_sign_bit(pieces: list[np.ndarray]) -> list[np.ndarray]:
    """The sign bit of the last piece's first float32 flipped: -0.0 for 0.0 is wrong for a data move."""
    pieces[-1].reshape(-1).view(np.uint32)[0] ^= np.uint32(0x8000_0000)
    return pieces


def flip_low_bit(pieces: list[np.ndarray]) -> list[np.ndarray]:
    """The lowest bit of the last piece's first byte flipped, whatever its dtype."""
    pieces[-1].view(np.uint8).reshape(-1)[0] ^= 1
    return pieces
