"""Debian packages the nox sessions need beside their venvs, installed by apt when missing.

    python scripts/system_packages.py chromium   # the report's browser tests (nox -s tests)
    python scripts/system_packages.py nodejs     # Node.js and npm for the tfjs adapter's `npm ci`

apt-get runs as root, or with sudo that asks no password; anywhere else the package is only asked
for, loudly. apt may upgrade installed system packages to satisfy the new ones' dependencies
(Chromium's need newer systemd libraries on some machines), so what it would install, upgrade and
remove is printed first, from ``apt-get -s install``: at a terminal (not in CI) an upgrade is asked
about first, and a removal is never done here. ``CONFORMANCE_NO_APT=1`` leaves apt alone; a package
installed beforehand (or ``CONFORMANCE_CHROMIUM=/path/to/chromium``) is used as it is.

Exit status 0 when the package's command is there at the end, 1 when it is not (said why): the
sessions go on without it, the tests or items that need it skipped or unsupported with the reason.
Standard library only: it runs with whichever Python the session has.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path


def _has_chromium() -> bool:
    """Whether the browser tests find a Chromium (as benchmarks/headless.py looks for it)."""
    return bool(
        os.environ.get("CONFORMANCE_CHROMIUM")
        or shutil.which("chromium")
        or Path("/usr/bin/chromium").exists()
    )


#: What each name installs, how to tell it is there, and what its absence costs.
PACKAGES: dict[str, tuple[tuple[str, ...], Callable[[], bool], str]] = {
    "chromium": (
        ("chromium",),
        _has_chromium,
        "no Chromium on the PATH (or $CONFORMANCE_CHROMIUM): the report's browser tests will be SKIPPED",
    ),
    "nodejs": (
        ("nodejs", "npm"),
        lambda: shutil.which("node") is not None,
        "no Node.js: the tfjs adapter's items will be unsupported (install Node.js 20 and npm)",
    ),
}


def say(message: str) -> None:
    print(f"system_packages > {message}", file=sys.stderr, flush=True)


def apt_plan(simulation: str) -> dict[str, list[str]]:
    """What an ``apt-get -s install`` transcript would do: the packages it installs new, the
    installed ones it upgrades (an ``Inst`` line naming the old version in brackets) and the ones
    it removes."""
    plan: dict[str, list[str]] = {"install": [], "upgrade": [], "remove": []}
    for line in simulation.splitlines():
        match = re.match(r"(Inst|Remv) (\S+)( \[)?", line)
        if match:
            kind = "remove" if match[1] == "Remv" else "upgrade" if match[3] else "install"
            plan[kind].append(match[2])
    return plan


def _confirmed(question: str) -> bool:
    """Ask at a terminal (never in CI, nor without one on standard input: there the answer is yes)."""
    if os.environ.get("CI") or not sys.stdin.isatty():
        return True
    return input(f"system_packages > {question} [y/N] ").strip().lower() in ("y", "yes")


def _sudo() -> list[str] | None:
    """The prefix apt-get needs here (none as root, ``sudo -n`` otherwise), None where it cannot run."""
    if not shutil.which("apt-get"):
        return None
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return []
    return ["sudo", "-n"] if shutil.which("sudo") else None


def apt_install(packages: tuple[str, ...], sudo: list[str]) -> None:
    """apt-get install ``packages``, after printing what apt would install, upgrade and remove;
    raises CalledProcessError when apt fails."""
    subprocess.run([*sudo, "apt-get", "update", "-q"], check=True)
    simulation = subprocess.run(
        ["apt-get", "-s", "install", *packages], check=True, capture_output=True, text=True
    ).stdout
    plan = apt_plan(simulation)
    wanted = " ".join(packages)
    for kind, what in (
        ("install", "install {} new packages"),
        ("upgrade", "UPGRADE {} installed packages"),
        ("remove", "REMOVE {} installed packages"),
    ):
        if plan[kind] or kind == "upgrade":  # the upgrades always said, none included
            names = ": " + " ".join(plan[kind]) if plan[kind] else ""
            say(f"apt-get install {wanted} would {what.format(len(plan[kind]))}{names}")
    if plan["remove"]:
        say(f"apt-get install {wanted} would REMOVE installed packages: not done here; install it yourself")
        return
    upgrades = f"upgrade {len(plan['upgrade'])} installed system packages"
    if plan["upgrade"]:
        if not _confirmed(f"Install {wanted} and {upgrades}?"):
            return
        say(f"installing {wanted}, which will {upgrades} (listed above)")
    command = [*sudo, "apt-get", "install", "-y", "-q", *packages]
    subprocess.run(command, check=True, env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in PACKAGES:
        say(f"usage: python scripts/system_packages.py {{{','.join(PACKAGES)}}}")
        return 2
    packages, present, missing = PACKAGES[argv[0]]
    if present():
        return 0
    sudo = _sudo()
    if os.environ.get("CONFORMANCE_NO_APT", "") not in ("", "0"):
        say(f"CONFORMANCE_NO_APT is set: {' '.join(packages)} not installed by apt")
    elif sudo is not None:
        say(f"{missing.partition(':')[0]}: installing {' '.join(packages)} with apt-get (about a minute)")
        try:
            apt_install(packages, sudo)
        except (subprocess.CalledProcessError, OSError) as error:
            say(f"apt-get failed: {error}")
    if present():
        return 0
    why = "it was not installed (apt-get as root or password-less sudo)"
    say(f"WARNING: {missing}, and {why}. On Debian or Ubuntu: sudo apt-get install {' '.join(packages)}")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
