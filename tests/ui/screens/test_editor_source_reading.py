"""What the source pane's worker reads (issue 23): the exact form only the slice shown, the
readable form the whole source a chunk and a record at a time, stopping once superseded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pifold_core.engine import Engine
from pifold_tui.screens.editor.source_reading import (
    SLICE_BYTES,
    Superseded,
    indented,
    read_slice,
    whole_characters,
)
from tests.core.builders import CharCounter, SessionBuilder, drive, small_options
from tests.core.engine_checks import assert_clean_audit, folded_engine


def _whole_indented(source: bytes) -> str:
    return json.dumps(json.loads(source), indent=2, ensure_ascii=False)


def _largest_handle(engine: Engine) -> str:
    fold = max(engine.view.forest.folds.values(), key=lambda fold: fold.end - fold.start)
    return fold.handle


def test_a_record_at_a_time_indents_as_the_whole_source_does(tmp_path: Path) -> None:
    engine, _ = folded_engine(tmp_path, count=4)
    for handle in engine.view.forest.folds:
        source = engine.peek(handle).data
        assert indented(source, lambda: True) == _whole_indented(source)
    entry = engine.view.transcript.entries[0].record_bytes
    odd = ['a "quoted"\nline', {"ü": [], "x": {}}, [1, [2, {"y": None}]], "é"]
    for source in (entry, b"[]", json.dumps(odd, separators=(",", ":")).encode()):
        assert indented(source, lambda: True) == _whole_indented(source)
    with pytest.raises(ValueError):
        indented(b"[1,", lambda: True)  # fails as the whole parse fails
    engine.close()


def test_the_readable_form_reads_the_whole_source_and_shows_a_slice(tmp_path: Path) -> None:
    engine, _ = folded_engine(tmp_path, count=4)
    handle = _largest_handle(engine)
    pretty = _whole_indented(engine.peek(handle).data)
    found = read_slice(engine, handle, SLICE_BYTES, True)
    assert found.text == pretty[SLICE_BYTES : 2 * SLICE_BYTES]
    assert (found.total, found.end) == (len(pretty), SLICE_BYTES + len(found.text))
    assert found.entries_read == found.entries_total > 16
    exact = read_slice(engine, handle, 0, False)
    assert exact.text.encode() == engine.peek(handle).data[:SLICE_BYTES]
    assert exact.entries_read < exact.entries_total
    engine.close()


def test_a_superseded_readable_read_stops_before_it_ends(tmp_path: Path) -> None:
    engine, _ = folded_engine(tmp_path, count=4)
    handle = _largest_handle(engine)
    asked: list[bool] = []

    def wanted() -> bool:
        asked.append(True)
        return False  # superseded as soon as the read first gives way

    with pytest.raises(Superseded):
        read_slice(engine, handle, 0, True, wanted)
    assert asked == [True]
    assert read_slice(engine, handle, 0, True, lambda: True).entries_read > 16
    engine.close()


@given(st.text(min_size=1, max_size=40), st.data())
def test_a_cut_keeps_whole_characters_and_cuts_end_to_end_cover_the_source(
    text: str, data: st.DataObject
) -> None:
    source = text.encode("utf-8", "surrogatepass")
    if any(0xD800 <= ord(character) <= 0xDFFF for character in text):
        return  # not UTF-8 a source can hold
    size = data.draw(st.integers(4, 12))  # a slice holds at least one whole character
    offset, shown = 0, []
    while offset < len(source):
        piece = source[offset : offset + size]
        front, back = whole_characters(piece, offset, len(source))
        assert front == 0  # each cut starts where the last one ended: on a character
        assert back <= 3
        kept = piece[: len(piece) - back]
        assert kept
        shown.append(kept.decode("utf-8"))  # strict: whole characters only
        offset += len(kept)
    assert "".join(shown) == text


@given(st.text(min_size=1, max_size=20), st.integers(0, 80))
def test_a_cut_that_starts_inside_a_character_skips_its_rest(text: str, start: int) -> None:
    if any(0xD800 <= ord(character) <= 0xDFFF for character in text):
        return
    source = text.encode("utf-8")
    start = min(start, len(source) - 1)
    piece = source[start:]
    front, back = whole_characters(piece, start, len(source))
    assert back == 0  # the source's own end is never cut
    kept = piece[front:]
    assert kept.decode("utf-8") == source[start + front :].decode("utf-8")
    assert front <= 3 and (start + front == len(source) or source[start + front] & 0xC0 != 0x80)


def test_slices_read_end_to_end_show_every_character_once(tmp_path: Path) -> None:
    session = SessionBuilder()
    entry = session.user("é€😀 naïve " * 900)  # 2, 3 and 4-byte characters across every edge
    engine = Engine.open(tmp_path / "state", small_options(), CharCounter())
    drive(engine, session.entries)
    source = engine.peek(entry.id).data
    assert len(source) > 3 * SLICE_BYTES
    offset, texts = 0, []
    while offset < len(source):
        found = read_slice(engine, entry.id, offset, False)
        assert "\ufffd" not in found.text and found.offset == offset
        texts.append(found.text)
        offset = found.end
    assert "".join(texts) == source.decode("utf-8")
    middle = read_slice(engine, entry.id, SLICE_BYTES + 1, False)  # a page back lands anywhere
    assert "\ufffd" not in middle.text
    assert middle.text.encode() == source[middle.offset : middle.end]
    assert_clean_audit(engine)
    engine.close()
