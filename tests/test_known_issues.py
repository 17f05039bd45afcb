"""Known-issues files: checked against their schema with file:line errors, entries that select by
meaning, and staleness only for entries whose results ran and passed."""

from __future__ import annotations

from dataclasses import replace

import pytest
from report_fixtures import mixed_document

from conformance.errors import KnownIssuesError
from conformance.results.result import Result
from conformance.verdict import known_issues


def parse(text: str) -> list[known_issues.KnownIssue]:
    return known_issues.parse(text, "ki.yaml", "liar")


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("known_issues:\n  - {id: a, reason: r, link: l, ops: x, statuses: [bogus]}\n", "ki.yaml:2: "),
        ("known_issues:\n  - {id: a, reason: r, link: l, opz: x}\n", "unknown key 'opz'"),
        ("known_issues:\n  - {id: a, reason: r, link: l}\n", "ki.yaml:2: "),
        ("known_issues:\n  - {id: a, reason: r, ops: x}\n", "missing required key 'link'"),
        ("known_issues: [\n", "ki.yaml:2: not valid YAML"),
    ],
)
def test_a_broken_file_is_refused_with_the_line(text: str, complaint: str) -> None:
    with pytest.raises(KnownIssuesError, match=complaint):
        parse(text)


def test_a_single_status_is_one_status_not_its_letters() -> None:
    (issue,) = parse("known_issues:\n  - {id: a, reason: r, link: l, ops: x, statuses: fail}\n")
    assert issue.statuses == ("fail",)


def results() -> list[Result]:
    return [Result.from_json(body) for body in mixed_document()["results"]]


def test_selectors_are_anded_and_select_by_meaning() -> None:
    every = results()
    (by_op,) = parse("known_issues:\n  - {id: a, reason: r, link: l, ops: 'numpy.*', targets: '*'}\n")
    (narrower,) = parse(
        "known_issues:\n  - {id: a, reason: r, link: l, ops: 'numpy.*', targets: '*', returned: true}\n"
    )
    selected = [r for r in every if by_op.matches(r)]
    assert selected and all(r.op.startswith("numpy.") for r in selected)
    assert {r.key for r in every if narrower.matches(r)} == {r.key for r in selected if "outputs" in r.actual}
    (by_rule,) = parse(
        "known_issues:\n  - {id: a, reason: r, link: l, rules: sections-divide, targets: '*'}\n"
    )
    assert all(r.expected["rejected"]["rule"] == "sections-divide" for r in every if by_rule.matches(r))


def test_stale_only_when_its_results_ran_and_none_failed_as_listed() -> None:
    every = results()
    (unrun,) = parse("known_issues:\n  - {id: a, reason: r, link: l, ops: no.such.op, targets: '*'}\n")
    (passing,) = parse(
        "known_issues:\n  - {id: b, reason: r, link: l, ops: '*', targets: '*', mismatch: values}\n"
    )
    applied = [known_issues.apply(result, [passing]) for result in every]
    assert known_issues.stale([unrun], applied) == []  # selected nothing: not stale
    if any(result.status == "xfail" for result in applied):
        assert known_issues.stale([passing], applied) == []
    only_passes = [r for r in every if r.status == "pass"]
    (all_of_them,) = parse("known_issues:\n  - {id: c, reason: r, link: l, ops: '*', targets: '*'}\n")
    assert known_issues.stale([all_of_them], [known_issues.apply(r, [all_of_them]) for r in only_passes]) == [
        all_of_them
    ]


def test_an_entry_that_selected_only_unsupported_items_is_not_stale() -> None:
    unsupported = [r.with_status("unsupported", "the target cannot run it") for r in results()]
    (any_failure,) = parse("known_issues:\n  - {id: a, reason: r, link: l, ops: '*', targets: '*'}\n")
    assert known_issues.stale([any_failure], unsupported) == []
    (about_them,) = parse(
        "known_issues:\n  - {id: b, reason: r, link: l, ops: '*', targets: '*', statuses: [unsupported]}\n"
    )
    applied = [known_issues.apply(result, [about_them]) for result in unsupported]
    assert known_issues.stale([about_them], applied) == []  # they became xfail: the entry explains them
    assert known_issues.stale([about_them], unsupported) == [about_them]


def test_where_value_and_dim_beyond_select_the_request_they_name() -> None:
    every = results()
    (zero_count,) = parse("known_issues:\n  - {id: a, reason: r, link: l, where: {value: 0}, targets: '*'}\n")
    (no_points,) = parse("known_issues:\n  - {id: a, reason: r, link: l, where: {value: []}, targets: '*'}\n")
    (wide,) = parse(
        "known_issues:\n  - {id: a, reason: r, link: l, where: {dim_beyond: int32}, targets: '*'}\n"
    )
    base = every[0]
    counted = replace(base, params={**base.params, "form": {"kind": "parts", "value": 0}})
    listed = replace(base, params={**base.params, "form": {"kind": "indices", "value": []}})
    huge = replace(base, params={**base.params, "data": {**base.params["data"], "shape": [0, 2**31 + 8]}})
    assert zero_count.matches(counted) and not zero_count.matches(listed)
    assert no_points.matches(listed) and not no_points.matches(counted)
    assert wide.matches(huge) and not wide.matches(counted)
    assert hash(no_points)  # a list in the file is held as a tuple: entries stay hashable
