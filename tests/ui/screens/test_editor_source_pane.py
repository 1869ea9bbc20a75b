"""The editor's source pane peeks off the UI thread (issue 23): keys keep acting while a
2,000-entry fold is read and verified, and only the newest cursor rest is ever shown.

The pane's reads are held on events the test controls (the real ``read_slice`` runs once
released), so what is asserted is the order of events, never a duration.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from rich.text import Text
from textual.message import Message
from textual.pilot import Pilot
from textual.widgets import Static
from textual.worker import WorkerState

from pifold_core.engine import Engine
from pifold_core.state_folder import LOG_NAME
from pifold_core.store import FoldStore
from pifold_tui.screens.editor import FoldEditorScreen, source_pane
from pifold_tui.screens.editor.actions import row_identifier
from pifold_tui.screens.editor.source_pane import VERIFYING, SourcePane
from pifold_tui.screens.editor.source_reading import SourceSlice, read_slice
from tests.core.builders import CharCounter, SessionBuilder, drive, small_options
from tests.core.engine_checks import assert_clean_audit, unchanged
from tests.ui.screens.editor_fixtures import (
    SCREEN_SIZE,
    ScreenHost,
    assert_host_clean,
    wait_for_source,
)

LARGE_FOLD = 2_000
"""Entries the large fold spans at least."""

HELD_AT_MOST_S = 10.0
"""A held read gives up waiting after this long (a guard against a hung test, never a
speed check: the assertions are about what happened before the release)."""


@pytest.fixture
def large_fold(tmp_path: Path) -> Iterator[tuple[Engine, str]]:
    """A session whose one tool batch of 1,999 results is folded: the span fold over the
    turn holds 2,001 entries. Yields the engine and that fold's handle."""
    session = SessionBuilder()
    session.user("Read every module")
    session.batch([40] * (LARGE_FOLD - 1), text="Reading them all.")
    session.assistant("Done.")
    session.user("next?")
    session.assistant("Waiting.")
    options = small_options(budget=2_000_000, min_fold_chars=2_000)
    engine = Engine.open(tmp_path / "state", options, CharCounter())
    try:
        drive(engine, session.entries)
        engine.commit_now()
        engine.prepare_request()
        largest = max(engine.view.forest.folds.values(), key=lambda fold: fold.end - fold.start)
        assert largest.end - largest.start >= LARGE_FOLD
        yield engine, largest.handle
    finally:
        engine.close()


class HeldReads:
    """``read_slice`` held per identifier until the test releases it."""

    def __init__(self) -> None:
        self.started: list[str] = []
        """Identifiers whose read began, in order."""
        self.threads: set[int] = set()
        """The threads the reads ran on."""
        self.releases: dict[str, threading.Event] = {}
        """Per identifier, the event that lets its reads go on."""
        self.finished: list[str] = []
        """Identifiers whose read returned, in order."""

    def release(self, identifier: str) -> None:
        self.releases.setdefault(identifier, threading.Event()).set()

    def __call__(
        self,
        engine: Engine,
        identifier: str,
        offset: int,
        readable: bool,
        wanted: Callable[[], bool],
    ) -> SourceSlice:
        self.threads.add(threading.get_ident())
        self.started.append(identifier)
        self.releases.setdefault(identifier, threading.Event()).wait(HELD_AT_MOST_S)
        found = read_slice(engine, identifier, offset, readable, wanted)
        self.finished.append(identifier)
        return found


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[HeldReads]:
    reads = HeldReads()
    monkeypatch.setattr(source_pane, "read_slice", reads)
    yield reads
    for event in reads.releases.values():
        event.set()  # never leave a worker thread waiting after the test


async def until(pilot: Pilot[None], condition: Callable[[], bool]) -> None:
    """Let the app run until ``condition`` holds (bounded, so a broken app fails, not hangs)."""
    for _ in range(400):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError("the app never reached the awaited state")


def editor_of(pilot: Pilot[None]) -> FoldEditorScreen:
    screen = pilot.app.screen
    assert isinstance(screen, FoldEditorScreen)
    return screen


def position_of(screen: FoldEditorScreen, identifier: str) -> int:
    return next(
        index
        for index, row in enumerate(screen.window_map.rows)
        if row_identifier(screen.engine, row) == identifier
    )


def header_text(screen: FoldEditorScreen) -> str:
    rendered = screen.source_pane.query_one("#source-header", Static).render()
    return rendered.plain if isinstance(rendered, Text) else str(rendered)


async def test_keys_act_while_a_large_folds_peek_loads(
    large_fold: tuple[Engine, str], held: HeldReads
) -> None:
    engine, handle = large_fold
    entries = len(engine.view.transcript)
    with unchanged(engine):
        async with ScreenHost(FoldEditorScreen(engine)).run_test(size=SCREEN_SIZE) as pilot:
            await pilot.pause()
            screen = editor_of(pilot)
            window_map, pane = screen.window_map, screen.source_pane
            position = position_of(screen, handle)
            window_map.move_to(position)
            await until(pilot, lambda: handle in held.started)

            # The fold's read is in flight on another thread, held: the pane says so.
            assert held.threads and threading.get_ident() not in held.threads
            assert f"{handle} · {VERIFYING}" in header_text(screen)
            assert pane.in_flight and pane.current is None
            loading = pane.reading
            assert loading is not None and loading.state is WorkerState.RUNNING

            # Keys act meanwhile: the cursor moves down and back, the filter opens and closes.
            await pilot.press("down", "down")
            assert window_map.cursor == position + 2
            await pilot.press("up", "up")
            assert window_map.cursor == position
            await pilot.press("slash")
            assert screen.query_one("#editor-filter").has_focus
            await pilot.press("escape")
            assert window_map.has_focus
            assert handle not in held.finished, "the read finished before it was released"

            # Released, the pane shows the fold's verified source.
            held.release(handle)
            await wait_for_source(pilot)
            shown = pane.current
            assert shown is not None and shown.identifier == handle
            whole = engine.peek(handle)
            assert shown.total == whole.total_bytes > len(shown.text)
            assert shown.text.encode() == whole.data[: shown.end]
            # Only the entries under the slice were read (issue 23), each one verified.
            assert shown.entries_read < 10 < shown.entries_total
            assert f"of {shown.entries_total:,} entries read" in header_text(screen)
            assert "verified" in header_text(screen)
    assert_host_clean(engine, entries)


