"""adapters.toml read for the nox sessions and the tests: the built-in adapters, what an install of
them passes to pip, and the constraints files derived from constraints.txt. Standard library only
(the noxfile imports it before any venv exists, the tests without nox)."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "adapters.toml"
TABLES: dict[str, Any] = tomllib.loads(TABLE.read_text(encoding="utf-8"))
BUILT_IN: dict[str, dict[str, Any]] = TABLES["adapter"]
#: the adapters with a route in the default run (what ``nox -s suite`` installs), in install order
ADAPTERS = tuple(name for name, facts in BUILT_IN.items() if facts.get("main"))
#: the others: none of their targets is in the default run
EXTRA_ADAPTERS = tuple(name for name in BUILT_IN if name not in ADAPTERS)
#: the folders whose package-lock.json `npm ci` installs (TF.js's), and their package files
NPM_FOLDERS = tuple(str(facts["npm"]) for facts in BUILT_IN.values() if "npm" in facts)
NPM_FILES = tuple(
    Path(folder, name) for folder in NPM_FOLDERS for name in ("package.json", "package-lock.json")
)


def facts(name: str, key: str) -> list[str]:
    """One of the lists of adapter ``name``'s table (empty where it has none)."""
    return list(BUILT_IN[name].get(key, []))


def adapter_spec(name: str, dropped: Iterable[str] = ()) -> str:
    """``adapters/<name>[extras]``: the adapter's extras less ``dropped``."""
    kept = [extra for extra in facts(name, "extras") if extra not in set(dropped)]
    return f"adapters/{name}[{','.join(kept)}]" if kept else f"adapters/{name}"


def left_out(named: str, *, extra: bool = False) -> set[str]:
    """The adapters a comma-separated ``named`` ($CONFORMANCE_LEAVE_OUT) leaves out, with those that
    need a left-out one's backend (LiteRT's converter is TensorFlow's); ValueError for a name that is
    no built-in adapter."""
    leave = {name.strip() for name in named.split(",") if name.strip()}
    unknown = sorted(leave - set(BUILT_IN))
    if unknown:
        names = (*ADAPTERS, *EXTRA_ADAPTERS) if extra else ADAPTERS
        raise ValueError(f"names {', '.join(unknown)}; built-in adapters: {', '.join(names)}")
    return leave | {name for name in BUILT_IN if set(facts(name, "needs")) & leave}


def install_specs(leave: Iterable[str] = (), *, extra: bool = False) -> list[str]:
    """pip's specs for the built-in adapters but ``leave``, each less the extras that would bring a
    left-out backend in (``adapters/openvino[onnx]``); the default run's install (not ``extra``)
    also less the extras that serve only routes off it, and without the EXTRA_ADAPTERS."""
    leave = set(leave)
    gone = {extra for name in leave for extra in facts(name, "brought_by")}
    specs = []
    for name in (*ADAPTERS, *EXTRA_ADAPTERS) if extra else ADAPTERS:
        if name not in leave:
            off = set() if extra else set(facts(name, "extra_route_extras"))
            specs.append(adapter_spec(name, gone | off))
    return specs


def no_deps(adapters: Iterable[str], *, extra: bool = False) -> list[str]:
    """What ``adapters`` install without its own requirements (``no_deps``; with ``extra``, their
    ``extra_route_no_deps`` too): at its pin, beside the adapter that brings what it imports."""
    keys = ("no_deps", "extra_route_no_deps") if extra else ("no_deps",)
    return [package for key in keys for name in adapters for package in facts(name, key)]


def derived_constraints(title: str, pins: dict[str, str]) -> str:
    """constraints.txt under a ``# constraints.txt for <title>`` line, the line of each package in
    ``pins`` replaced by its pin there (``name==version  # why``); ValueError for a package
    constraints.txt does not pin."""
    lines, seen = [f"# constraints.txt for {title}"], set()
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        name = re.split(r"[=<>!~\[ ;]", line.strip(), maxsplit=1)[0].lower()
        if name in pins:
            seen.add(name)
        lines.append(f"{pins[name]} (constraints.txt: {line.strip()})" if name in pins else line)
    if set(pins) - seen:
        raise ValueError(f"{TABLE.name} pins {sorted(set(pins) - seen)}, which constraints.txt does not pin")
    return "\n".join(lines) + "\n"


def flags(flag: str, values: Iterable[str]) -> list[str]:
    """``flag`` before each of ``values``: ``--target a --target b``."""
    return [arg for value in values for arg in (flag, value)]


#: the backend-version matrix's runs, (backend, version) in the table's order
VERSION_RUNS = tuple(
    (backend, version) for backend, matrix in TABLES["versions"].items() for version in matrix["releases"]
)


def version_constraints(backend: str, version: str) -> str:
    """constraints.txt for one run of the matrix: ``backend`` at ``version``, with the pins that
    release needs (ValueError for one constraints.txt lacks)."""
    needs = TABLES["versions"][backend]["releases"][version].items()
    pins = {name: f"{name}=={pin}  # {why}" for name, (pin, why) in needs}
    pins[backend] = f"{backend}=={version}  # the version under test"
    return derived_constraints(f"the backend-version matrix: {backend} {version}", pins)


def ep_constraints() -> str:
    """constraints.txt with onnxruntime swapped for the certified execution provider's package."""
    ep = TABLES["ep_certification"]
    swap = {"onnxruntime": f"{ep['package']}=={ep['version']}  # replaces onnxruntime in this venv"}
    return derived_constraints(f"the execution-provider certification: {ep['package']} {ep['version']}", swap)
