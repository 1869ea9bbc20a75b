"""A provider's JSON copied one level at a time (``plain``, the lone-surrogate repair, the
Responses reader's ``null`` stripping all walk it the same way): equal to a plain recursive
copy, the original untouched, and any depth without exhausting the stack."""

from __future__ import annotations

import copy

from hypothesis import given
from hypothesis import strategies as st

from pifold_agent.providers.reply_door import copied_by_level, without_lone_surrogates
from pifold_core.canonical import JsonValue

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=3), children, max_size=4)
    ),
    max_leaves=30,
)


def shallow(value: JsonValue) -> JsonValue:
    """Strings upper-cased, containers copied: something a level can be seen to change."""
    if isinstance(value, str):
        return value.upper()
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list):
        return list(value)
    return value


def recursive(value: JsonValue) -> JsonValue:
    if isinstance(value, dict):
        return {key: recursive(member) for key, member in value.items()}
    if isinstance(value, list):
        return [recursive(member) for member in value]
    return shallow(value)


@given(JSON)
def test_a_copy_by_level_is_the_recursive_copy_and_leaves_the_original(value: JsonValue) -> None:
    before = copy.deepcopy(value)
    assert copied_by_level(value, shallow) == recursive(value)
    assert value == before


def test_any_depth_is_copied_without_recursion() -> None:
    deep: JsonValue = "\ud800"
    for _ in range(50_000):
        deep = [deep]
    repaired = without_lone_surrogates(deep)
    for _ in range(50_000):
        assert isinstance(repaired, list)
        repaired = repaired[0]
    assert repaired == "\ufffd"
