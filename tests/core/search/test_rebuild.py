"""The rows the index is given (:func:`pifold_core.search.rebuild.rows_for`): each entry's
paths are its own calls', a result's are the call it answers' (each call's read once and
shared by both)."""

from __future__ import annotations

from pathlib import Path

from pifold_core.blocks import TextBlock, ToolCallBlock
from pifold_core.engine import Engine
from pifold_core.entries import Entry, Usage
from pifold_core.search.rebuild import answered_call, original_of, rows_for
from pifold_core.search.text import entry_fields
from tests.core.builders import CharCounter, small_options
from tests.core.engine_checks import assert_clean_audit


def _assistant(number: int, calls: tuple[ToolCallBlock, ...]) -> Entry:
    return Entry(f"a{number}", "assistant", 1_700_000_000_000 + number, calls, usage=Usage(10, 5))


def _result(number: int, call: ToolCallBlock, text: str) -> Entry:
    return Entry(
        f"r{number}",
        "tool_result",
        1_700_000_000_000 + number,
        (TextBlock(text),),
        call_id=call.id,
        tool_name=call.name,
    )


def _session() -> list[Entry]:
    """Two turns of one call each, and a turn of two calls, one naming a file the other names
    again."""
    first = ToolCallBlock("call_0", "read", {"path": "src/first.py"})
    second = ToolCallBlock("call_1", "read", {"path": "src/second.py", "dir": "src"})
    both = (
        ToolCallBlock("call_2", "read", {"file_path": "a.py"}),
        ToolCallBlock("call_3", "grep", {"paths": ["b.py", "a.py"], "pattern": "x"}),
    )
    return [
        Entry("u0", "user", 1_700_000_000_000, (TextBlock("Read them."),)),
        _assistant(1, (first,)),
        _result(2, first, "first body"),
        _assistant(3, (second,)),
        _result(4, second, "second body"),
        _assistant(5, both),
        _result(6, both[0], "a body"),
        _result(7, both[1], "b body"),
    ]


def test_each_entry_gets_its_own_calls_paths(tmp_path: Path) -> None:
    engine = Engine.open(tmp_path / "state", small_options(), CharCounter())
    for entry in _session():
        engine.append(entry)
    transcript = engine.view.transcript
    rows = rows_for(transcript, range(len(transcript)), engine._state.evidence)
    paths = {row.entry_id: row.fields.paths for row in rows}
    assert paths["a1"] == ("src/first.py",)
    assert paths["a3"] == ("src/second.py", "src")
    assert paths["a5"] == ("a.py", "b.py")
    assert paths["r6"] == ("a.py",)
    assert paths["r7"] == ("b.py", "a.py")
    # The memo changes nothing: every row is what reading each call afresh gives.
    for row in rows:
        entry = transcript.entries[row.index]
        expected = entry_fields(
            entry,
            answered_call(transcript, row.index),
            original_of(entry, engine._state.evidence),
        )
        assert row.fields == expected
    assert_clean_audit(engine)
    engine.close()
