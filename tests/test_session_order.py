"""The project's own test session: the order tests are handed out in (tests/conftest.py), the same
outcomes whatever else is selected."""

from __future__ import annotations

from pathlib import Path

import pytest

CONFTEST = Path(__file__).resolve().parent / "conftest.py"


@pytest.fixture
def session(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST.read_text(encoding="utf-8"))
    markers = ("slow", "main_job", "covered_by_main_job", "extra_targets")
    pytester.makeini("[pytest]\nmarkers =\n" + "".join(f"    {name}: -\n" for name in markers))
    # in a package of its own: this session has imported the real test_main_job module already
    package = pytester.mkpydir("inner")
    (package / "test_adapter.py").write_text(
        "import pytest\n\n@pytest.mark.covered_by_main_job\ndef test_raw_run():\n    pass\n\n"
        "def test_other():\n    pass\n"
    )
    main_job = "import pytest\n\n@pytest.mark.slow\n@pytest.mark.main_job\ndef test_whole():\n    pass\n"
    (package / "test_main_job.py").write_text(main_job)
    return pytester


@pytest.mark.parametrize("narrowed", [[], ["inner/test_adapter.py"], ["-k", "not whole"], ["-m", "not slow"]])
def test_an_adapters_own_run_is_done_whatever_else_is_selected(
    session: pytest.Pytester, narrowed: list[str]
) -> None:
    """With the main job's test or without it, the adapter's own run is run: only an explicit
    ``-m`` that names its marker (``nox -s tests`` and CI's second step, below) leaves it out."""
    done = session.runpytest(*narrowed)
    done.assert_outcomes(passed=3 if not narrowed else 2)


def test_the_nox_selection_leaves_it_and_the_main_job_out_by_name(session: pytest.Pytester) -> None:
    selection = "not main_job and not covered_by_main_job and not extra_targets"  # noxfile.py's tests
    session.runpytest("-m", selection).assert_outcomes(passed=1)


def test_cis_second_step_runs_the_main_job_and_not_the_raw_run_it_covers(session: pytest.Pytester) -> None:
    done = session.runpytest("-m", "main_job or extra_targets", "-v")  # the two marked selections
    done.assert_outcomes(passed=1)
    done.stdout.fnmatch_lines(["*test_main_job.py::test_whole PASSED*"])


def test_the_main_job_is_handed_out_first(session: pytest.Pytester) -> None:
    done = session.runpytest("--collect-only", "-q")
    assert done.stdout.lines[0].startswith("inner/test_main_job.py::")
