"""Canonical JSON: the byte form every digest is taken over (DESIGN §2)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pifold_core.canonical import (
    CanonicalError,
    canonical_bytes,
    canonical_text,
    digest_of,
    parse_json,
    sha256_hex,
    wire_bytes,
)


def test_keys_are_sorted_and_there_is_no_whitespace() -> None:
    value = {"b": 1, "a": [1, 2, {"d": None, "c": True}], "B": "x y"}
    assert canonical_bytes(value) == b'{"B":"x y","a":[1,2,{"c":true,"d":null}],"b":1}'


def test_key_order_of_construction_does_not_change_the_digest() -> None:
    first = {"z": 1, "a": 2}
    second = {"a": 2, "z": 1}
    assert canonical_bytes(first) == canonical_bytes(second)
    assert digest_of(first) == digest_of(second) == sha256_hex(b'{"a":2,"z":1}')


def test_keys_sort_by_code_point() -> None:
    assert canonical_text({"é": 1, "z": 2, "Z": 3}) == '{"Z":3,"z":2,"é":1}'


def test_non_ascii_is_written_raw_as_utf8() -> None:
    assert canonical_bytes("héllo ✓ 日本") == '"héllo ✓ 日本"'.encode()


def test_only_required_characters_are_escaped() -> None:
    assert canonical_bytes('a"b\\c\n\x01') == b'"a\\"b\\\\c\\n\\u0001"'


def test_lone_surrogate_is_written_as_its_escape() -> None:
    data = canonical_bytes("é\ud800x")
    assert data == '"é\\ud800x"'.encode()
    data.decode("utf-8")  # valid UTF-8 throughout
    assert parse_json(data) == "é\ud800x"


@pytest.mark.parametrize(
    ("value", "path"),
    [
        (float("nan"), "$"),
        ({"a": [1, float("nan")]}, "$.a[1]"),
        ({"outer": {"inner": float("inf")}}, "$.outer.inner"),
        ([0, [1, -float("inf")]], "$[1][1]"),
    ],
)
def test_non_finite_numbers_are_refused_naming_the_path(value: object, path: str) -> None:
    with pytest.raises(CanonicalError) as caught:
        canonical_bytes(value)
    assert f"at {path}" in str(caught.value)


def test_float_rule_is_shortest_round_trip_repr() -> None:
    assert canonical_text([0.1, 1e-07, -0.0, 1.0, 1e16, 2.5e-300]) == (
        "[0.1,1e-07,-0.0,1.0,1e+16,2.5e-300]"
    )
    assert canonical_text(10**30) == "1" + "0" * 30
    assert canonical_text(True) == "true"


def test_parse_refuses_non_finite_literals() -> None:
    with pytest.raises(CanonicalError, match="NaN"):
        parse_json(b"[NaN]")
    with pytest.raises(CanonicalError, match="Infinity"):
        parse_json('{"a": Infinity}')


def test_non_json_values_are_refused() -> None:
    with pytest.raises(CanonicalError):
        canonical_bytes({"a": object()})


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(json_values)
def test_canonical_bytes_round_trip_and_are_stable(value: object) -> None:
    data = canonical_bytes(value)
    parsed = parse_json(data)
    assert canonical_bytes(parsed) == data
    # No insignificant whitespace: the standard compact encoding with sorted keys agrees.
    reference = json.dumps(
        value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False
    )
    assert data == reference.encode("utf-8", "backslashreplace")


def test_a_value_nested_past_the_recursion_limit_is_a_canonical_error() -> None:
    deep: list[object] = []
    for _ in range(100_000):
        deep = [deep]
    for write in (canonical_bytes, wire_bytes):
        with pytest.raises(CanonicalError, match="nests too deeply"):
            write(deep)
