"""The case-file loader: what a valid file becomes, and how every kind of broken file is reported.

Each error test writes a small broken file and checks that the message names the file, the exact
line to fix and the case, because that is what lets an author fix a file without a debugger.
"""

from __future__ import annotations

import json
import pickle
import re
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from conformance import dtypes
from conformance.corpus import catalogue as ops
from conformance.corpus.case import (
    Case,
    DataSpec,
    Expect,
    Form,
    GraphSpec,
    Location,
    OutputExpect,
    SplitArguments,
)
from conformance.corpus.loader import CaseFileError, CaseFileErrors, Suite, load_file, load_paths
from conformance.corpus.case_schema import case_file_schema
from conformance.corpus.yaml_source import YamlLimitError, read_yaml


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def errors_of(*paths: Path) -> list[CaseFileError]:
    with pytest.raises(CaseFileErrors) as caught:
        load_paths(paths)
    return caught.value.errors


def only_error(path: Path) -> CaseFileError:
    errors = errors_of(path)
    assert len(errors) == 1, "\n".join(map(str, errors))
    return errors[0]


def assert_located(error: CaseFileError, path: Path, line: int, case_id: str | None, *fragments: str) -> None:
    text = str(error)
    assert error.file == path.as_posix()
    assert error.line == line, text
    assert error.case_id == case_id, text
    assert text.startswith(f"{path.as_posix()}:{line}: "), text
    if case_id is not None:
        assert f"case {case_id!r}:" in text
    for fragment in fragments:
        assert fragment in text, text


VALID = """
defaults:
  source: openvino-VariadicSplit-1, Examples
  data: {dtype: float32, fill: random, seed: 3}
  graph: {inputs: runtime}
  expect: {error: false}
cases:
  - id: vsplit-doc-1
    title: split [6,12,10,24] on axis 0 into [1,2,3]
    tags: [doc-example, my-own-tag]
    ops: [openvino.VariadicSplit-1, "onnx.*"]
    data:
      shape: [6, 12, 10, 24]
    axis: 0
    lengths: [1, 2, -1]
    graph: {axis_shape: [1], axis_dtype: int32, lengths_dtype: int32, data_shape: dynamic}
    expect:
      shapes: [[1, 12, 10, 24], [2, 12, 10, 24], [3, 12, 10, 24]]
      by_op:
        torch.chunk: {error: chunk.sections-positive}
        onnx.Split-18: {shapes: [[6, 12, 10, 24]], values: [[1, 2]]}
  - id: parts.case_2
    title: rank 0, given values
    source: its own source
    data: {shape: [], dtype: float16, values: [1.5]}
    parts: -3
    graph: {axis_shape: "[1]", num_outputs: neither, inputs: constant}
  - id: size-1
    title: a piece size
    tags: [ambiguous]
    note: two readings, see https://example.org/issue
    data: {shape: [0, 4], dtype: string, fill: special}
    axis: -1
    size: 0
  - id: indices-1
    title: split points
    data: {shape: [5], dtype: int8}
    indices: []
    expect: {values: [[0, 1], [2, 3, 4]]}
"""


