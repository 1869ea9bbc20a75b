"""Pilot tests of ``/fold-editor`` on a real replayed session: browse, peek, and every action
with its refusal. Each drives the screen by keys, then checks that the screens added no
entry and that the next request has no unattributed rewrite."""

from __future__ import annotations

import json

from textual.pilot import Pilot
from textual.widgets import Input, Static, TextArea

from pifold_core.engine import Engine
from pifold_core.marks import Mark
from pifold_tui.screens.editor import FoldEditorScreen
from pifold_tui.screens.editor.actions import row_identifier
from pifold_tui.screens.editor.dialogs import BriefEditor, ConfirmAction
from pifold_tui.screens.status.frame import BarFooter
from tests.core.engine_checks import unchanged
from tests.ui.screens.editor_fixtures import (
    SCREEN_SIZE,
    ScreenHost,
    assert_host_clean,
    wait_for_source,
)


def _entry_id(engine: Engine, index: int) -> str:
    return engine.view.transcript.entries[index].id


def _number(mark: Mark) -> int:
    return int(mark.id.removeprefix("mark-"))


def _is_result(engine: Engine, index: int) -> bool:
    """Whether entry ``index`` is a tool result."""
    record = json.loads(engine.view.transcript.entries[index].record_bytes)
    return isinstance(record, dict) and "call_id" in record


def _calls_its_successor(engine: Engine, index: int) -> bool:
    """Whether entry ``index`` calls a tool whose result is the next entry."""
    if index + 1 >= len(engine.view.transcript) or not _is_result(engine, index + 1):
        return False
    call_id = json.loads(engine.view.transcript.entries[index + 1].record_bytes)["call_id"]
    return str(call_id).encode() in engine.view.transcript.entries[index].record_bytes


def raw_entry(engine: Engine) -> str:
    """A raw entry under no mark, after the last fold and the last pending mark."""
    after = max([engine.view.forest.roots()[-1].end, *(m.end for m in engine.view.marks.values())])
    assert after < len(engine.view.transcript)
    return _entry_id(engine, after)


def collapsed_span(engine: Engine) -> str:
    """A root span fold shown collapsed (the newest)."""
    return [f.handle for f in engine.view.forest.roots() if f.kind == "span"][-1]


def consolidated(engine: Engine) -> str:
    """A root consolidated fold, far over the pin cap."""
    return next(f.handle for f in engine.view.forest.roots() if f.kind == "consolidated")


def nested(engine: Engine) -> str:
    """A span fold inside :func:`consolidated`."""
    children = engine.view.forest.folds[consolidated(engine)].children
    return next(h for h in children if engine.view.forest.folds[h].kind == "span")


def newest_mark(engine: Engine) -> Mark:
    """The newest pending mark, a span mark."""
    mark = max(engine.view.marks.values(), key=_number)
    assert mark.kind == "span"
    return mark


def tool_mark(engine: Engine) -> Mark:
    """The newest pending tool mark (inside a span mark)."""
    return max((m for m in engine.view.marks.values() if m.kind == "tool"), key=_number)


def span_holding_tool_mark(engine: Engine) -> Mark:
    """The span mark holding :func:`tool_mark`; its first entry is under it alone."""
    inner = tool_mark(engine)
    mark = next(
        m
        for m in engine.view.marks.values()
        if m.kind == "span" and m.start < inner.start and inner.end <= m.end
    )
    return mark


def editor(pilot: Pilot[None]) -> FoldEditorScreen:
    screen = pilot.app.screen
    assert isinstance(screen, FoldEditorScreen)
    return screen


def message(pilot: Pilot[None]) -> str:
    return editor(pilot).message


def position_of(pilot: Pilot[None], identifier: str) -> int:
    screen = editor(pilot)
    return next(
        index
        for index, row in enumerate(screen.window_map.rows)
        if row_identifier(screen.engine, row) == identifier
    )


