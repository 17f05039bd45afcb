"""How strings a backend returns become the suite's (an object array of ``str``): the one
conversion TensorFlow, LiteRT, OpenVINO and ONNX's evaluator outputs go through."""

from __future__ import annotations

import numpy as np

from conformance import dtypes


def test_utf8_bytes_become_str_with_their_shape() -> None:
    raw = np.array([[b"a", "字".encode()], [b"e\xcc\x81", b"x  "]], dtype=object)
    out = dtypes.suite_strings(raw)
    assert out.dtype == object and out.shape == (2, 2)
    assert out.tolist() == [["a", "字"], ["e\u0301", "x  "]]
    assert all(type(item) is str for item in out.flat)


def test_bytes_that_are_not_utf8_survive_as_a_visible_difference() -> None:
    out = dtypes.suite_strings(np.array([b"\xff\xfe"], dtype=object))
    assert out[0] != "\xff\xfe" and out[0].encode("utf-8", "surrogateescape") == b"\xff\xfe"


def test_bare_bytes_take_the_shape_given_and_str_passes_unchanged() -> None:
    assert dtypes.suite_strings(b"zero-d", ()).shape == ()
    assert dtypes.suite_strings(b"zero-d", ())[()] == "zero-d"
    assert dtypes.suite_strings(np.array(["already", "str"])).tolist() == ["already", "str"]
