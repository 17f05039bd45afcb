"""How the report is opened in headless Chromium, by the browser tests and the report benchmark.

One set of flags for both, so what the benchmark times is what the tests check: no sandbox (CI
runs as root), and no background networking, sync, component updates or QUIC, which would
otherwise have Chromium reach for the network at every start on a closed machine.

This is test and benchmark configuration, so it lives outside the installed package. The
browser is ``$CONFORMANCE_CHROMIUM`` when set, else the ``chromium`` on the PATH (Debian's
package, which .ci/run installs), else Debian's usual path.
"""

from __future__ import annotations

import os
import shutil
from typing import Final

#: Debian's Chromium; test tools' own browser downloads do not work without the network.
CHROMIUM: Final = os.environ.get("CONFORMANCE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"

CHROMIUM_ARGS: Final = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