async def test_a_newer_rest_wins_over_an_older_load_that_ends_later(
    large_fold: tuple[Engine, str], held: HeldReads
) -> None:
    engine, handle = large_fold
    entries = len(engine.view.transcript)
    arrived: list[SourcePane.Loaded] = []

    def record(message: Message) -> None:
        if isinstance(message, SourcePane.Loaded):
            arrived.append(message)

    def arrived_for(identifier: str) -> bool:
        return any(
            message.found is not None and message.found.identifier == identifier
            for message in arrived
        )

    host = ScreenHost(FoldEditorScreen(engine))
    with unchanged(engine):
        async with host.run_test(size=SCREEN_SIZE, message_hook=record) as pilot:
            await pilot.pause()
            screen = editor_of(pilot)
            window_map, pane = screen.window_map, screen.source_pane
            window_map.move_to(position_of(screen, handle))
            await until(pilot, lambda: handle in held.started)

            # The cursor rests on the last entry while the fold still loads.
            await pilot.press("end")
            selected = window_map.selected
            assert selected is not None
            last = row_identifier(engine, selected)
            await until(pilot, lambda: last in held.started)
            held.release(last)
            await wait_for_source(pilot)
            assert pane.current is not None and pane.current.identifier == last

            # The fold's read ends after it: its slice arrives and is dropped.
            assert not arrived_for(handle)
            held.release(handle)
            await until(pilot, lambda: arrived_for(handle))
            await pilot.pause()
            assert pane.current is not None and pane.current.identifier == last
            last_record = engine.view.transcript.entries[-1].record_bytes
            assert pane.current.text.encode() == last_record[: pane.current.end]
    assert_host_clean(engine, entries)


async def test_a_damaged_fold_object_is_named_and_keys_still_act(
    large_fold: tuple[Engine, str], tmp_path: Path
) -> None:
    """A store object found damaged in the worker is shown as data loss, never as an
    ordinary refusal, and the screen stays usable."""
    engine, handle = large_fold
    entries = len(engine.view.transcript)
    digest = engine.view.forest.folds[handle].source_digest
    path = FoldStore(tmp_path / "state" / "store", tmp_path / "state" / LOG_NAME).path_of(digest)
    path.chmod(0o644)
    damaged = bytearray(path.read_bytes())
    damaged[-3] ^= 0x01
    path.write_bytes(bytes(damaged))
    async with ScreenHost(FoldEditorScreen(engine)).run_test(size=SCREEN_SIZE) as pilot:
        await pilot.pause()
        screen = editor_of(pilot)
        pane = screen.source_pane
        position = position_of(screen, handle)
        screen.window_map.move_to(position)
        await wait_for_source(pilot)
        assert pane.current is None and pane.error is not None
        assert pane.error.startswith("STORE OBJECT CORRUPT") and digest in pane.error
        assert header_text(screen) == handle
        await pilot.press("down")
        assert screen.window_map.cursor == position + 1
    assert len(engine.view.transcript) == entries
    assert_clean_audit(engine)


async def test_scrolling_to_the_end_of_a_slice_reads_on(large_fold: tuple[Engine, str]) -> None:
    """The pane shows a slice; scrolled to its end, it reads the next one (bounded, verified)
    and adds it below, where the reader is; a page then starts after all that is shown."""
    engine, handle = large_fold
    entries = len(engine.view.transcript)
    whole = engine.peek(handle).data
    with unchanged(engine):
        async with ScreenHost(FoldEditorScreen(engine)).run_test(size=SCREEN_SIZE) as pilot:
            await pilot.pause()
            screen = editor_of(pilot)
            pane = screen.source_pane
            screen.window_map.move_to(position_of(screen, handle))
            await wait_for_source(pilot)
            first = pane.current
            assert first is not None and first.end < first.total
            pane.scroll_end(animate=False, immediate=True)
            await until(pilot, lambda: pane.current is not None and pane.current.end > first.end)
            grown = pane.current
            assert grown is not None and (grown.offset, grown.identifier) == (0, handle)
            assert grown.text.encode() == whole[: grown.end]
            assert grown.entries_read < grown.entries_total
            await pilot.pause()
            assert pane.scroll_y > 0, "the added bytes moved the reader back to the top"
            await pilot.press("right_square_bracket")
            await wait_for_source(pilot)
            assert pane.current is not None and pane.current.offset == grown.end
            assert pane.current.text.encode() == whole[grown.end : pane.current.end]
    assert_host_clean(engine, entries)
