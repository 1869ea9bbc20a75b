"""``Transcript.undo_append`` takes an append back exactly (an append whose log write failed).

Every structure the transcript keeps (units, closure, chapters, call and result sites) must
be as it was before the append, whatever the entry and whatever came before it.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pifold_core.entries import Entry, TextBlock, ToolCallBlock
from pifold_core.transcript import Transcript, TranscriptError


def _structure(transcript: Transcript) -> tuple[Any, ...]:
    return (
        [entry.id for entry in transcript.entries],
        dict(transcript.index_of),
        [
            (
                unit.start,
                unit.end,
                unit.chapter,
                sorted(unit.pending_calls),
                unit.sealed,
                unit.closed,
            )
            for unit in transcript.units
        ],
        list(transcript.unit_of),
        list(transcript.chapter_starts),
        dict(transcript.call_site),
        {call: list(sites) for call, sites in transcript.result_sites.items()},
        transcript.closed_through,
        transcript.fresh_start,
        transcript.eligible_units,
    )


_STEP = st.sampled_from(["user", "note", "text", "calls", "result", "late", "orphan"])


def _entry(step: str, number: int, open_calls: list[str], old_calls: list[str]) -> Entry:
    entry_id = f"e{number}"
    if step in {"user", "note"}:
        return Entry(entry_id, step, number, (TextBlock(f"{step} {number}"),))  # type: ignore[arg-type]
    if step == "text":
        return Entry(entry_id, "assistant", number, (TextBlock("thinking aloud"),))
    if step == "calls":
        calls = tuple(ToolCallBlock(f"c{number}-{n}", "read", {"n": n}) for n in range(2))
        return Entry(entry_id, "assistant", number, calls)
    pool = {"result": open_calls, "late": old_calls, "orphan": []}[step]
    call = pool[0] if pool else f"nobody-{number}"
    return Entry(
        entry_id, "tool_result", number, (TextBlock("ok"),), call_id=call, tool_name="read"
    )


@settings(max_examples=150, deadline=None)
@given(st.lists(_STEP, min_size=1, max_size=40))
def test_every_append_can_be_taken_back_exactly(steps: list[str]) -> None:
    transcript = Transcript()
    open_calls: list[str] = []
    old_calls: list[str] = []
    for number, step in enumerate(steps):
        entry = _entry(step, number, open_calls, old_calls)
        before = _structure(transcript)
        transcript.append(entry)
        assert transcript.undo_append() is entry
        assert _structure(transcript) == before
        transcript.append(entry)  # the retry lands as if nothing had happened
        if entry.kind == "assistant" and entry.tool_calls:
            old_calls.extend(open_calls)
            open_calls[:] = [call.id for call in entry.tool_calls]
        elif entry.kind == "tool_result" and entry.call_id in open_calls:
            open_calls.remove(str(entry.call_id))


def test_undo_is_once_only() -> None:
    transcript = Transcript()
    with pytest.raises(TranscriptError, match="no append to undo"):
        transcript.undo_append()
    transcript.append(Entry("u1", "user", 0, (TextBlock("hi"),)))
    transcript.undo_append()
    with pytest.raises(TranscriptError, match="no append to undo"):
        transcript.undo_append()
