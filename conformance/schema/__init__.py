"""The JSON Schemas that ship with the package: case files, certification profiles, results files
and known-issues files. Each is read once per process."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any, Literal


@cache
def load(name: Literal["case", "profile", "results", "known-issues"]) -> dict[str, Any]:
    """The schema ``<name>.schema.json``, parsed."""
    text = resources.files(__name__).joinpath(f"{name}.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