def test_valid_file_becomes_the_expected_cases(tmp_path: Path) -> None:
    path = write(tmp_path, "cases/valid.yaml", VALID)
    cases = load_file(path)
    file = path.as_posix()
    source = "openvino-VariadicSplit-1, Examples"
    assert cases == [
        Case(
            id="vsplit-doc-1",
            title="split [6,12,10,24] on axis 0 into [1,2,3]",
            source=source,
            data=DataSpec((6, 12, 10, 24), "float32", "random", 3),
            request=SplitArguments(0, Form("lengths", (1, 2, -1))),
            location=Location(file, 7),
            tags=("doc-example", "my-own-tag"),
            ops=("openvino.VariadicSplit-1", "onnx.*"),
            graph=GraphSpec("int32", "[1]", "int32", "runtime", "dynamic", "auto"),
            expect=Expect(
                shapes=((1, 12, 10, 24), (2, 12, 10, 24), (3, 12, 10, 24)),
                by_op={
                    "torch.chunk": OutputExpect(error="chunk.sections-positive"),
                    "onnx.Split-18": OutputExpect(shapes=((6, 12, 10, 24),), values=([1, 2],)),
                },
            ),
        ),
        Case(
            id="parts.case_2",
            title="rank 0, given values",
            source="its own source",
            # the case's values replace the default fill (and its seed stays, harmlessly)
            data=DataSpec((), "float16", "values", 3, [1.5]),
            request=SplitArguments(None, Form("parts", -3)),
            location=Location(file, 21),
            graph=GraphSpec(axis_shape="[1]", num_outputs="neither", inputs="constant"),
            expect=Expect(),
        ),
        Case(
            id="size-1",
            title="a piece size",
            source=source,
            data=DataSpec((0, 4), "string", "special", 3),
            request=SplitArguments(-1, Form("size", 0)),
            location=Location(file, 27),
            tags=("ambiguous",),
            graph=GraphSpec(inputs="runtime"),
            expect=Expect(),
            note="two readings, see https://example.org/issue",
        ),
        Case(
            id="indices-1",
            title="split points",
            source=source,
            data=DataSpec((5,), "int8", "random", 3),
            request=SplitArguments(None, Form("indices", ())),
            location=Location(file, 34),
            graph=GraphSpec(inputs="runtime"),
            expect=Expect(values=([0, 1], [2, 3, 4])),
        ),
    ]
    assert (
        cases[0].expect is not None
        and cases[0].expect.for_op("torch.chunk").error == "chunk.sections-positive"
    )
    assert ops.match(cases[0].ops or ()) == [
        "openvino.VariadicSplit-1",
        *[op for op in ops.OPS if op.startswith("onnx.")],
    ]


def test_defaults_form_is_replaced_by_the_cases_own_form(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "f.yaml",
        """
        defaults: {source: s, data: {shape: [4], dtype: int32}, parts: 2}
        cases:
          - {id: inherits, title: t}
          - {id: overrides, title: t, lengths: [1, 3], data: {dtype: uint8}}
        """,
    )
    inherits, overrides = load_file(path)
    assert inherits.form == Form("parts", 2)
    assert overrides.form == Form("lengths", (1, 3))
    assert overrides.data == DataSpec((4,), "uint8")


def test_suite_reads_directories_recursively_in_sorted_order(tmp_path: Path) -> None:
    write(
        tmp_path,
        "root/b.yaml",
        "cases: [{id: b, title: t, source: s, data: {shape: [2], dtype: bool}, parts: 2}]",
    )
    write(
        tmp_path,
        "root/a/z.yml",
        "cases: [{id: z, title: t, source: s, data: {shape: [2], dtype: bool}, parts: 2}]",
    )
    write(tmp_path, "root/a/notes.txt", "not a case file")
    suite = load_paths([tmp_path / "root"])
    assert [case.id for case in suite.cases] == ["z", "b"]
    assert suite.files == ((tmp_path / "root/a/z.yml").as_posix(), (tmp_path / "root/b.yaml").as_posix())
    assert suite.by_id("b").location == Location((tmp_path / "root/b.yaml").as_posix(), 1)
    with pytest.raises(KeyError, match="did you mean 'b'"):
        suite.by_id("bb")


def test_digest_names_the_corpus_not_where_it_lies(tmp_path: Path) -> None:
    text = "cases: [{id: a, title: t, source: s, data: {shape: [2], dtype: bool}, parts: 2}]"
    write(tmp_path, "one/cases/x.yaml", text)
    write(tmp_path, "two/cases/x.yaml", text)
    first = load_paths([tmp_path / "one/cases"])
    assert first.digest.startswith("sha256:") and len(first.digest) == len("sha256:") + 64
    assert load_paths([tmp_path / "two/cases"]).digest == first.digest
    write(tmp_path, "two/cases/x.yaml", text + "\n# a comment changes the corpus\n")
    assert load_paths([tmp_path / "two/cases"]).digest != first.digest
    write(tmp_path, "two/cases/x.yaml", text)
    (tmp_path / "two/cases/x.yaml").rename(tmp_path / "two/cases/y.yaml")
    assert load_paths([tmp_path / "two/cases"]).digest != first.digest


