"""The project's own test session: the order tests are handed out in, and the adapter runs a session
with the main job's test leaves to it (tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

CONFTEST = Path(__file__).resolve().parent / "conftest.py"


@pytest.fixture
def session(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST.read_text(encoding="utf-8"))
    pytester.makeini("[pytest]\nmarkers =\n    slow: s\n    held_by_main_job: h\n")
    # in a package of its own: this session has imported the real test_main_job module already
    package = pytester.mkpydir("inner")
    (package / "test_adapter.py").write_text(
        "import pytest\n\n@pytest.mark.held_by_main_job\ndef test_raw_run():\n    pass\n\n"
        "def test_other():\n    pass\n"
    )
    main_job = "import pytest\n\n@pytest.mark.slow\ndef test_whole():\n    pass\n"
    (package / "test_main_job.py").write_text(main_job)
    return pytester


def test_a_run_the_main_jobs_test_holds_is_skipped_in_its_session(session: pytest.Pytester) -> None:
    done = session.runpytest("-rs")
    done.assert_outcomes(passed=2, skipped=1)
    done.stdout.fnmatch_lines(["*held whole by test_main_job.py in this session*"])


@pytest.mark.parametrize("narrowed", [["inner/test_adapter.py"], ["-k", "not whole"], ["-m", "not slow"]])
def test_without_the_main_jobs_test_the_run_is_done(session: pytest.Pytester, narrowed: list[str]) -> None:
    """Alone, or with the main job's test deselected by -k or -m, the adapter's own run is done."""
    session.runpytest(*narrowed).assert_outcomes(passed=2)


def test_the_main_job_is_handed_out_first(session: pytest.Pytester) -> None:
    done = session.runpytest("--collect-only", "-q")
    assert done.stdout.lines[0].startswith("inner/test_main_job.py::")
