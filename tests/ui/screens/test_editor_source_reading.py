"""What the source pane's worker reads (issue 23): the exact form only the slice shown, the
readable form the whole source a chunk and a record at a time, stopping once superseded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pifold_core.engine import Engine
from pifold_tui.screens.editor.source_reading import (
    SLICE_BYTES,
    Superseded,
    indented,
    read_slice,
)
from tests.core.engine_checks import folded_engine


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
