"""Malformed results files, certificates and journals: ``report``, ``diff``, ``merge``,
``certify --verify`` and ``run --resume`` end with a result or the suite's own error naming the
file, never a traceback or a hang."""

from __future__ import annotations

import pytest

from benchmarks import mutation


@pytest.mark.slow
def test_seeded_mutants_of_a_results_file_and_a_certificate_get_no_traceback() -> None:
    outcomes = mutation.check_outputs(seed=20261123, count=50, timeout_s=120, journals=4)
    bad = [outcome for outcome in outcomes if outcome.kind in ("traceback", "died", "hang")]
    assert not bad, "\n\n".join(f"{o.kind}: {o.name}\n{o.detail}" for o in bad[:5])
    assert len(outcomes) == 204  # 50 results files x 3 commands, 50 certificates, 4 journals resumed
    errors = [outcome for outcome in outcomes if outcome.kind == "error"]
    assert errors and all(".json" in outcome.detail for outcome in errors[:20]), errors[
        :3
    ]  # the file is named
