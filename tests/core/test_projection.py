"""The projection: raw entries and placeholders, incremental and from scratch (DESIGN §4)."""

from __future__ import annotations

import json

from pifold_core.builder import FoldBuilder
from pifold_core.canonical import sha256_hex
from pifold_core.folds import Fold, FoldKind, Forest
from pifold_core.placeholders import TOOL_NAME
from pifold_core.projection import Projection
from pifold_core.transcript import Transcript
from tests.core.builders import CharCounter, SessionBuilder


def _setup() -> tuple[Transcript, Forest, Projection, SessionBuilder]:
    session = SessionBuilder()
    for number in range(3):
        session.chapter(f"ask {number} about src/m{number}.py", [[900, 700], [400]], seed=number)
    transcript, forest = Transcript(), Forest()
    projection = Projection(transcript, forest, CharCounter())
    for entry in session.entries:
        transcript.append(entry)
        projection.append_entry(len(transcript) - 1)
    return transcript, forest, projection, session


def _fold(
    transcript: Transcript, forest: Forest, projection: Projection, kind: FoldKind, a: int, b: int
) -> Fold:
    fold = FoldBuilder(transcript, forest).build(kind, a, b, commit=1).fold
    forest.add(fold)
    projection.show_fold(fold)
    return fold


def test_raw_projection_is_the_wire_messages() -> None:
    transcript, _, projection, _ = _setup()
    assert projection.messages() == [entry.wire for entry in transcript]
    # The digest is of exactly what a host sends: json.dumps in the engine's key order.
    assert projection.digests() == [
        sha256_hex(json.dumps(entry.to_wire(), ensure_ascii=False, separators=(",", ":")).encode())
        for entry in transcript
    ]
    assert projection.tokens == sum(item.tokens for item in projection.items)
    # The wire message never carries host metadata (ids, timestamps, usage).
    assert all(
        set(message) <= {"role", "content", "call_id", "name", "is_error"}
        for message in projection.messages()
    )


def test_tool_fold_keeps_the_call_and_the_pairing() -> None:
    transcript, forest, projection, _ = _setup()
    before = projection.tokens
    fold = _fold(transcript, forest, projection, "tool", 2, 4)
    first, second = projection.items[2], projection.items[3]
    call = projection.items[1].message
    assert call == transcript.entries[1].wire  # the call stays visible, unchanged
    for item, entry in ((first, transcript.entries[2]), (second, transcript.entries[3])):
        assert item.fold == fold.handle
        assert item.message["role"] == "tool"
        assert item.message["call_id"] == entry.call_id
        assert item.message["name"] == entry.tool_name
    assert first.message["content"] == [{"type": "text", "text": fold.placeholder}]
    assert "result 2 of 2" in second.message["content"][0]["text"]
    assert TOOL_NAME in fold.placeholder and fold.handle in fold.placeholder
    assert projection.tokens < before


def test_span_fold_is_one_user_role_note() -> None:
    transcript, forest, projection, _ = _setup()
    fold = _fold(transcript, forest, projection, "span", 0, 7)
    item = projection.items[0]
    assert (item.start, item.end, item.fold) == (0, 7, fold.handle)
    assert item.message == {"role": "user", "content": [{"type": "text", "text": fold.placeholder}]}
    assert projection.items[1].start == 7
    assert len(projection.items) == len(transcript) - 6


def test_placeholder_never_names_a_neighbour() -> None:
    transcript, forest, projection, _ = _setup()
    first = _fold(transcript, forest, projection, "span", 0, 7)
    text_before = projection.items[0].message
    second = _fold(transcript, forest, projection, "span", 7, 14)
    assert projection.items[0].message == text_before
    assert second.handle not in first.placeholder and first.handle not in second.placeholder


def test_rebuild_equals_incremental_and_expansion_shows_one_level() -> None:
    transcript, forest, projection, _ = _setup()
    tool = _fold(transcript, forest, projection, "tool", 2, 4)
    span = _fold(transcript, forest, projection, "span", 0, 7)
    _fold(transcript, forest, projection, "span", 7, 14)
    incremental = projection.digests()
    fresh = Projection(transcript, forest, CharCounter())
    fresh.rebuild()
    assert fresh.digests() == incremental and fresh.tokens == projection.tokens

    forest.expanded.add(span.handle)
    projection.show_fold(span)
    shown = [item for item in projection.items if item.start < 7]
    assert [item.fold for item in shown] == [None, None, tool.handle, tool.handle, None, None, None]
    fresh.rebuild()
    assert fresh.digests() == projection.digests()
    assert projection.tokens_of_range(0, 7) == sum(item.tokens for item in shown)
    assert projection.item_index_at(3) == 3
