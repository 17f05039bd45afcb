"""What routes declare they import (Route.imports): every default route of a built-in adapter
declares its backend's modules, the adapter's distribution brings them (not another adapter's),
and ``conformance adapters`` imports them in child processes and names a route that cannot.

A gap the tests' own venv hides: it installs every adapter with every extra, so a module one
adapter needs may be there only through another (Keras's numpy backend imported SciPy, which
only JAX brought, and JAX's backend, which the main job's install left out): the main job's 344
keras/numpy results were adapter defects. So the distributions are compared through their
metadata, adapter by adapter, with the extras the main job installs (adapters.toml, through
scripts/adapter_table.py as the noxfile reads it)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest
from built_in import adapters
from packaging.requirements import Requirement

from conformance import plugin
from conformance.engine import loadable, settings
from conformance.loading import registry
from scripts import adapter_table

TESTS = Path(__file__).resolve().parent


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _main_job_install(adapter: str) -> tuple[str, set[str], set[str]]:
    """The adapter's distribution, the extras the main job installs it with (its spec among the
    main job's), and what it installs without their requirements."""
    (spec,) = [
        spec for spec in adapter_table.install_specs() if spec.partition("[")[0] == f"adapters/{adapter}"
    ]
    extras = {extra for extra in spec.partition("[")[2].rstrip("]").split(",") if extra}
    entry = next(ep for ep in metadata.entry_points(group=plugin.ENTRY_POINT_GROUP) if ep.name == adapter)
    assert entry.dist is not None, adapter
    return entry.dist.name, extras, {_canonical(name) for name in adapter_table.no_deps([adapter])}


def _brought(distribution: str, extras: set[str]) -> set[str]:
    """Every distribution pip installs for ``distribution[extras]``: its requirements whose markers
    hold here, and theirs, followed through the installed metadata."""
    seen: set[tuple[str, frozenset[str]]] = set()
    todo = [(_canonical(distribution), frozenset(extras))]
    while todo:
        name, wanted = todo.pop()
        if (name, wanted) in seen:
            continue
        seen.add((name, wanted))
        try:
            requires = metadata.distribution(name).requires or []
        except metadata.PackageNotFoundError:
            continue
        for text in requires:
            requirement = Requirement(text)
            marker = requirement.marker
            if marker is None or any(marker.evaluate({"extra": extra}) for extra in (*wanted, "")):
                todo.append((_canonical(requirement.name), frozenset(requirement.extras)))
    return {name for name, _ in seen}


def _default_routes(adapter: str) -> Iterator[plugin.Route]:
    yield from (route for route in registry.load(adapter).info.routes if route.default)


def _installed_built_in() -> list[str]:
    return [name for name in adapters() if name in registry.installed()]


@pytest.mark.parametrize("adapter", _installed_built_in())
def test_every_default_route_of_a_built_in_adapter_declares_what_it_imports(adapter: str) -> None:
    info = registry.load(adapter).info
    try:
        metadata.distribution(info.backend)
    except (metadata.PackageNotFoundError, ValueError):  # no Python backend (TF.js's npm package)
        return
    undeclared = [route.name for route in _default_routes(adapter) if not route.imports]
    assert not undeclared, f"{adapter}: default routes without Route.imports: {undeclared}"


@pytest.mark.parametrize("adapter", _installed_built_in())
def test_what_a_default_route_declares_comes_with_its_adapter(adapter: str) -> None:
    """Each declared module's distribution is one the main job installs for this adapter itself:
    among its requirements (with the extras noxfile.py installs), or installed without its own
    requirements beside it (``no_deps``). Through another adapter alone it fails."""
    distribution, extras, no_deps = _main_job_install(adapter)
    brought = _brought(distribution, extras) | no_deps
    providers = plugin.distributions_by_package()
    for route in _default_routes(adapter):
        for module in route.imports:
            top = module.partition(".")[0]
            found = {_canonical(name) for name in providers.get(top, ())}
            assert found & brought, (
                f"{adapter}/{route.name} imports {module}, from {sorted(found) or 'nothing installed'}, "
                f"which {distribution}[{','.join(sorted(extras))}] does not bring: the main job lacks it "
                "unless another adapter installs it"
            )


def test_the_keras_numpy_route_s_backend_comes_with_the_keras_adapter() -> None:
    """The gap the main job met, asserted where it was: SciPy and JAX, which Keras's numpy
    backend imports, come with conformance-keras as the main job installs it."""
    if "keras" not in registry.installed():
        pytest.skip("the keras adapter is not installed")
    distribution, extras, _ = _main_job_install("keras")
    assert "jax" not in extras  # JAX is a requirement of the adapter itself, not of an extra
    numpy_route = registry.load("keras").route("numpy")
    assert numpy_route.default and {"scipy", "jax"} <= set(numpy_route.imports)
    assert {"scipy", "jax"} <= _brought(distribution, extras)


def test_a_module_that_cannot_be_imported_is_named_with_why(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each set of modules in a child of its own: one that loads, one missing, one whose import
    aborts the process; the caller lives on and names the module each failed in."""
    monkeypatch.syspath_prepend(str(TESTS))
    said = loadable.check(
        [("json",), ("json", "no_such_backend_module"), ("abort_at_import",), ("json",)], timeout=120
    )
    assert said[("json",)] is None
    assert said[("json", "no_such_backend_module")] == (
        "importing no_such_backend_module: ModuleNotFoundError: No module named 'no_such_backend_module'"
    )
    aborted = said[("abort_at_import",)]
    died = "importing abort_at_import: the process died (killed by SIGABRT)"
    assert aborted is not None and aborted.startswith(died), aborted
    assert len(said) == 3  # one child per distinct set


def test_an_import_that_hangs_is_killed_at_the_start_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gated_import waits 60 s for a gate never made; the limit (the engine's start limit, made
    10 s here: spawning the child and its own imports fit well within it) ends it."""
    monkeypatch.syspath_prepend(str(TESTS))
    monkeypatch.setenv("GATED_IMPORT_GATE", str(tmp_path / "gate"))
    monkeypatch.setenv("GATED_IMPORT_LOG", str(tmp_path / "imported-by"))
    quick = dataclasses.replace(settings.ENGINE, start_s=10.0, start_timeouts=0)
    monkeypatch.setattr(settings, "ENGINE", quick)
    said = loadable.check([("gated_import",)], timeout=120)
    assert said == {("gated_import",): "importing gated_import: not done within 10 s, killed"}
    assert not (tmp_path / "imported-by").exists()  # killed before the import ended


def test_conformance_adapters_names_a_route_that_cannot_load_its_backend(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The listing says it under the route, the end says it again (what the main job's log shows
    last), and the exit status is 1: nox -s suite stops there instead of running every item."""
    from conformance.cli import main

    monkeypatch.syspath_prepend(str(TESTS))
    installed = {"absent": "fake_adapters:AbsentBackend", "slicer": "fake_adapters:Slicer"}
    monkeypatch.setattr(registry, "installed", lambda: installed)
    status = main(["adapters"])
    out, err = capsys.readouterr()
    why = "importing no_such_backend_module: ModuleNotFoundError: No module named 'no_such_backend_module'"
    assert status == 1, out + err
    assert f"    backend: CANNOT LOAD: {why}\n" in out
    assert "    backend: declares no modules (Route.imports): not checked\n" in out  # the slicer's
    assert err.splitlines()[-1].startswith(f"absent/slices cannot load its backend: {why} (")