async def select(pilot: Pilot[None], identifier: str) -> None:
    """Put the cursor on ``identifier``'s row (as a click would; the keys are tested apart,
    and a key a row would make every test slow)."""
    screen = editor(pilot)
    screen.window_map.move_to(position_of(pilot, identifier))
    await pilot.pause()
    row = screen.window_map.selected
    assert row is not None and row_identifier(screen.engine, row) == identifier


async def test_keys_and_clicks_move_the_cursor(replayed_engine: Engine) -> None:
    engine = replayed_engine
    entries = len(engine.view.transcript)
    with unchanged(engine):
        async with host(engine).run_test(size=SCREEN_SIZE) as pilot:
            await pilot.pause()
            window_map = editor(pilot).window_map
            await pilot.press("down", "down", "up")
            assert window_map.cursor == 1
            await pilot.press("end")
            assert window_map.cursor == len(window_map.rows) - 1
            await pilot.press("home", "pagedown")
            assert window_map.cursor == window_map.size.height - 1
            await pilot.click(window_map, offset=(5, 3))
            assert window_map.cursor == round(window_map.scroll_offset.y) + 3
    assert_host_clean(engine, entries)


async def confirm(pilot: Pilot[None], moves_bytes: bool) -> ConfirmAction:
    """The confirmation dialog is up and says whether bytes move; Enter runs the action."""
    dialog = pilot.app.screen
    assert isinstance(dialog, ConfirmAction)
    assert dialog.plan.moves_bytes is moves_bytes
    verdict = str(dialog.query_one("#verdict", Static).render())
    assert ("MOVES BYTES" in verdict) is moves_bytes
    await pilot.press("enter")
    await pilot.pause()
    return dialog


def host(engine: Engine, read_only: bool = False) -> ScreenHost:
    return ScreenHost(FoldEditorScreen(engine, read_only))


async def test_opens_on_the_window_in_order_and_peeks_verified_sources(
    replayed_engine: Engine,
) -> None:
    engine = replayed_engine
    raw_id = raw_entry(engine)
    whole_fold = consolidated(engine)
    entries = len(engine.view.transcript)
    with unchanged(engine):
        async with host(engine).run_test(size=SCREEN_SIZE) as pilot:
            await pilot.pause()
            rows = editor(pilot).window_map.rows
            roots = [row.handle for row in rows if row.handle is not None]
            assert roots == [fold.handle for fold in engine.view.forest.roots()]
            # Collapsed roots stand for their span; the raw entries after them are listed.
            raw = [row.entry_index for row in rows if row.handle is None]
            assert raw == list(range(engine.view.forest.roots()[-1].end, entries))
            await select(pilot, raw_id)
            await wait_for_source(pilot)
            pane = editor(pilot).source_pane
            assert pane.current is not None
            index = engine.view.transcript.index_of[raw_id]
            record = engine.view.transcript.entries[index].record_bytes
            assert pane.current.text.encode() == record
            assert "verified" in pane.current.header
            await select(pilot, whole_fold)
            await wait_for_source(pilot)
            whole = engine.peek(whole_fold)
            assert pane.current.total == whole.total_bytes > len(pane.current.text)
            assert pane.current.text.encode() == whole.data[: pane.current.end]
            await pilot.press("right_square_bracket")
            await wait_for_source(pilot)
            assert pane.current is not None
            assert pane.current.offset == pane.current.end - len(pane.current.text.encode())
            assert pane.current.offset > 0
            await pilot.press("v")
            await wait_for_source(pilot)
            assert pane.current is not None
            assert pane.current.readable and pane.current.offset == 0
    assert_host_clean(engine, entries)


async def test_tree_opens_a_fold_without_expanding_it(replayed_engine: Engine) -> None:
    engine = replayed_engine
    whole_fold = consolidated(engine)
    entries = len(engine.view.transcript)
    with unchanged(engine):
        async with host(engine).run_test(size=SCREEN_SIZE) as pilot:
            await pilot.pause()
            screen = editor(pilot)
            before = len(screen.window_map.rows)
            await select(pilot, whole_fold)
            await pilot.press("right")
            children = engine.view.forest.folds[whole_fold].children
            rows = screen.window_map.rows
            opened = [row.handle for row in rows if row.depth == 1 and row.handle is not None]
            assert opened == list(children)
            assert len(rows) > before
            await pilot.press("left")
            assert len(screen.window_map.rows) == before
    assert whole_fold not in engine.view.forest.expanded
    assert_host_clean(engine, entries)