def test_a_file_named_twice_is_loaded_once(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "d/x.yaml",
        "cases: [{id: a, title: t, source: s, data: {shape: [1], dtype: bool}, parts: 1}]",
    )
    suite = load_paths([path, tmp_path / "d", str(path)])
    assert [case.id for case in suite.cases] == ["a"]
    assert isinstance(suite, Suite)


# --- errors, one kind at a time -------------------------------------------------------------------

CASE_HEAD = """
cases:
  - id: c1
    title: t
    source: s
"""


def case_file(tmp_path: Path, body: str, head: str = CASE_HEAD) -> Path:
    return write(
        tmp_path,
        "cases/broken.yaml",
        textwrap.dedent(head).lstrip("\n") + textwrap.indent(textwrap.dedent(body).lstrip("\n"), "    "),
    )


def test_unknown_top_level_key(tmp_path: Path) -> None:
    path = write(tmp_path, "f.yaml", "defaults: {source: s}\ncase:\n  - id: a\n")
    assert_located(
        only_error(path), path, 2, None, "unknown key 'case' in the top level (did you mean 'cases'?)"
    )


def test_unknown_key_in_a_case(tmp_path: Path) -> None:
    path = case_file(tmp_path, "data: {shape: [2], dtype: int8}\nlenghts: [1, 1]\n")
    assert_located(only_error(path), path, 6, "c1", "unknown key 'lenghts' (did you mean 'lengths'?)")


def test_unknown_key_in_data(tmp_path: Path) -> None:
    path = case_file(tmp_path, "data:\n  shape: [2]\n  dtype: int8\n  seeed: 3\nparts: 2\n")
    assert_located(only_error(path), path, 8, "c1", "unknown key 'seeed' in data (did you mean 'seed'?)")


def test_unknown_key_in_graph(tmp_path: Path) -> None:
    path = case_file(tmp_path, "data: {shape: [2], dtype: int8}\nparts: 2\ngraph:\n  axis_type: int32\n")
    assert_located(
        only_error(path), path, 8, "c1", "unknown key 'axis_type' in graph (did you mean 'axis_dtype'?)"
    )


def test_unknown_key_in_expect(tmp_path: Path) -> None:
    path = case_file(tmp_path, "data: {shape: [2], dtype: int8}\nparts: 2\nexpect:\n  shape: [[1], [1]]\n")
    assert_located(only_error(path), path, 8, "c1", "unknown key 'shape' in expect (did you mean 'shapes'?)")


def test_unknown_key_in_a_by_op_entry(tmp_path: Path) -> None:
    path = case_file(
        tmp_path,
        "data: {shape: [2], dtype: int8}\nparts: 2\nexpect:\n  by_op:\n    torch.chunk:\n      eror: true\n",
    )
    assert_located(
        only_error(path), path, 10, "c1", "unknown key 'eror' in expect.by_op.torch.chunk", "'error'"
    )


def test_by_op_key_must_be_an_exact_op_id(tmp_path: Path) -> None:
    path = case_file(
        tmp_path,
        """
        data: {shape: [2], dtype: int8}
        parts: 2
        expect:
          by_op:
            torch.chunky: {error: true}
            onnx.*: {error: true}
        """,
    )
    first, second = errors_of(path)
    assert_located(
        first, path, 9, "c1", "'torch.chunky' in expect.by_op is not an op id (did you mean 'torch.chunk'?)"
    )
    assert_located(second, path, 10, "c1", "'onnx.*' in expect.by_op is not an op id", "no globs")


