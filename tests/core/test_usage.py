"""The usage model (pifold_core/usage.py): a figure is a count or unknown, and reading a
record never refuses: what an earlier release wrote as the provider sent it is unknown and
kept byte for byte (issue 18, defect 1)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pifold_core.canonical import canonical_bytes
from pifold_core.entries import Entry, TextBlock
from pifold_core.usage import Usage

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)
# A record without usage is written without the key (never "usage": null), so null is left out.
records = st.one_of(
    json_values.filter(lambda value: value is not None),
    st.fixed_dictionaries(
        {},
        optional={
            name: st.one_of(st.integers(min_value=-5, max_value=10**30), json_values)
            for name in ("input", "output", "cache_read", "cache_write")
        },
    ),
)


def entry_with(record: Any) -> dict[str, Any]:
    return {"v": 1, "id": "a1", "kind": "assistant", "ts": 0, "content": [], "usage": record}


@given(records)
def test_any_usage_record_reads_and_writes_back_byte_for_byte(record: Any) -> None:
    written = entry_with(record)
    entry = Entry.from_record(json.loads(json.dumps(written)))
    assert entry.usage is not None
    if entry.usage.as_written is None:
        # Read as figures: every one is a count or unknown.
        assert all(f is None or (isinstance(f, int) and f >= 0) for f in entry.usage.figures)
    else:
        assert entry.usage.figures == (None, None, None, None)
        assert entry.usage.prompt_tokens is None and entry.usage.total_tokens is None
        # The record comes back exactly, so a fold made over it still verifies.
        assert entry.record_bytes == canonical_bytes(written)


@pytest.mark.parametrize(
    "record",
    [
        {"input": 0, "output": 1e300, "cache_read": 0, "cache_write": 0},
        {"input": 907, "output": -3, "cache_read": -7, "cache_write": 0},
        {"input": 1200.0, "output": 12.5, "cache_read": 0, "cache_write": 0},
        {"input": "12", "output": True, "cache_read": [1], "cache_write": {}},
        {"input": 5, "total": 9},
        [1, 2],
        "usage",
    ],
)
def test_what_earlier_releases_wrote_is_unknown_and_kept(record: Any) -> None:
    entry = Entry.from_record(entry_with(record))
    assert entry.usage is not None and entry.usage.figures == (None, None, None, None)
    assert entry.to_record()["usage"] == record


def test_unknown_figures_are_null_and_round_trip() -> None:
    usage = Usage(1_000, None, 200, 0)
    entry = Entry("a1", "assistant", 0, (TextBlock("hi"),), usage=usage)
    assert entry.to_record()["usage"] == {
        "input": 1_000,
        "output": None,
        "cache_read": 200,
        "cache_write": 0,
    }
    assert Entry.from_record(entry.to_record()).usage == usage
    assert usage.prompt_tokens == 1_200 and usage.total_tokens is None
    assert Usage(None, 5).prompt_tokens is None


def test_a_kept_record_has_no_known_figure() -> None:
    with pytest.raises(ValueError, match="no known figure"):
        Usage(1, None, None, None, as_written="{}")


def test_a_session_file_spelling_reads_as_the_engine_log_does() -> None:
    names = ("input", "output", "cacheRead", "cacheWrite")
    legacy = Usage.from_named(
        {"input": 0, "output": 1e300, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1e300}, names
    )
    assert legacy == Usage.from_record(
        {"input": 0, "output": 1e300, "cache_read": 0, "cache_write": 0}
    )
    assert Usage.from_named(
        {"input": 3, "output": None, "cacheRead": 1, "cacheWrite": 0}, names
    ) == Usage(3, None, 1, 0)
