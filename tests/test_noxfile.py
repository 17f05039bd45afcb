"""noxfile.py and what it reads: its install step runs once for the same inputs (the real nox over
a session of its own that calls the noxfile's ``_install_once``: ``nox -s suite -- ...`` once
reinstalled on every call, ten minutes where the run itself took under five); adapters.toml agrees
with the adapters' own pyproject.toml files; scripts/system_packages.py reads apt's plan and says
what is missing."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from conformance import plugin
from scripts import adapter_table, system_packages

ROOT = Path(__file__).resolve().parent.parent
NOX = shutil.which("nox")

PROBE = f"""
import importlib.util
from pathlib import Path

import nox

spec = importlib.util.spec_from_file_location("project_noxfile", {str(ROOT / "noxfile.py")!r})
project = importlib.util.module_from_spec(spec)
spec.loader.exec_module(project)


@nox.session(python=None)
def probe(session):
    def install():  # counts the installs the session ran
        with open("installs.txt", "a", encoding="utf-8") as installs:
            installs.write("install\\n")

    project._install_once(session, ["-e", "local", "a-package"], install)
"""


@pytest.mark.slow  # a venv made, nox started seven times
@pytest.mark.skipif(NOX is None, reason="no nox on the PATH (pip install -c constraints.txt nox)")
def test_a_session_installs_again_only_when_what_it_installs_changed(tmp_path: Path) -> None:
    (tmp_path / "noxfile.py").write_text(PROBE, encoding="utf-8")
    (tmp_path / "constraints.txt").write_text("a-package==1.0\n", encoding="utf-8")
    (tmp_path / "local").mkdir()
    (tmp_path / "local" / "pyproject.toml").write_text("[project]\nname = 'local'\n", encoding="utf-8")

    def nox(*options: str) -> int:
        """Run the probe session; how many installs it has run so far."""
        assert NOX is not None
        done = subprocess.run(
            [NOX, "-f", "noxfile.py", "-s", "probe", *options],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return len((tmp_path / "installs.txt").read_text(encoding="utf-8").splitlines())

    assert nox() == 1
    assert nox() == 1  # nothing changed: the venv's stamp says so
    assert (tmp_path / ".nox" / "probe" / ".conformance-installed").is_file()
    (tmp_path / "local" / "pyproject.toml").write_text("[project]\nname = 'local2'\n", encoding="utf-8")
    assert nox() == 2  # a local project's metadata
    (tmp_path / "constraints.txt").write_text("a-package==2.0\n", encoding="utf-8")
    assert nox() == 3  # a pin
    assert nox() == 3
    assert nox("-N") == 4  # a new venv holds no stamp
    # nox -R skips pip and npm (the probe's install, no command, still counts): no stamp is
    # written then, so an install that did not happen is not taken for done
    (tmp_path / "constraints.txt").write_text("a-package==3.0\n", encoding="utf-8")
    without_install = nox("-R")
    assert nox() == without_install + 1


def _pyproject(adapter: str) -> dict[str, Any]:
    return tomllib.loads((ROOT / "adapters" / adapter / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_built_in_adapters_are_the_entry_points_of_the_adapters_folder() -> None:
    """adapters.toml and the adapters' entry points name the same adapters, each registered by the
    distribution in adapters/<name>/: a new adapter in one and not the other fails here."""
    registered = {}
    for path in sorted((ROOT / "adapters").glob("*/pyproject.toml")):
        entries = tomllib.loads(path.read_text(encoding="utf-8"))["project"].get("entry-points", {})
        for name in entries.get(plugin.ENTRY_POINT_GROUP, {}):
            registered[name] = path.parent.name
    assert registered == {name: name for name in adapter_table.BUILT_IN}


@pytest.mark.parametrize("adapter", list(adapter_table.BUILT_IN))
def test_each_extra_an_install_names_is_one_the_adapter_declares(adapter: str) -> None:
    """Each extra is among the adapter's optional dependencies and brings something (an empty one
    would only look like a choice), those left out of the main job are among them, and what goes
    in without its requirements is pinned in constraints.txt."""
    declared = _pyproject(adapter)["project"].get("optional-dependencies", {})
    extras = adapter_table.facts(adapter, "extras")
    assert [extra for extra in extras if not declared.get(extra)] == []
    assert set(adapter_table.facts(adapter, "extra_route_extras")) <= set(extras)
    pinned = (ROOT / "constraints.txt").read_text(encoding="utf-8").lower().replace("_", "-")
    for package in (
        *adapter_table.facts(adapter, "no_deps"),
        *adapter_table.facts(adapter, "extra_route_no_deps"),
    ):
        assert re.search(rf"^{re.escape(package.lower())}==", pinned, re.MULTILINE), package
    assert set(adapter_table.facts(adapter, "needs")) <= set(adapter_table.BUILT_IN)
    # what leaving it out drops: extras some adapter installs (a stale name would drop nothing)
    installed = {extra for name in adapter_table.BUILT_IN for extra in adapter_table.facts(name, "extras")}
    assert set(adapter_table.facts(adapter, "brought_by")) <= installed


def test_leaving_a_backend_out_drops_the_extras_that_bring_it() -> None:
    """$CONFORMANCE_LEAVE_OUT: the adapter goes, so do those that need its backend and every other
    adapter's extra that would bring it in; the main job's install also leaves out the extras of
    routes off the default run; an unknown name is an error naming the built-in adapters."""
    everything = adapter_table.install_specs(extra=True)
    for backend in ("torch", "tensorflow"):
        leave = adapter_table.left_out(backend)
        specs = adapter_table.install_specs(leave, extra=True)
        assert len(specs) == len(everything) - len(leave)
        gone = set(adapter_table.facts(backend, "brought_by"))
        assert gone and not any(set(spec.partition("[")[2].rstrip("]").split(",")) & gone for spec in specs)
    assert "litert" in adapter_table.left_out("tensorflow")  # its converter is TensorFlow's
    main = adapter_table.install_specs()
    assert len(main) == len(adapter_table.ADAPTERS) < len(everything)
    off = {
        extra for name in adapter_table.BUILT_IN for extra in adapter_table.facts(name, "extra_route_extras")
    }
    assert off and not any(set(spec.partition("[")[2].rstrip("]").split(",")) & off for spec in main)
    with pytest.raises(ValueError, match="names nosuch; built-in adapters: numpy"):
        adapter_table.left_out("numpy, nosuch")


def test_a_derived_constraints_file_replaces_the_pins_it_names() -> None:
    backend, version = adapter_table.VERSION_RUNS[0]
    text = adapter_table.version_constraints(backend, version)
    assert f"\n{backend}=={version}  # the version under test (constraints.txt: {backend}==" in text
    assert text.count("\n") == len((ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines()) + 1
    ep = adapter_table.TABLES["ep_certification"]
    assert f"\n{ep['package']}=={ep['version']}  # replaces onnxruntime" in adapter_table.ep_constraints()
    assert not re.search(r"^onnxruntime==", adapter_table.ep_constraints(), re.MULTILINE)
    with pytest.raises(
        ValueError, match=re.escape("pins ['no-such-package'], which constraints.txt does not")
    ):
        adapter_table.derived_constraints("a test", {"no-such-package": "no-such-package==1"})


APT_SIMULATION = """\
NOTE: This is only a simulation!
Reading package lists...
Inst libsystemd0 [252.30-1~deb12u2] (252.33-1~deb12u1 Debian:12.9/stable [amd64])
Inst chromium-common (131.0.6778.85-1~deb12u1 Debian-Security:12/stable-security [amd64])
Inst chromium (131.0.6778.85-1~deb12u1 Debian-Security:12/stable-security [amd64])
Remv old-browser [1.0]
Conf chromium (131.0.6778.85-1~deb12u1 Debian-Security:12/stable-security [amd64])
"""


def test_what_apt_would_do_is_read_from_its_simulation() -> None:
    assert system_packages.apt_plan(APT_SIMULATION) == {
        "install": ["chromium-common", "chromium"],
        "upgrade": ["libsystemd0"],
        "remove": ["old-browser"],
    }


def test_a_missing_package_is_said_and_apt_left_alone_when_asked(tmp_path: Path) -> None:
    """With CONFORMANCE_NO_APT=1 and no node on the PATH: exit 1, saying why, apt not run; a
    Chromium named by CONFORMANCE_CHROMIUM is there already: exit 0, nothing said."""
    script = [sys.executable, str(ROOT / "scripts" / "system_packages.py")]
    env = {"PATH": str(tmp_path), "CONFORMANCE_NO_APT": "1"}
    done = subprocess.run([*script, "nodejs"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "CONFORMANCE_NO_APT is set" in done.stderr and "WARNING: no Node.js" in done.stderr
    chromium = {**env, "CONFORMANCE_CHROMIUM": str(tmp_path / "chromium")}
    done = subprocess.run([*script, "chromium"], env=chromium, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (0, "")
    done = subprocess.run([*script, "nosuch"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "usage" in done.stderr