def test_duplicate_id_across_two_files_names_both_places(tmp_path: Path) -> None:
    text = textwrap.dedent(
        """\
        cases:
          - {id: other, title: t, source: s, data: {shape: [1], dtype: bool}, parts: 1}
          - id: same
            title: t
            source: s
            data: {shape: [1], dtype: bool}
            parts: 1
        """
    )
    first = write(tmp_path, "a.yaml", text)
    second = write(tmp_path, "b.yaml", "# b\n" + text.replace("other", "else"))
    error = errors_of(first, second)[0]
    assert_located(error, second, 4, "same", f"duplicate id 'same' (first defined at {first.as_posix()}:3)")


def test_duplicate_id_in_one_file(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "a.yaml",
        "cases:\n" + "  - {id: x, title: t, source: s, data: {shape: [1], dtype: bool}, parts: 1}\n" * 2,
    )
    assert_located(only_error(path), path, 3, "x", f"duplicate id 'x' (first defined at {path.as_posix()}:2)")


def test_duplicate_yaml_key(tmp_path: Path) -> None:
    path = case_file(tmp_path, "data: {shape: [2], dtype: int8}\nparts: 2\naxis: 0\naxis: 1\n")
    assert_located(only_error(path), path, 8, "c1", "key 'axis' given twice (first at line 7)")


def test_duplicate_yaml_key_nested_in_a_flow_mapping(tmp_path: Path) -> None:
    path = case_file(tmp_path, "data: {shape: [2], dtype: int8,\n       dtype: int16}\nparts: 2\n")
    assert_located(only_error(path), path, 6, "c1", "key 'dtype' given twice (first at line 5)")


def test_yaml_syntax_error(tmp_path: Path) -> None:
    path = case_file(tmp_path, "data: {shape: [2], dtype: int8}\nparts: 2\naxis: [0\n")
    error = only_error(path)
    assert error.file == path.as_posix() and error.line == 8
    assert "YAML error" in str(error) and "started at line 7" in str(error)


def test_yaml_tab_indentation_is_a_syntax_error_with_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, "t.yaml", "cases:\n  - id: a\n\ttitle: t\n")
    assert only_error(path).line == 3


def test_unsafe_python_tag_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "evil.yaml", "cases: !!python/object/apply:os.system ['echo pwned']\n")
    error = only_error(path)
    assert error.line == 1 and "could not determine a constructor" in str(error)


def test_two_forms(tmp_path: Path) -> None:
    path = case_file(tmp_path, "data: {shape: [2], dtype: int8}\nparts: 2\nsize: 1\n")
    assert_located(
        only_error(path),
        path,
        7,
        "c1",
        "'parts', 'size' both given: a case takes exactly one of lengths | parts | size | indices",
    )


def test_no_form(tmp_path: Path) -> None:
    path = case_file(tmp_path, "data: {shape: [2], dtype: int8}\n")
    assert_located(only_error(path), path, 2, "c1", "no form given: a case takes exactly one of")


def test_missing_id(tmp_path: Path) -> None:
    path = case_file(
        tmp_path, "data: {shape: [2], dtype: int8}\nparts: 2\n", head="cases:\n  - title: t\n    source: s\n"
    )
    assert_located(only_error(path), path, 2, None, "missing required key 'id'")


def test_missing_source_without_defaults(tmp_path: Path) -> None:
    path = case_file(
        tmp_path, "data: {shape: [2], dtype: int8}\nparts: 2\n", head="cases:\n  - id: c1\n    title: t\n"
    )
    assert_located(
        only_error(path), path, 2, "c1", "missing required key 'source' (give it here or in defaults)"
    )


def test_bad_id_pattern(tmp_path: Path) -> None:
    path = case_file(
        tmp_path,
        "data: {shape: [2], dtype: int8}\nparts: 2\n",
        head="cases:\n  - id: Split_Doc\n    title: t\n    source: s\n",
    )
    assert_located(only_error(path), path, 2, "Split_Doc", "'Split_Doc' is not a valid name")


