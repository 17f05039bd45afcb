"""The project's own test session: the order tests are handed out in (tests/conftest.py), the same
outcomes whatever else is selected."""

from __future__ import annotations

from pathlib import Path

import pytest

CONFTEST = Path(__file__).resolve().parent / "conftest.py"


@pytest.fixture
def session(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST.read_text(encoding="utf-8"))
    pytester.makeini("[pytest]\nmarkers =\n    slow: s\n    covered_by_main_job: h\n    extra_targets: e\n")
    # in a package of its own: this session has imported the real test_main_job module already
    package = pytester.mkpydir("inner")
    (package / "test_adapter.py").write_text(
        "import pytest\n\n@pytest.mark.covered_by_main_job\ndef test_raw_run():\n    pass\n\n"
        "def test_other():\n    pass\n"
    )
    main_job = "import pytest\n\n@pytest.mark.slow\ndef test_whole():\n    pass\n"
    (package / "test_main_job.py").write_text(main_job)
    return pytester


@pytest.mark.parametrize("narrowed", [[], ["inner/test_adapter.py"], ["-k", "not whole"], ["-m", "not slow"]])
def test_an_adapters_own_run_is_done_whatever_else_is_selected(
    session: pytest.Pytester, narrowed: list[str]
) -> None:
    """With the main job's test or without it, the adapter's own run is run: only an explicit
    ``-m "not covered_by_main_job and not extra_targets"`` (what ``nox -s tests`` passes) leaves it out."""
    done = session.runpytest(*narrowed)
    done.assert_outcomes(passed=3 if not narrowed else 2)


def test_the_nox_selection_leaves_it_out_by_name(session: pytest.Pytester) -> None:
    session.runpytest("-m", "not covered_by_main_job and not extra_targets").assert_outcomes(passed=2)


def test_the_main_job_is_handed_out_first(session: pytest.Pytester) -> None:
    done = session.runpytest("--collect-only", "-q")
    assert done.stdout.lines[0].startswith("inner/test_main_job.py::")
