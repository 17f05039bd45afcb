"""noxfile.py's install step runs once for the same inputs: ``nox -s suite -- ...`` reinstalled
(pip, then `npm ci`) on every call, ten minutes where the run itself took under five. Each test
runs the real nox over a session of its own that calls the noxfile's ``_install_once``."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

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
