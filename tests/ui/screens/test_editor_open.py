"""What keeps opening the fold editor cheap on a long session (issue 23): the row list holds
no object per row, and the session's objects sit out the collector's full passes while the
screen is open, handed back when it closes."""

from __future__ import annotations

import gc

from hypothesis import given
from hypothesis import strategies as st

from pifold_core.engine import Engine
from pifold_tui.screens.editor import FoldEditorScreen
from pifold_tui.screens.editor.row_list import MapRow, RowList
from pifold_tui.screens.editor.rows import build_rows
from tests.ui.screens.editor_fixtures import SCREEN_SIZE, ScreenHost, wait_for_source

runs = st.lists(
    st.tuples(st.integers(0, 3), st.integers(0, 4), st.booleans()),
    max_size=30,
)


def rows_of(run_list: list[tuple[int, int, bool]]) -> list[MapRow]:
    """Rows in transcript order: each run adds a fold's row (when it says so), then entries."""
    rows: list[MapRow] = []
    index = 0
    for number, (depth, length, fold) in enumerate(run_list):
        if fold:
            rows.append(MapRow(depth, index, f"fold-{number}"))
        rows.extend(MapRow(depth, index + step, None) for step in range(length))
        index += length
    return rows


@given(runs)
def test_the_row_list_reads_back_and_finds_what_was_added(
    run_list: list[tuple[int, int, bool]],
) -> None:
    expected = rows_of(run_list)
    built = RowList()
    index = 0
    for number, (depth, length, fold) in enumerate(run_list):
        if fold:
            built.append(MapRow(depth, index, f"fold-{number}"))
        built.add_entries(depth, index, index + length)
        index += length
    assert list(built) == expected == list(RowList(expected))
    assert len(built) == len(expected) and built[-1:] == expected[-1:]
    for position, row in enumerate(expected):
        assert built[position] == row
        found = built.position_of(row.entry_index, row.handle)
        assert found is not None and expected[found] == row
        assert built.first_from(row.entry_index) == min(
            place for place, other in enumerate(expected) if other.entry_index >= row.entry_index
        )
    assert built.position_of(index + 1, None) is None
    assert built.first_from(index + 1) == len(expected)


def held(container: object) -> list[object]:
    """What ``container`` refers to, its type aside."""
    return [part for part in gc.get_referents(container) if not isinstance(part, type)]


def test_the_map_holds_no_object_per_row(replayed_engine: Engine) -> None:
    overrides = {handle: True for handle in replayed_engine.view.forest.folds}
    rows = build_rows(replayed_engine, overrides)
    assert len(rows) > len(replayed_engine.view.transcript)
    # The row list holds three columns, and they hold nothing the collector walks.
    columns = held(rows)
    assert len(columns) == 3
    assert not any(gc.is_tracked(item) for column in columns for item in held(column))


async def test_the_sessions_objects_sit_out_full_collections_while_the_editor_is_open(
    read_only_engine: Engine,
) -> None:
    gc.unfreeze()  # from a process with nothing frozen, whatever ran before
    forest = read_only_engine.view.forest.folds
    screen = FoldEditorScreen(read_only_engine, read_only=True)
    async with ScreenHost(screen).run_test(size=SCREEN_SIZE) as pilot:
        await pilot.pause()
        await wait_for_source(pilot)
        assert screen.long_lived.frozen and gc.get_freeze_count() > 0
        # The engine's objects are in no generation a collection walks.
        assert all(candidate is not forest for candidate in gc.get_objects())
        await pilot.press("escape")
        await pilot.pause()
        assert not screen.is_attached
        assert not screen.long_lived.frozen and gc.get_freeze_count() == 0
        assert any(candidate is forest for candidate in gc.get_objects())
        # Open again and leave with the app: its screens are unmounted, the freeze undone.
        pilot.app.push_screen(FoldEditorScreen(read_only_engine, read_only=True))
        await pilot.pause()
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0