async def test_pin_then_unpin_a_raw_entry(replayed_engine: Engine) -> None:
    engine = replayed_engine
    raw_id = raw_entry(engine)
    entries = len(engine.view.transcript)
    async with host(engine).run_test(size=SCREEN_SIZE) as pilot:
        await pilot.pause()
        await select(pilot, raw_id)
        await pilot.press("p")
        dialog = await confirm(pilot, moves_bytes=False)
        assert any("pinned mass after" in line for line in dialog.plan.lines)
        index = engine.view.transcript.index_of[raw_id]
        assert engine.view.pinned == {index}
        screen = editor(pilot)
        row = screen.window_map.selected
        assert row is not None and "pinned" in screen.window_map.view_of(row).state
        bar = screen.query_one(BarFooter).bar
        assert bar.composition == engine.composition()
        assert bar.composition.counts.pins == 1
        await pilot.press("p")
        await confirm(pilot, moves_bytes=False)
        assert engine.view.pinned == set()
        assert "unpinned 1" in message(pilot)
    assert_host_clean(engine, entries)


async def test_pin_over_the_cap_shows_the_engines_refusal(replayed_engine: Engine) -> None:
    engine = replayed_engine
    whole_fold = consolidated(engine)
    entries = len(engine.view.transcript)
    with unchanged(engine):
        async with host(engine).run_test(size=SCREEN_SIZE) as pilot:
            await pilot.pause()
            await select(pilot, whole_fold)
            await pilot.press("p")
            await confirm(pilot, moves_bytes=False)
            assert message(pilot).startswith(f"refused: pin {whole_fold}:")
            assert "cap" in message(pilot)
    assert_host_clean(engine, entries)


async def test_unmark_and_its_refusal(replayed_engine: Engine) -> None:
    engine = replayed_engine
    withdrawn = span_holding_tool_mark(engine)
    lone_entry = _entry_id(engine, withdrawn.start)
    raw_id = raw_entry(engine)
    entries = len(engine.view.transcript)
    async with host(engine).run_test(size=SCREEN_SIZE) as pilot:
        await pilot.pause()
        with unchanged(engine):
            await select(pilot, raw_id)
            await pilot.press("u")
            assert message(pilot) == f"refused: {raw_id} is under no pending mark"
        await select(pilot, lone_entry)
        await pilot.press("u")
        await confirm(pilot, moves_bytes=False)
        assert withdrawn.id not in engine.view.marks
        assert message(pilot) == f"withdrew {withdrawn.id}"
        assert editor(pilot).query_one(BarFooter).bar.composition == engine.composition()
    assert_host_clean(engine, entries)


async def test_recut_picks_the_new_first_and_last_unit(replayed_engine: Engine) -> None:
    engine = replayed_engine
    newest = newest_mark(engine)
    first = newest.start
    # A shorter cut of at least four entries, ending on a whole unit (no result follows).
    last = next(
        index for index in range(first + 3, newest.end - 1) if not _is_result(engine, index + 1)
    )
    entries = len(engine.view.transcript)
    async with host(engine).run_test(size=SCREEN_SIZE) as pilot:
        await pilot.pause()
        await select(pilot, _entry_id(engine, first))
        await pilot.press("r")
        assert "FIRST" in message(pilot)
        await pilot.press("enter")
        assert "LAST" in message(pilot)
        await select(pilot, _entry_id(engine, last))
        await pilot.press("enter")
        await confirm(pilot, moves_bytes=False)
        mark = engine.view.marks[newest.id]
        assert (mark.start, mark.end) == (first, last + 1)
        assert message(pilot) == f"re-cut {newest.id}: {last + 1 - first} entries"
    assert_host_clean(engine, entries)


