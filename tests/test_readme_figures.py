"""The counts README.md states, against the code that counts them: the corpus's cases and items,
the main job's targets and results, the built-in adapters, and the cases of the tag ``large``
(and the 2 GiB ones among them). Each figure is marked in the page by a key
(``<!-- figure:cases -->1,280<!-- /figure -->``, see tests/figures.py), never matched by its
sentence, so a change to the corpus or the adapters' default routes fails here until both sides
agree again, and rewording the README does not.

(Times are not checked: they are measurements, written with their date and machine in
docs/performance.md.)"""

from __future__ import annotations

import importlib.util
import re

import built_in
import pytest
from figures import CHECKED, MARKED, PAGES, marked, stated
from report_fixtures import corpus

from conformance.corpus.selection import select
from conformance.engine import memory

BUILT_IN = built_in.adapters()


@pytest.mark.slow
def test_the_corpus_counts() -> None:
    cases = corpus().cases
    assert stated("cases") == len(cases)
    assert stated("items") == len(select(cases))


def test_the_large_tag_counts() -> None:
    cases = corpus().cases
    large = [case for case in cases if "large" in case.tags]
    assert stated("large") == len(large)
    huge = [case for case in cases if memory.data_bytes(case.data) >= 2**31]
    assert {case.id for case in huge} <= {case.id for case in large}
    assert stated("large-2gib") == len(huge)


@pytest.mark.slow
def test_the_main_jobs_results() -> None:
    """What `nox -s suite` runs: every built-in adapter's default routes (planned, not run)."""
    missing = [name for name in BUILT_IN if importlib.util.find_spec(f"conformance_{name}") is None]
    if missing:
        pytest.skip(f"built-in adapters not installed: {', '.join(missing)}")
    from conformance.run.planning import RunConfig, plan

    jobs = plan(RunConfig(adapters=BUILT_IN)).jobs
    assert (stated("targets"), stated("results")) == (len({job.target.id for job in jobs}), len(jobs))


def test_the_built_in_adapters_each_have_a_row() -> None:
    """The count of built-in adapters, and the README table's rows keyed by their names, are
    noxfile.py's ADAPTERS and EXTRA_ADAPTERS."""
    every = built_in.every_adapter()
    assert stated("adapters") == len(every)
    readme = PAGES[0].read_text(encoding="utf-8")
    table = readme.partition("\n| adapter | routes | ops |\n")[2].partition("\n\n")[0]
    assert sorted(re.findall(r"^\| `([a-z0-9_-]+)` \|", table, re.MULTILINE)) == sorted(every)


def test_every_marked_figure_is_checked_and_reads_as_prose() -> None:
    """A key no test knows would look checked and not be; a marker opening a line would start an
    HTML block in Markdown and break its paragraph."""
    texts = [page.read_text(encoding="utf-8") for page in PAGES]
    assert {key for key, _ in marked(texts)} == CHECKED
    opening = [
        f"{page.name}: {line}"
        for page, text in zip(PAGES, texts, strict=True)
        for line in text.splitlines()
        if MARKED.match(line.lstrip())
    ]
    assert opening == []


def test_a_figure_is_read_by_its_key() -> None:
    text = "The corpus holds <!-- figure:cases -->1,057<!-- /figure --> cases, in any sentence."
    assert stated("cases", [text]) == 1057
    with pytest.raises(AssertionError, match="no page marks the figure 'items'"):
        stated("items", [text])
    with pytest.raises(AssertionError, match="differently"):
        stated("cases", [text, "<!-- figure:cases -->1,058<!-- /figure -->"])
    with pytest.raises(AssertionError, match="not a count"):
        stated("cases", ["<!-- figure:cases -->about 1k<!-- /figure -->"])
