"""The README's main job stays green: every case through every built-in adapter, with the shipped
known issues, ends with every result pass, xfail or unsupported. A change to the judge, the
reference or an adapter that turns a result red (or a known issue into xpass) fails here, not
only in the next `nox -s suite`. Marked ``main_job``: `nox -s tests` leaves it out (noxfile.py says
why), and CI's second step runs it with the extra targets' tests."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import built_in
import pytest

BUILT_IN = built_in.adapters()

for module in BUILT_IN:
    pytest.importorskip(f"conformance_{module}")  # the adapter (litert's backend is ai_edge_litert)


@pytest.mark.slow
@pytest.mark.main_job
def test_the_whole_corpus_on_every_built_in_adapter_is_green(tmp_path: Path) -> None:
    adapters = [argument for name in BUILT_IN for argument in ("--adapter", name)]
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", *adapters, "-j", "2", "--out", str(tmp_path)],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))["results"]
    statuses = Counter(result["status"] for result in results)
    red = [
        f"{r['case']}::{r['op']} on {r['adapter']}/{r['route']}: {r['status']}: {r['message'][:300]}"
        for r in results
        if r["status"] not in ("pass", "xfail", "unsupported")
    ]
    assert done.returncode == 0 and not red, "\n".join(red[:20]) or done.stderr[-3000:]
    assert statuses["pass"] > 15_000 and len(results) > 20_000  # the whole corpus ran
    assert "matched no result" not in done.stderr  # no known issue went stale