async def test_recut_through_a_tool_batch_is_refused(replayed_engine: Engine) -> None:
    engine = replayed_engine
    newest = newest_mark(engine)
    caller = next(
        index
        for index in range(newest.start + 1, newest.end - 1)
        if _calls_its_successor(engine, index)
    )
    entries = len(engine.view.transcript)
    with unchanged(engine):
        async with host(engine).run_test(size=SCREEN_SIZE) as pilot:
            await pilot.pause()
            await select(pilot, _entry_id(engine, newest.start))
            await pilot.press("r", "enter")
            # ``caller`` calls a tool whose result is the next entry: ending there splits the
            # batch.
            await select(pilot, _entry_id(engine, caller))
            await pilot.press("enter")
            await confirm(pilot, moves_bytes=False)
            assert message(pilot).startswith(f"refused: re-cut {newest.id}")
            # Escape during a re-cut leaves it without a change.
            await pilot.press("r")
            await pilot.press("escape")
            assert message(pilot) == "re-cut left, nothing changed"
            assert isinstance(pilot.app.screen, FoldEditorScreen)
    assert_host_clean(engine, entries)


async def test_write_a_brief_and_an_empty_one_refused(replayed_engine: Engine) -> None:
    engine = replayed_engine
    inner_mark = tool_mark(engine)  # the smallest pending mark over its first entry
    entries = len(engine.view.transcript)
    async with host(engine).run_test(size=SCREEN_SIZE) as pilot:
        await pilot.pause()
        await select(pilot, _entry_id(engine, inner_mark.start))
        with unchanged(engine):
            await pilot.press("b")
            dialog = pilot.app.screen
            assert isinstance(dialog, BriefEditor) and dialog.mark_id == inner_mark.id
            dialog.query_one(TextArea).text = "   "
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert message(pilot).startswith(
                f"refused: brief {inner_mark.id}: text must be a brief"
            )
        await pilot.press("b")
        await pilot.pause()
        area = pilot.app.screen.query_one(TextArea)
        area.text = "Chunk reads of src/vault"
        area.move_cursor(area.document.end)
        await pilot.press(*".ts")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert engine.view.marks[inner_mark.id].brief == "Chunk reads of src/vault.ts"
        assert message(pilot) == f"brief written for {inner_mark.id}"
    assert_host_clean(engine, entries)


async def test_expand_moves_bytes_then_refold_stages_it(replayed_engine: Engine) -> None:
    engine = replayed_engine
    span = collapsed_span(engine)
    entries = len(engine.view.transcript)
    commits = engine.view.commit_count
    async with host(engine).run_test(size=SCREEN_SIZE) as pilot:
        await pilot.pause()
        with unchanged(engine):
            await select(pilot, span)
            await pilot.press("f")
            await confirm(pilot, moves_bytes=False)
            refusal = f"fold {span} is not expanded"
            assert message(pilot) == f"refused: refold {span}: {refusal}"
        await select(pilot, span)
        await pilot.press("e")
        dialog = await confirm(pilot, moves_bytes=True)
        assert any("uncached tokens" in line for line in dialog.plan.lines)
        assert span in engine.view.forest.expanded
        assert engine.view.commit_count == commits + 1
        screen = editor(pilot)
        row = screen.window_map.selected
        assert row is not None and row.handle == span
        assert screen.window_map.view_of(row).state.startswith("expanded")
        assert screen.query_one(BarFooter).bar.composition == engine.composition()
        await pilot.press("f")
        await confirm(pilot, moves_bytes=False)
        assert engine.view.staged_refolds == {span}
        assert "refold staged" in screen.window_map.view_of(row).state
    assert_host_clean(engine, entries)
    assert engine.view.audit_counts.rewrites >= 1


async def test_expand_inside_a_collapsed_fold_is_refused(replayed_engine: Engine) -> None:
    engine = replayed_engine
    raw_id = raw_entry(engine)
    whole_fold = consolidated(engine)
    inner = nested(engine)
    entries = len(engine.view.transcript)
    with unchanged(engine):
        async with host(engine).run_test(size=SCREEN_SIZE) as pilot:
            await pilot.pause()
            await select(pilot, whole_fold)
            await pilot.press("right")
            await select(pilot, inner)
            await pilot.press("e")
            await confirm(pilot, moves_bytes=True)
            assert f"sits inside collapsed fold {whole_fold}" in message(pilot)
            await select(pilot, raw_id)
            await pilot.press("e")
            assert message(pilot) == f"refused: expand applies to a fold; {raw_id} is an entry"
    assert_host_clean(engine, entries)


