"""The Slice family's part of a case file: its keys (``starts``, ``ends``, ``axes``, ``steps``,
``sizes``, ``masks``) read into a :class:`SliceArguments`, and what a ``runs:`` entry may change
(docs/case-format.md, "Slice cases"). The schema has checked the keys' types already."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from conformance.corpus.case import MASK_NAMES, SLICE_INPUTS, GraphSpec, Masks, SliceArguments

#: The keys that make a case a Slice case.
SLICE_KEYS: tuple[str, ...] = (*SLICE_INPUTS, "masks")


def is_slice(case: Mapping[str, Any]) -> bool:
    """Whether a merged case asks a slice (gives any Slice key)."""
    return any(key in case for key in SLICE_KEYS)


def _vector(value: list[int | None] | None) -> tuple[Any, ...] | None:
    return None if value is None else tuple(value)


def slice_arguments(case: Mapping[str, Any]) -> SliceArguments:
    """The Slice request a case (or a run's keys over it) writes."""
    masks = case.get("masks")
    return SliceArguments(
        starts=tuple(case["starts"]),
        ends=_vector(case.get("ends")),
        axes=_vector(case.get("axes")),
        steps=_vector(case.get("steps")),
        sizes=_vector(case.get("sizes")),
        masks=None if masks is None else Masks(**{name: tuple(masks.get(name, ())) for name in MASK_NAMES}),
    )


def form_problems(arguments: SliceArguments) -> list[tuple[str, str]]:
    """What the schema cannot say about the keys together: (key, message) for each problem. Values
    stay as written (a step of 0 or a repeated axis is a legitimate test input, which the
    reference rejects); only a request no op could read is refused here."""
    problems = []
    if arguments.masks is not None and arguments.axes is not None:
        problems.append(("axes", "masks index full vectors of starts, ends and steps: leave 'axes' out"))
    if arguments.masks is not None and (arguments.ends is None or arguments.steps is None):
        problems.append(("masks", "masks need 'ends' and 'steps' beside 'starts' (full index vectors)"))
    if arguments.masks is None and arguments.ends is None and arguments.sizes is None:
        problems.append(("starts", "a slice needs 'ends' (or 'sizes', or 'masks') beside 'starts'"))
    if None in (arguments.axes or ()) or None in (arguments.steps or ()) or None in (arguments.sizes or ()):
        problems.append(("starts", "only starts and ends take null (an omitted bound)"))
    return problems


def run_problems(
    raw: Mapping[str, Any], arguments: SliceArguments, graph: GraphSpec
) -> list[tuple[str, str]]:
    """Why a run's Slice keys cannot change the built model, as (key, message): a run gives new
    values to inputs fed at run time, as many as the case's (the count fixes the model)."""
    problems = []
    for key in SLICE_KEYS:
        if key not in raw:
            continue
        written = getattr(arguments, key)
        if key == "masks" or written is None:
            problems.append(
                (
                    key,
                    f"the case gives no runtime '{key}' input; a run changes values, not the request's form",
                )
            )
        elif not graph.runtime(key):
            problems.append(
                (
                    key,
                    f"the {key} are constants of the model; feed them with graph.inputs: runtime or {{{key}: runtime}}",
                )
            )
        elif None in raw[key]:
            problems.append((key, "a bound fed at run time is a value: it cannot be omitted (null)"))
        elif len(raw[key]) != len(written):
            problems.append(
                (
                    key,
                    f"{len(raw[key])} values where the case gives {len(written)}: the count fixes the model",
                )
            )
    return problems


def run_arguments(raw: Mapping[str, Any], arguments: SliceArguments) -> SliceArguments:
    """The case's request with a run's new values."""
    return replace(arguments, **{key: tuple(raw[key]) for key in SLICE_INPUTS if key in raw})
