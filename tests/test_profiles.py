"""Certification profiles: the shipped ones, their loader's errors, and the case loader skipping them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conformance.certify import profiles
from conformance.certify.profiles import ProfileError
from conformance.corpus.loader import Suite, load_paths

ROOT = Path(__file__).resolve().parents[1]
PROFILES = ROOT / "cases" / "profiles"
TESTS = Path(__file__).resolve().parent

CASES = """\
defaults: {source: profile tests, data: {dtype: int32}}
cases:
  - {id: halves, title: t, tags: [count], data: {shape: [6]}, axis: 0, parts: 2}
  - {id: points, title: t, tags: [indices], data: {shape: [6]}, axis: 0, indices: [2, 4]}
  - {id: bad-count, title: t, tags: [invalid], data: {shape: [6]}, axis: 0, parts: 4}
  - {id: wide, title: t, tags: [dtype], data: {shape: [4], dtype: float64}, axis: 0, parts: 2}
"""

PROFILE = """\
id: {name}
title: NumPy split, for tests
description: every numpy.split case
ops: [numpy.split]
"""


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_paths([ROOT / "cases"])


def _write(directory: Path, name: str, text: str) -> Path:
    path = directory / f"{name}.yaml"
    path.write_text(text)
    return path


def _problems(path: Path) -> str:
    with pytest.raises(ProfileError) as raised:
        profiles.load(path)
    return str(raised.value)


def test_the_case_loader_skips_a_profiles_directory(tmp_path: Path) -> None:
    (tmp_path / "few.yaml").write_text(CASES)
    before = load_paths([tmp_path])
    (tmp_path / "profiles").mkdir()
    _write(tmp_path / "profiles", "numpy", PROFILE.format(name="numpy"))  # no `cases:`: not a case file
    after = load_paths([tmp_path])
    assert [case.id for case in after.cases] == ["halves", "points", "bad-count", "wide"]
    assert after.files == before.files and after.digest == before.digest
    (tmp_path / "more").mkdir()  # only directories named profiles are skipped
    (tmp_path / "more" / "other.yaml").write_text("cases: []\n")
    assert load_paths([tmp_path]).files[-1].endswith("more/other.yaml")


@pytest.mark.slow
def test_pytest_does_not_collect_profiles(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makefile(".yaml", few=CASES)
    (pytester.path / "profiles").mkdir()
    _write(pytester.path / "profiles", "numpy", PROFILE.format(name="numpy"))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]))
    result = pytester.runpytest_subprocess(".", "--adapter", "fake_adapters:Slicer", "--collect-only", "-q")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["few.yaml::points::numpy.array_split*", "8 tests collected*"])


@pytest.mark.slow
@pytest.mark.parametrize("name", profiles.available(PROFILES))
def test_every_shipped_profile_loads_and_selects(name: str, suite: Suite) -> None:
    profile = profiles.find(name, PROFILES)
    scope = profile.scope(suite)
    assert profile.id == name and profile.digest.startswith("sha256:")
    assert scope.count("required") > 100
    assert {item.rpartition("::")[2] for item in scope.roles} == set(profile.ops)
    invalid = {case.id for case in suite.cases if "invalid" in case.tags}
    assert any(item.partition("::")[0] in invalid for item, role in scope.roles.items() if role == "required")


def test_the_shipped_profiles(suite: object) -> None:
    assert profiles.available(PROFILES) == [
        "cupy-split",
        "litert-split",
        "mlx-split",
        "numpy-slice",
        "numpy-split",
        "onnx-slice13",
        "onnx-split13",
        "onnx-split18",
        "openvino-opset1",
        "openvino-slice",
        "paddle-split",
        "pytorch-slice",
        "pytorch-split",
        "tensorflow-slice",
        "tensorflow-split",
        "tfjs-split",
    ]
    split18 = profiles.find("onnx-split18", PROFILES).scope(suite)  # type: ignore[arg-type]
    ambiguous = [item for item, role in split18.roles.items() if role == "ambiguous"]
    assert ambiguous and all(item.endswith("::onnx.Split-18") for item in ambiguous)
    opset1 = profiles.find("openvino-opset1", PROFILES).scope(suite)  # type: ignore[arg-type]
    optional = [item for item, role in opset1.roles.items() if role == "optional"]
    assert "dtype-string-parts::openvino.Split-1" in optional
    assert "element type" in opset1.reasons["dtype-string-parts::openvino.Split-1"]
    assert opset1.roles["doc-split1-num-splits-3::openvino.Split-1"] == "required"
    slice13 = profiles.find("onnx-slice13", PROFILES).scope(suite)  # type: ignore[arg-type]
    repeated = [item for item, role in slice13.roles.items() if role == "ambiguous"]
    assert repeated and all(item.startswith("slice-") and item.endswith("::onnx.Slice-13") for item in repeated)
    strided = profiles.find("openvino-slice", PROFILES).scope(suite)  # type: ignore[arg-type]
    assert strided.roles["slice-edge-dtype-string::openvino.Slice-8"] == "optional"
    assert strided.roles["slice-strided-dtype-string::openvino.StridedSlice-1"] == "optional"
    assert strided.roles["slice-edge-step-zero::openvino.Slice-8"] == "required"


def test_selection_and_optional_rules(tmp_path: Path) -> None:
    (tmp_path / "few.yaml").write_text(CASES)
    path = _write(
        tmp_path,
        "picky",
        PROFILE.format(name="picky")
        + "select: {exclude_tags: [indices]}\noptional:\n  - {reason: wide types, dtypes: [float64]}\n",
    )
    scope = profiles.load(path).scope(load_paths([tmp_path / "few.yaml"]))
    assert dict(scope.roles) == {
        "halves::numpy.split": "required",
        "bad-count::numpy.split": "required",  # the spec rejects it: a certified backend must too
        "wide::numpy.split": "optional",
    }
    assert scope.reasons == {"wide::numpy.split": "wide types"}


def test_a_tag_no_case_carries_is_an_error_with_its_line(tmp_path: Path) -> None:
    (tmp_path / "few.yaml").write_text(CASES)
    path = _write(tmp_path, "typo", PROFILE.format(name="typo") + "select:\n  exclude_tags: [indice]\n")
    with pytest.raises(ProfileError) as raised:
        profiles.load(path).scope(load_paths([tmp_path / "few.yaml"]))
    assert str(raised.value) == (
        f"{path.as_posix()}:6: select.exclude_tags: no case of the suite has the tag 'indice' "
        "(did you mean 'indices'?)"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (PROFILE + "tittle: x\n", ":5: unknown key 'tittle' in the top level (did you mean 'title'?)"),
        (PROFILE.replace("[numpy.split]", "[numpy.splitt]"), ":4: ops: 'numpy.splitt' is not an op id"),
        (PROFILE.replace("id: {name}", "id: other"), ":1: id 'other' must equal the file name 'bad'"),
        (PROFILE.replace("ops: [numpy.split]\n", ""), ":1: the top level: missing required key 'ops'"),
        (PROFILE + "title: again\n", ":5: key 'title' given twice (first at line 2)"),
        (PROFILE + "optional:\n  - {reason: why}\n", ":6: optional.0: give at least one of ops, tags"),
        (
            PROFILE + "optional:\n  - {reason: why, ops: [numpy.array_split]}\n",
            ":6: optional[0].ops: 'numpy.array_split' is not one of the profile's ops",
        ),
        (PROFILE + "ops: [\n", ":6: YAML error"),
        ("- a list\n", ":1: expected a mapping with id, title, description and ops"),
    ],
)
def test_profile_errors_name_the_file_and_line(tmp_path: Path, text: str, expected: str) -> None:
    path = _write(tmp_path, "bad", text.replace("{name}", "bad"))
    assert f"{path.as_posix()}{expected}" in _problems(path)


def test_an_unknown_profile_lists_the_available_ones() -> None:
    with pytest.raises(ProfileError) as raised:
        profiles.find("onnx-split-13", PROFILES)
    message = str(raised.value)
    assert "no profile 'onnx-split-13' (did you mean 'onnx-split13'?)" in message
    assert ", ".join(profiles.available(PROFILES)) in message
