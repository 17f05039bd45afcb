"""The counts README.md states, against the code that counts them: the corpus's cases and items,
the cases of the tag ``large`` (and the 2 GiB ones among them), the main job's results and
targets, and the run's sample and early-zygote thresholds. Each figure is read from the README's
own sentence, so a change to the corpus, the adapters' default routes or the README fails here
until both sides agree again.

(Times are not checked: they are measurements, and the README says where each was taken.)"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import built_in
import pytest
from report_fixtures import corpus

from conformance.corpus.selection import select
from conformance.run import memory
from conformance.run.settings import ENGINE

ROOT = Path(__file__).resolve().parent.parent
#: README.md with every run of white space made one space, so a sentence may be rewrapped
README = re.sub(r"\s+", " ", (ROOT / "README.md").read_text(encoding="utf-8"))

BUILT_IN = built_in.adapters()

CASES = r"The corpus holds ([\d,]+) cases"
ITEMS = r"which make ([\d,]+) \(case, op\) items"
LARGE = r"([\d,]+) cases carry the tag `large`"
HUGE = r"([\d,]+) of them \(`cases/large\.yaml`\) split tensors of 2 GiB"
MAIN_JOB = r"the main job judges them on the ([\d,]+) targets of the default run: ([\d,]+) results"
EAGER = r"a run of ([\d,]+) items or more starts it before its first"
SAMPLE = r"A sample of ([\d,]+) % of each target's items \(at least ([\d,]+)\) runs first"
NAP = r"the run's process naps, at most ([\d,]+) ms"


def stated(pattern: str, text: str = README) -> tuple[int, ...]:
    """The figures of the README's one sentence matching ``pattern`` (thousands commas allowed)."""
    found = re.findall(pattern, text)
    assert found, f"README.md no longer has the sentence {pattern!r}: state the figure with it again"
    assert len(set(found)) == 1, f"README.md states {pattern!r} with different figures: {found}"
    groups = found[0] if isinstance(found[0], tuple) else (found[0],)
    return tuple(int(group.replace(",", "")) for group in groups)


@pytest.mark.slow
def test_the_corpus_counts() -> None:
    cases = corpus().cases
    assert stated(CASES) == (len(cases),)
    assert stated(ITEMS) == (len(select(cases)),)


def test_the_large_tag_counts() -> None:
    cases = corpus().cases
    assert stated(LARGE) == (sum("large" in case.tags for case in cases),)
    # the 2 GiB ones are the items that run first, one at a time (memory.is_large), all tagged large
    huge = [case for case in cases if memory.data_bytes(case.data) >= 2**31]
    assert [case for case in cases if memory.is_large(case)] == huge
    assert all("large" in case.tags for case in huge)
    assert stated(HUGE) == (len(huge),)


def test_the_run_order_and_forking_thresholds() -> None:
    """The Speed paragraph's sample, early zygote and the run's naps, against the constants that
    set them."""
    assert stated(EAGER) == (ENGINE.eager_zygote,)
    assert stated(SAMPLE) == (round(100 * ENGINE.sample_share), ENGINE.sample)
    assert stated(NAP) == (ENGINE.nap_ms,)


@pytest.mark.slow
def test_the_main_jobs_results() -> None:
    """What `nox -s suite` runs: every built-in adapter's default routes (planned, not run)."""
    missing = [name for name in BUILT_IN if importlib.util.find_spec(f"conformance_{name}") is None]
    if missing:
        pytest.skip(f"built-in adapters not installed: {', '.join(missing)}")
    from conformance.run.planning import RunConfig, plan

    jobs = plan(RunConfig(adapters=BUILT_IN)).jobs
    assert stated(MAIN_JOB) == (len({job.target.id for job in jobs}), len(jobs))


@pytest.mark.parametrize(
    ("pattern", "sentence", "figures"),
    [
        (CASES, "The corpus holds 1,057 cases, which", (1057,)),
        (
            MAIN_JOB,
            "the main job judges them on the 10 targets of the default run: 21,153 results",
            (10, 21_153),
        ),
    ],
)
def test_a_figure_is_read_from_its_sentence(pattern: str, sentence: str, figures: tuple[int, ...]) -> None:
    assert stated(pattern, f"text before. {sentence} and after") == figures
    with pytest.raises(AssertionError, match="no longer has the sentence"):
        stated(pattern, "a README that dropped the sentence")