async def test_commit_now_with_its_preview_then_nothing_left(replayed_engine: Engine) -> None:
    engine = replayed_engine
    entries = len(engine.view.transcript)
    preview = engine.preview_commit()
    async with host(engine).run_test(size=SCREEN_SIZE) as pilot:
        await pilot.pause()
        before = editor(pilot).query_one(BarFooter).bar.composition
        await pilot.press("c")
        dialog = await confirm(pilot, moves_bytes=True)
        assert (
            f"~{preview.expected_before:,} → ~{preview.expected_after:,} "
            f"(~{preview.freed_tokens:,} freed)" in "\n".join(dialog.plan.lines)
        )
        assert f"uncached tokens the rewrite costs: {preview.uncached_tokens:,}" in "\n".join(
            dialog.plan.lines
        )
        assert engine.view.projection.tokens == preview.tokens_after
        bar = editor(pilot).query_one(BarFooter).bar
        assert bar.composition == engine.composition() != before
        again = engine.preview_commit()
        if again.refusal is not None:
            with unchanged(engine):
                await pilot.press("c")
                assert message(pilot) == f"refused: commit refused: {again.refusal}"
                assert isinstance(pilot.app.screen, FoldEditorScreen)
    assert_host_clean(engine, entries)


async def test_filter_finds_entries_and_folds_by_text(replayed_engine: Engine) -> None:
    engine = replayed_engine
    entries = len(engine.view.transcript)
    needle = "apply_patch"
    with unchanged(engine):
        async with host(engine).run_test(size=SCREEN_SIZE) as pilot:
            await pilot.pause()
            await pilot.press("slash")
            assert isinstance(pilot.app.focused, Input)
            await pilot.press(*needle, "enter")
            rows = editor(pilot).window_map.rows
            assert rows
            for row in rows:
                if row.handle is None:
                    record = engine.view.transcript.entries[row.entry_index].record_bytes
                    assert needle.encode() in record.lower()
                else:
                    source = engine.peek(row.handle).data
                    assert needle.encode() in source.lower()
            matching = sum(
                needle.encode() in entry.record_bytes.lower() for entry in engine.view.transcript
            )
            assert sum(row.handle is None for row in rows) == matching
            assert f"{len(rows):,} rows match" in message(pilot)
            await pilot.press("escape")
            assert editor(pilot).window_map.filter_text == ""
    assert_host_clean(engine, entries)


async def test_read_only_refuses_every_action(replayed_engine: Engine) -> None:
    engine = replayed_engine
    entries = len(engine.view.transcript)
    with unchanged(engine):
        async with host(engine, read_only=True).run_test(size=SCREEN_SIZE) as pilot:
            await pilot.pause()
            await select(pilot, _entry_id(engine, tool_mark(engine).start))
            for key, verb in (
                ("p", "pin"),
                ("u", "unmark"),
                ("r", "re-cut"),
                ("b", "brief"),
                ("e", "expand"),
                ("f", "refold"),
                ("c", "commit"),
            ):
                await pilot.press(key)
                assert isinstance(pilot.app.screen, FoldEditorScreen), key
                assert message(pilot) == (
                    f"refused: {verb}: this session is open read-only; nothing was changed"
                )
            await wait_for_source(pilot)
            assert editor(pilot).source_pane.current is not None  # looking is still free
    assert_host_clean(engine, entries)


async def test_escape_leaves_the_screen(replayed_engine: Engine) -> None:
    engine = replayed_engine
    with unchanged(engine):
        async with host(engine).run_test(size=SCREEN_SIZE) as pilot:
            await pilot.pause()
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(pilot.app.screen, FoldEditorScreen)
