"""What enters the engine round-trips exactly (issue 9, defects 3 and 10).

A surrogate pair split into two code points (a streaming decoder's output) is combined into
its character; a lone surrogate, a non-finite number, a non-JSON value or nesting past the
limit is refused at the door with an ``EntryError`` naming the field, and nothing changes.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pifold_core.admission import MAX_DEPTH, AdmissionError, admit, admit_text
from pifold_core.canonical import CanonicalError
from pifold_core.engine import Engine
from pifold_core.entries import Entry, EntryError, TextBlock, ThinkingBlock, ToolCallBlock
from pifold_core.journal import Journal
from tests.core.builders import CharCounter, SessionBuilder, drive, small_options
from tests.core.engine_checks import assert_reopens_identically, unchanged

SPLIT = "\ud83d\ude00"
"""U+1F600 as a streaming decoder leaves it: high and low surrogate, two code points."""
LONE = "\ud83d"


def _engine(path: Path) -> Engine:
    engine = Engine.open(path / "state", small_options(budget=200_000), CharCounter())
    session = SessionBuilder()
    session.user("hello")
    drive(engine, session.entries)
    return engine


def _entries_with(text: str) -> dict[str, Any]:
    """One entry per field that can hold a string, each holding ``text`` there."""
    call = {"path": "a.py", "deep": [{"k": ["x", text]}]}
    return {
        "text": lambda: Entry("u1", "user", 0, (TextBlock(f"say {text}"),)),
        "thinking": lambda: Entry("a1", "assistant", 0, (ThinkingBlock("hm", text),)),
        "arguments": lambda: Entry("a1", "assistant", 0, (ToolCallBlock("c1", "read", call),)),
        "argument key": lambda: Entry(
            "a1", "assistant", 0, (ToolCallBlock("c1", "read", {text: 1}),)
        ),
        "call id": lambda: Entry("a1", "assistant", 0, (ToolCallBlock(f"c{text}", "read", {}),)),
        "extra": lambda: Entry("u1", "user", 0, (TextBlock("x"),), extra={"host": [text]}),
        "model": lambda: Entry("a1", "assistant", 0, (TextBlock("x"),), model=text),
        "entry id": lambda: Entry(f"u{text}", "user", 0, (TextBlock("x"),)),
        "result tool": lambda: Entry(
            "r1", "tool_result", 0, (TextBlock("x"),), call_id="c1", tool_name=text
        ),
    }


@pytest.mark.parametrize("field", sorted(_entries_with("")))
def test_a_split_surrogate_pair_is_combined_and_survives_a_restart(
    tmp_path: Path, field: str
) -> None:
    engine = _engine(tmp_path)
    entry = _entries_with(SPLIT)[field]()
    # Combined into the real character, so its UTF-8 form exists and reads back identically.
    assert "\ud83d" not in json.dumps(entry.to_record(), ensure_ascii=False)
    assert "\U0001f600" in json.dumps(entry.to_record(), ensure_ascii=False)
    if entry.kind == "tool_result":
        call = Entry("a9", "assistant", 0, (ToolCallBlock("c1", entry.tool_name or "", {}),))
        engine.append(call)
    engine.append(entry)
    engine.prepare_request()
    reopened = assert_reopens_identically(engine)
    assert reopened.view.transcript.entries[-1].record_bytes == entry.record_bytes


@pytest.mark.parametrize("field", sorted(_entries_with("")))
def test_a_lone_surrogate_is_refused_naming_the_field(tmp_path: Path, field: str) -> None:
    with pytest.raises(EntryError, match="lone surrogate U\\+D83D"):
        _entries_with(LONE)[field]()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (float("inf"), "non-finite number inf"),
        (float("-inf"), "non-finite number -inf"),
        (float("nan"), "non-finite number nan"),
        ({1: "a"}, "non-string key 1"),
        ({"s": {1, 2}}, "is a set, which is not JSON"),
        (b"bytes", "is a bytes, which is not JSON"),
    ],
)
def test_values_json_cannot_carry_are_refused_by_append(
    tmp_path: Path, value: object, message: str
) -> None:
    engine = _engine(tmp_path)
    with unchanged(engine):
        with pytest.raises(EntryError, match=message) as caught:
            engine.append(
                Entry("a1", "assistant", 0, (ToolCallBlock("c1", "read", {"n": [value]}),))
            )
        assert "arguments" in str(caught.value)
        with pytest.raises(EntryError, match=message):
            engine.append(Entry("u2", "user", 0, (TextBlock("x"),), extra={"meta": value}))
    engine.close()


def test_nesting_past_the_limit_is_refused_without_recursion(tmp_path: Path) -> None:
    deep: Any = "bottom"
    for _ in range(5_000):  # far past the interpreter's recursion limit
        deep = {"next": [deep]}
    engine = _engine(tmp_path)
    too_deep = f"nests deeper than {MAX_DEPTH} levels"
    with unchanged(engine), pytest.raises(EntryError, match=too_deep):
        engine.append(Entry("a1", "assistant", 0, (ToolCallBlock("c1", "read", deep),)))
    cyclic: list[Any] = []
    cyclic.append(cyclic)
    with pytest.raises(AdmissionError, match="nests deeper"):
        admit(cyclic, "value")
    engine.close()


def test_admit_returns_the_same_object_when_nothing_needs_combining() -> None:
    value = {"a": ["é", 1, 2.5, None], "b": "plain"}
    assert admit(value, "v") is value
    assert admit_text("ascii", "t") == "ascii"
    repaired = admit({"k": [SPLIT]}, "v")
    assert repaired == {"k": ["\U0001f600"]}


def test_the_log_refuses_a_line_it_could_not_read_back(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    journal = Journal(path)
    journal.append("note", {"text": "before"})
    size = path.stat().st_size
    with pytest.raises(CanonicalError, match="lone surrogate"):
        journal.append("note", {"text": LONE})
    with pytest.raises(CanonicalError, match="lone surrogate"):
        journal.append("note", {"text": SPLIT})
    assert path.stat().st_size == size
    assert journal.append("note", {"text": "after"}) == 1
    journal.close()
    assert [record.body["text"] for record in Journal(path).read_all()] == ["before", "after"]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.integers(0, 0x10FFFF) | st.integers(0xD800, 0xDFFF) | st.sampled_from([0x61, 0xE9]),
        max_size=12,
    ).map(lambda points: "".join(map(chr, points)))
)
def test_any_text_is_refused_or_read_back_from_the_log_exactly(text: str) -> None:
    try:
        entry = Entry("u1", "user", 0, (TextBlock(text),), extra={text: text})
    except EntryError as error:
        assert "lone surrogate" in str(error)
        return
    with tempfile.TemporaryDirectory() as folder:
        journal = Journal(Path(folder) / "log.jsonl")
        journal.append("entry", {"record": entry.to_record()})
        journal.close()
        (record,) = Journal(Path(folder) / "log.jsonl").read_all()
    assert Entry.from_record(record.body["record"]).record_bytes == entry.record_bytes
