"""``/fold-editor``'s search (issue 21): ``/``, a query and Enter list the hits of a search over
folded history (run off the UI thread); Enter on a hit moves the map's cursor to its fold and
the pane peeks it. Nothing changes and nothing is appended."""

from __future__ import annotations

from textual.pilot import Pilot

from pifold_core.engine import Engine
from pifold_core.search import parse_query
from pifold_tui.screens.editor import FoldEditorScreen
from pifold_tui.screens.editor.search_hits import SearchHits
from tests.core.engine_checks import unchanged
from tests.ui.screens.editor_fixtures import (
    SCREEN_SIZE,
    ScreenHost,
    assert_host_clean,
    wait_for_source,
)

NEEDLE = "apply_patch"
"""A word the replayed session used early, in entries folds hold now."""


def _editor(pilot: Pilot[None]) -> FoldEditorScreen:
    screen = pilot.app.screen
    assert isinstance(screen, FoldEditorScreen)
    return screen


async def test_enter_lists_hits_and_a_hit_jumps_to_its_fold(replayed_engine: Engine) -> None:
    engine = replayed_engine
    expected = engine.search(parse_query(NEEDLE, limit=50))
    assert expected.hits and expected.hits[0].fold is not None
    entries = len(engine.view.transcript)
    with unchanged(engine):
        async with ScreenHost(FoldEditorScreen(engine)).run_test(size=SCREEN_SIZE) as pilot:
            await pilot.pause()
            await pilot.press("slash", *NEEDLE, "enter")
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
            hits = pilot.app.screen.query_one(SearchHits)
            assert hits.shown and hits.has_focus
            assert [hit.entry for hit in hits.hits] == [hit.entry for hit in expected.hits]
            assert f"{expected.total:,} search hits in folded history" in _editor(pilot).message
            await pilot.press("down", "enter")
            await wait_for_source(pilot)
            chosen = expected.hits[1]
            selected = _editor(pilot).window_map.selected
            assert selected is not None and selected.handle == chosen.fold
            assert _editor(pilot).window_map.filter_text == ""
            assert not hits.shown
            assert _editor(pilot).source_pane.identifier == chosen.fold
    assert_host_clean(engine, entries)


async def test_a_bad_query_is_refused_and_escape_hides_the_hits(replayed_engine: Engine) -> None:
    engine = replayed_engine
    with unchanged(engine):
        async with ScreenHost(FoldEditorScreen(engine)).run_test(size=SCREEN_SIZE) as pilot:
            await pilot.pause()
            await pilot.press("slash", *'"open', "enter")
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
            assert "refused: search: query" in _editor(pilot).message
            assert "unbalanced quote" in _editor(pilot).message
            await pilot.press("slash", "ctrl+u", *NEEDLE, "enter")
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
            hits = pilot.app.screen.query_one(SearchHits)
            assert hits.shown
            await pilot.press("escape")
            assert not hits.shown