def test_bad_dtype_name(tmp_path: Path) -> None:
    path = case_file(tmp_path, "data:\n  shape: [2]\n  dtype: flaot32\nparts: 2\n")
    assert_located(
        only_error(path), path, 7, "c1", "data.dtype: 'flaot32' is not one of", "(did you mean 'float32'?)"
    )


def test_bad_graph_dtype_and_axis_shape(tmp_path: Path) -> None:
    path = case_file(
        tmp_path, "data: {shape: [2], dtype: int8}\nparts: 2\ngraph:\n  axis_dtype: i64\n  axis_shape: [2]\n"
    )
    first, second = errors_of(path)
    assert_located(first, path, 8, "c1", "graph.axis_dtype: 'i64' is not one of")
    assert_located(second, path, 9, "c1", "graph.axis_shape: expected scalar or [1], got a list")


def test_values_count_mismatch(tmp_path: Path) -> None:
    path = case_file(tmp_path, "data:\n  shape: [2, 2]\n  dtype: int8\n  values: [[1, 2], [3]]\nparts: 2\n")
    assert_located(only_error(path), path, 8, "c1", "3 value(s) given, the shape holds 4")


def test_value_that_does_not_fit_the_dtype_points_at_its_line(tmp_path: Path) -> None:
    path = case_file(
        tmp_path, "data:\n  shape: [3]\n  dtype: uint8\n  values:\n    - 1\n    - -1\n    - 2\nparts: 3\n"
    )
    assert_located(only_error(path), path, 10, "c1", "-1 does not fit uint8")


def test_value_of_the_wrong_kind(tmp_path: Path) -> None:
    path = case_file(tmp_path, "data: {shape: [2], dtype: string, values: [a, yes]}\nparts: 2\n")
    assert_located(only_error(path), path, 5, "c1", "True is not a string (quote it)")


def test_fill_values_without_values(tmp_path: Path) -> None:
    path = case_file(tmp_path, "data: {shape: [2], dtype: int8, fill: values}\nparts: 2\n")
    assert_located(only_error(path), path, 5, "c1", "fill: values needs a 'values' list")


def test_values_with_another_fill(tmp_path: Path) -> None:
    path = case_file(tmp_path, "data: {shape: [1], dtype: int8, fill: random, values: [1]}\nparts: 1\n")
    assert_located(only_error(path), path, 5, "c1", "'values' given with fill: random")


def test_ambiguous_without_note(tmp_path: Path) -> None:
    path = case_file(tmp_path, "tags: [edge, ambiguous]\ndata: {shape: [2], dtype: int8}\nparts: 2\n")
    assert_located(only_error(path), path, 5, "c1", "tag 'ambiguous' needs a 'note'")


def test_ops_pattern_matching_nothing(tmp_path: Path) -> None:
    path = case_file(
        tmp_path, "ops:\n  - torch.*\n  - onnx.Split-12\ndata: {shape: [2], dtype: int8}\nparts: 2\n"
    )
    assert_located(
        only_error(path), path, 7, "c1", "ops entry 'onnx.Split-12' matches no op (did you mean 'onnx.Split-"
    )


def test_expected_error_with_shapes(tmp_path: Path) -> None:
    path = case_file(
        tmp_path, "data: {shape: [2], dtype: int8}\nparts: 2\nexpect:\n  shapes: [[1], [1]]\n  error: true\n"
    )
    assert_located(only_error(path), path, 9, "c1", "an error is expected, so there are no shapes or values")


def test_non_mapping_file(tmp_path: Path) -> None:
    path = write(tmp_path, "l.yaml", "- id: a\n- id: b\n")
    assert_located(only_error(path), path, 1, None, "expected a mapping with 'cases:', got a list")


