"""Transcript units: tool batches, sealing, closure, chapters, the fresh tail (DESIGN §2)."""

from __future__ import annotations

import pytest

from pifold_core.entries import Entry
from pifold_core.transcript import Transcript, TranscriptError
from tests.core.builders import SessionBuilder


def _transcript(builder: SessionBuilder) -> Transcript:
    transcript = Transcript()
    for entry in builder.entries:
        transcript.append(entry)
    return transcript


def test_batch_is_one_unit_of_call_and_results() -> None:
    builder = SessionBuilder()
    builder.user("go")
    builder.batch([10, 20, 30])
    transcript = _transcript(builder)
    assert [(unit.start, unit.end) for unit in transcript.units] == [(0, 1), (1, 5)]
    batch = transcript.units[1]
    assert batch.is_batch and not batch.pending_calls
    assert transcript.unit_of == [0, 1, 1, 1, 1]


def test_unit_stays_open_until_an_entry_that_cannot_join_arrives() -> None:
    builder = SessionBuilder()
    call = builder.assistant("", [("read", {"path": "a"}), ("read", {"path": "b"})])
    builder.result(call.tool_calls[0], "A")
    transcript = _transcript(builder)
    unit = transcript.units[0]
    assert unit.pending_calls == {call.tool_calls[1].id}
    assert not unit.sealed and not unit.closed
    transcript.append(builder.result(call.tool_calls[1], "B"))
    assert (unit.start, unit.end) == (0, 3) and not unit.pending_calls
    assert not unit.sealed  # nothing has arrived that cannot join it yet
    transcript.append(builder.note("steer"))
    assert unit.sealed and not unit.closed


def test_closure_needs_a_later_assistant_message() -> None:
    builder = SessionBuilder()
    builder.user("go")
    builder.batch([10])
    builder.user("and another thing")
    transcript = _transcript(builder)
    assert all(unit.sealed for unit in transcript.units[:-1])
    # The batch's own assistant message closed the first user message, nothing later.
    assert [unit.closed for unit in transcript.units] == [True, False, False]
    assert transcript.closed_through == 1
    assert transcript.fresh_start == 0
    transcript.append(builder.assistant("answer"))
    assert [unit.closed for unit in transcript.units] == [True, True, True, False]
    assert transcript.closed_through == 3


def test_late_result_after_the_batch_was_sealed_is_its_own_unit() -> None:
    builder = SessionBuilder()
    call = builder.assistant("", [("read", {}), ("bash", {})])
    builder.result(call.tool_calls[0], "first")
    builder.note("interrupt")
    builder.result(call.tool_calls[1], "late")
    transcript = _transcript(builder)
    assert [(unit.start, unit.end) for unit in transcript.units] == [(0, 2), (2, 3), (3, 4)]
    # Folding only the batch unit would separate the late result from its call.
    assert transcript.split_call(0, 2) == call.tool_calls[1].id
    assert transcript.split_call(0, 4) is None


def test_fresh_tail_starts_at_the_newest_closed_unit() -> None:
    builder = SessionBuilder()
    builder.user("go")  # unit 0
    builder.batch([10])  # unit 1 (entries 1-2)
    builder.batch([10])  # unit 2 (entries 3-4)
    transcript = _transcript(builder)
    # The second batch's assistant message closed units 0 and 1.
    assert transcript.closed_through == 2
    assert transcript.fresh_start == 1  # the newest closed unit (the first batch)
    assert transcript.eligible_units == 1
    transcript.append(builder.assistant("done"))
    assert transcript.closed_through == 3
    assert transcript.fresh_start == 3
    assert transcript.eligible_units == 2


def test_chapters_start_at_user_messages() -> None:
    builder = SessionBuilder()
    builder.note("system note")
    builder.chapter("first", [[5]])
    builder.chapter("second", [[5], [5]])
    transcript = _transcript(builder)
    assert transcript.chapter_starts == [1, 5]
    assert transcript.chapter_of(0) == -1
    assert transcript.chapter_of(4) == 0
    assert transcript.chapter_of(5) == 1
    assert [unit.chapter for unit in transcript.units][:2] == [-1, 0]


def test_split_call_names_the_separated_call() -> None:
    builder = SessionBuilder()
    builder.user("go")
    entries = builder.batch([10, 10])
    call = entries[0].tool_calls
    transcript = _transcript(builder)
    assert transcript.split_call(0, 4) is None
    assert transcript.split_call(0, 2) in {call[0].id, call[1].id}
    assert transcript.split_call(2, 4) == call[0].id  # results without their call
    assert transcript.split_call(0, 1) is None


def test_unit_aligned() -> None:
    builder = SessionBuilder()
    builder.user("go")
    builder.batch([10, 10])
    transcript = _transcript(builder)
    assert transcript.unit_aligned(0, 4)
    assert transcript.unit_aligned(1, 4)
    assert not transcript.unit_aligned(0, 3)
    assert not transcript.unit_aligned(2, 4)
    assert not transcript.unit_aligned(0, 9)


def test_duplicate_ids_are_refused_and_change_nothing() -> None:
    builder = SessionBuilder()
    builder.user("go")
    call = builder.assistant("", [("read", {})])
    transcript = _transcript(builder)
    with pytest.raises(TranscriptError, match="already"):
        transcript.append(builder.entries[0])
    reuse = Entry("fresh-id", "assistant", 0, call.content)
    with pytest.raises(TranscriptError, match="tool call id"):
        transcript.append(reuse)
    assert len(transcript) == 2 and len(transcript.units) == 2


def test_size_chars_counts_content() -> None:
    builder = SessionBuilder()
    builder.user("x" * 100)
    transcript = _transcript(builder)
    assert transcript.size_chars(0, 1) == transcript.entries[0].size_chars > 100
