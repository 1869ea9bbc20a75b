"""Invariants of the editor's row list, on the replayed session (hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pifold_core.engine import Engine
from pifold_tui.screens.editor.rows import MarkIndex, build_rows, describe_row, tree_is_open

# The engine is only read, so one per test serves every example.
read_only_fixture = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@read_only_fixture
@given(data=st.data())
def test_rows_tile_the_transcript_whatever_the_tree_opens(
    replayed_engine: Engine, data: st.DataObject
) -> None:
    engine = replayed_engine
    handles = sorted(engine.view.forest.folds)
    overrides = data.draw(st.dictionaries(st.sampled_from(handles), st.booleans()))
    rows = build_rows(engine, overrides)
    # Entry rows and the spans of folds the tree keeps closed cover every entry once, in order.
    covered: list[int] = []
    for row in rows:
        if row.handle is None:
            covered.append(row.entry_index)
        elif not tree_is_open(engine, row.handle, overrides):
            fold = engine.view.forest.folds[row.handle]
            covered.extend(range(fold.start, fold.end))
    assert covered == list(range(len(engine.view.transcript)))
    # A fold's interior sits one level deeper, right beneath it.
    for position, row in enumerate(rows):
        if row.handle is not None and tree_is_open(engine, row.handle, overrides):
            assert rows[position + 1].depth == row.depth + 1
        expected_depth = (
            engine.view.forest.depth(row.handle)
            if row.handle is not None
            else len(engine.view.forest.chain_at(row.entry_index))
        )
        assert row.depth == expected_depth


@read_only_fixture
@given(data=st.data())
def test_a_row_shows_tokens_exactly_when_it_is_in_the_window(
    replayed_engine: Engine, data: st.DataObject
) -> None:
    engine = replayed_engine
    overrides = {handle: True for handle in engine.view.forest.folds}
    rows = build_rows(engine, overrides)
    row = data.draw(st.sampled_from(rows))
    view = describe_row(engine, row, MarkIndex(engine.view.marks.values()), overrides)
    if row.handle is None:
        assert (view.tokens is not None) == engine.view.forest.shows_raw(row.entry_index)
        assert ("folded" in view.state) == (not engine.view.forest.shows_raw(row.entry_index))
    else:
        forest = engine.view.forest
        in_window = forest.is_visible(row.handle) or forest.is_visible_open(row.handle)
        assert (view.tokens is not None) == in_window
    assert view.source_bytes > 0