def test_empty_file(tmp_path: Path) -> None:
    path = write(tmp_path, "e.yaml", "# nothing but a comment\n")
    assert_located(only_error(path), path, 1, None, "the file is empty")


def test_case_that_is_not_a_mapping(tmp_path: Path) -> None:
    path = write(tmp_path, "n.yaml", "cases:\n  - just a string\n")
    assert_located(
        only_error(path), path, 2, None, "a case must be a mapping, got the string 'just a string'"
    )


@pytest.mark.parametrize(
    ("body", "line", "fragment"),
    [
        (
            "data: {shape: [2], dtype: int8}\naxis: true\nparts: 2\n",
            6,
            "axis: expected an integer, got the boolean true",
        ),
        (
            "data: {shape: [2], dtype: int8}\nparts: 2.0\n",
            6,
            "parts: expected an integer, got the number 2.0",
        ),
        (
            "data: {shape: [2], dtype: int8}\nlengths: [1, false]\n",
            6,
            "lengths[1]: expected an integer, got the boolean false",
        ),
        (
            "data: {shape: [yes], dtype: int8}\nparts: 2\n",
            5,
            "data.shape[0]: expected an integer, got the boolean true",
        ),
        (
            "data: {shape: [2], dtype: int8}\nindices: [9223372036854775808]\n",
            6,
            "indices[0]: 9223372036854775808 does not fit in int64",
        ),
        ("data: {shape: [-2], dtype: int8}\nparts: 2\n", 5, "data.shape[0]: -2 is negative"),
    ],
)
def test_ints_must_be_real_int64_ints(tmp_path: Path, body: str, line: int, fragment: str) -> None:
    path = case_file(tmp_path, body)
    assert_located(only_error(path), path, line, "c1", fragment)


def test_defaults_may_not_carry_an_id(tmp_path: Path) -> None:
    path = write(tmp_path, "d.yaml", "defaults:\n  source: s\n  id: x\ncases: []\n")
    assert_located(only_error(path), path, 3, None, "'id' cannot be set in defaults")


def test_missing_file_and_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    missing, empty = errors_of(tmp_path / "nope.yaml", tmp_path / "empty")
    assert str(missing) == f"{(tmp_path / 'nope.yaml').as_posix()}: no such file or directory"
    assert empty.file == (tmp_path / "empty").as_posix() and empty.line is None


def test_every_error_of_a_file_is_reported(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "many.yaml",
        """
        cases:
          - id: a
            title: t
            source: s
            data: {shape: [2], dtype: float31}
            parts: 2
          - id: b
            title: t
            source: s
            data: {shape: [2], dtype: int8}
            parts: 2
            size: 1
          - id: c
            title: t
            source: s
            ops: [nothing.*]
            data: {shape: [2], dtype: int8}
            parts: 2
        """,
    )
    errors = errors_of(path)
    assert [(error.line, error.case_id) for error in errors] == [(5, "a"), (12, "b"), (16, "c")]


def test_errors_in_several_files_are_all_reported(tmp_path: Path) -> None:
    first = write(
        tmp_path, "a.yaml", "cases: [{id: a, title: t, source: s, data: {shape: [2], dtype: int8}}]\n"
    )
    second = write(
        tmp_path,
        "b.yaml",
        "cases: [{id: b, title: t, source: s, data: {shape: [2], dtype: int8}, parts: x}]\n",
    )
    errors = errors_of(first, second)
    assert [error.file for error in errors] == [first.as_posix(), second.as_posix()]
    assert "2 errors in case files" in str(CaseFileErrors(errors))


def test_errors_survive_pickling(tmp_path: Path) -> None:
    error = CaseFileError("cases/x.yaml", 12, "unknown key 'lenghts'", "vsplit-doc-1")
    assert str(error) == "cases/x.yaml:12: case 'vsplit-doc-1': unknown key 'lenghts'"
    copy = pickle.loads(pickle.dumps(CaseFileErrors([error])))
    assert str(copy.errors[0]) == str(error)


# --- the schema that ships ------------------------------------------------------------------------


def test_schema_is_valid_and_knows_every_dtype_and_op() -> None:
    schema = case_file_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["$defs"]["dtype"]["enum"] == list(dtypes.ALL)
    assert list(schema["$defs"]["expect"]["properties"]["by_op"]["properties"]) == list(ops.OPS)


def _properties(node: Any) -> Iterator[tuple[str, Any]]:
    """Property definitions, leaving out the conditions (if/then/else) that only test properties."""
    if isinstance(node, dict):
        yield from node.get("properties", {}).items()
        for key, value in node.items():
            if key not in ("if", "then", "else"):
                yield from _properties(value)
    elif isinstance(node, list):
        for item in node:
            yield from _properties(item)


def test_every_schema_property_has_a_description() -> None:
    undocumented = [name for name, sub in _properties(case_file_schema()) if "description" not in sub]
    assert undocumented == []


def test_schema_file_is_plain_json_in_the_package() -> None:
    path = Path(__file__).parent.parent / "conformance" / "schema" / "case.schema.json"
    assert json.loads(path.read_text(encoding="utf-8")) == case_file_schema()


# --- yaml_source ----------------------------------------------------------------------------------


def test_read_yaml_locates_values_keys_and_merged_keys() -> None:
    document = read_yaml("base: &b\n  x: 1\ncases:\n  - <<: *b\n    y:\n      - 2\n")
    assert document.data == {"base": {"x": 1}, "cases": [{"x": 1, "y": [2]}]}
    assert document.lines[("cases", 0)] == 4
    assert document.lines[("cases", 0, "x")] == 2  # where the anchor wrote it
    assert document.key_lines[("cases", 0, "y")] == 5
    assert document.lines[("cases", 0, "y")] == 6
    assert document.line(("cases", 0, "y", 7, "z")) == 6  # nearest ancestor
    assert document.duplicates == ()


def test_read_yaml_reports_every_duplicate_and_keeps_the_last_value() -> None:
    document = read_yaml("a: 1\nb: {c: 1, c: 2}\na: 3\n")
    assert document.data == {"a": 3, "b": {"c": 2}}
    assert [(d.path, d.line, d.first_line) for d in document.duplicates] == [
        (("b", "c"), 2, 2),
        (("a",), 3, 1),
    ]


@pytest.mark.parametrize(
    ("text", "said", "line"),
    [
        ("a:\n\t- 1\n", "found character '\\t' that cannot start any token", 2),
        ("a: *nowhere\n", "found undefined alias 'nowhere'", 1),
        ("a: [1, 2\nb: 3\n", "expected ',' or ']', but got ':'", 2),
    ],
)
def test_a_broken_document_is_described_in_full_whichever_reader_parsed_it(
    text: str, said: str, line: int
) -> None:
    """The C reader (used for speed) words its refusals tersely ("found undefined alias"): the
    document is read again in Python, whose words name what is wrong."""
    with pytest.raises(yaml.MarkedYAMLError) as refused:
        read_yaml(text)
    assert refused.value.problem == said
    assert refused.value.problem_mark is not None and refused.value.problem_mark.line + 1 == line


def test_read_yaml_refuses_a_recursive_alias_with_its_line() -> None:
    # a value that contains itself would send the schema check and the audit round forever
    with pytest.raises(YamlLimitError, match="contains an alias to itself") as refused:
        read_yaml("top: 1\na: &x\n  b: *x\n")
    assert refused.value.problem_mark is not None and refused.value.problem_mark.line + 1 == 2


@pytest.mark.slow
def test_alias_bombs_and_deep_nesting_are_refused_at_once(tmp_path: Path) -> None:
    laughs = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]\n" for n in range(1, 9)
    )
    merges = "m0: &m0 {k0: 1}\n" + "".join(
        f"m{n}: &m{n} {{<<: [*m{n - 1}, *m{n - 1}], k{n}: {n}}}\n" for n in range(1, 25)
    )
    deep = "cases:\n  - id: deep\n    note: " + "[" * 3000 + "]" * 3000 + "\n"
    for name, text, said, line in (
        ("laughs", laughs, "more than 1,000,000 values", 6),
        ("merges", merges, "more than 1,000,000 values", 18),
        ("deep", deep, "nested more than 100 levels deep", 3),
        # PyYAML's C composer recurses without a limit: read by it, this line would crash the process
        ("block", "top:\n" + "- " * 1_000_000 + "x\n", "nested more than 100 levels deep", 2),
        ("flow", "[" * 1_000_000, "nested more than 100 levels deep", 1),
    ):
        path = tmp_path / f"{name}.yaml"
        path.write_text(text, encoding="utf-8")
        with pytest.raises(CaseFileErrors) as refused:
            load_paths([path])
        (error,) = refused.value.errors
        assert said in error.message and error.line == line, (name, error)


# --- values are kept exactly as written -----------------------------------------------------------

int64s = st.integers(min_value=-(2**63), max_value=2**63 - 1)


@settings(max_examples=40, deadline=None)
@given(lengths=st.lists(int64s, max_size=6), axis=int64s)
def test_lengths_and_axis_are_kept_exactly(
    tmp_path_factory: pytest.TempPathFactory, lengths: list[int], axis: int
) -> None:
    case = {
        "id": "p",
        "title": "t",
        "source": "s",
        "data": {"shape": [3], "dtype": "int64"},
        "axis": axis,
        "lengths": lengths,
    }
    path = tmp_path_factory.mktemp("prop") / "p.yaml"
    path.write_text(yaml.safe_dump({"cases": [case]}), encoding="utf-8")
    (loaded,) = load_file(path)
    assert loaded.form == Form("lengths", tuple(lengths))
    assert loaded.axis == axis


@pytest.mark.slow  # seconds: subprocesses or imported backends
def test_the_inlined_schema_says_what_the_shipped_one_says() -> None:
    """The loader checks case files against the schema with its references inlined (0.2 s of the
    corpus's 0.46 s of checking went on resolving them): the same verdicts, word for word, on the
    whole corpus and on broken cases of every kind of mistake."""
    from jsonschema import Draft202012Validator

    from conformance.corpus import case_schema

    shipped = case_schema.case_file_schema()
    inlined = case_schema.inlined(shipped)
    references = re.compile(r'"\$ref": "([^"]+)"')
    assert len(references.findall(json.dumps(shipped))) > 50
    assert set(references.findall(json.dumps(inlined))) == {"#/$defs/valueTree"}  # it nests: kept
    broken = [
        {"cases": [{"id": "x", "title": "t", "lenghts": [1], "data": {"shape": [2, "a"], "dtype": "f32"}}]},
        {"cases": [{"id": 3, "parts": -1, "expect": {"error": 7}, "graph": {"nope": 1}}], "defaults": []},
        {
            "cases": [
                {
                    "id": "v",
                    "title": "t",
                    "source": "s",
                    "data": {"shape": [2], "dtype": "float32", "values": [[1, "a"], {"b": 2}]},
                    "axis": 0,
                    "parts": 2,
                }
            ]
        },
        {"defaults": {"ops": "x"}, "cases": []},
    ]
    cases = Path(__file__).resolve().parent.parent / "cases"
    corpus = [read_yaml(path.read_text(encoding="utf-8")).data for path in sorted(cases.rglob("*.yaml"))]
    for data in broken + corpus:
        said = [
            sorted(
                (tuple(map(str, e.absolute_path)), e.message)
                for e in Draft202012Validator(schema).iter_errors(data)
            )
            for schema in (shipped, inlined)
        ]
        assert said[0] == said[1]
    assert all(list(Draft202012Validator(shipped).iter_errors(data)) for data in broken)
