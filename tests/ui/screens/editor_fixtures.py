"""A tiny host app for the editor and settings screens, and the checks every test repeats."""

from __future__ import annotations

from contextlib import suppress

from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen
from textual.worker import WorkerCancelled

from pifold_core.engine import Engine
from pifold_tui.screens.editor import FoldEditorScreen
from pifold_tui.screens.editor.actions import row_identifier
from tests.core.engine_checks import assert_clean_audit, assert_lossless

SCREEN_SIZE = (150, 40)
"""Wide enough for the map's columns beside the source pane."""

SOURCE_WAIT = 0.2
"""Seconds to let the source pane's short rest timer fire."""

SOURCE_POLL_S = 0.05
"""How often :func:`wait_for_source` looks again while the rest timer has not fired."""

SOURCE_POLLS = 400
"""How many times it looks before failing (a guard against a hang, not a speed check)."""


async def wait_for_source(pilot: Pilot[None]) -> None:
    """Let the source pane's rest timer fire, then wait until the pane shows the selected
    row's source, verified (the peek runs in a worker thread; a superseded one is
    cancelled, so wait for the newest). Bounded, so a broken pane fails rather than hangs."""
    await pilot.pause(SOURCE_WAIT)
    editors = [screen for screen in pilot.app.screen_stack if isinstance(screen, FoldEditorScreen)]
    for editor in editors:
        row = editor.window_map.selected
        expected = row_identifier(editor.engine, row) if row is not None else None
        pane = editor.source_pane
        for _ in range(SOURCE_POLLS):
            if pane.identifier == expected and not pane.in_flight:
                break
            if pane.in_flight and pane.reading is not None:
                with suppress(WorkerCancelled):
                    await pane.reading.wait()
            await pilot.pause(SOURCE_POLL_S)
        else:
            raise AssertionError(f"the source pane never showed {expected}")
    # The loaded slice is set; the layout it asks for (a scroll bar once the text is taller
    # than the pane, which narrows the text) runs on a screen's next update, not at once.
    # Pilot updates only the top screen: an editor under a modal (the commit plan's
    # question) is updated here, as Pilot updates the top one.
    for _ in range(2):
        for editor in editors:
            editor._on_timer_update()
        await pilot.pause()


class ScreenHost(App[None]):
    """Pushes one screen over an empty default screen, as the inspect app will."""

    def __init__(self, screen: Screen[None], theme: str = "textual-dark") -> None:
        super().__init__()
        self.subject = screen
        self.theme = theme

    def on_mount(self) -> None:
        self.push_screen(self.subject)


def assert_host_clean(engine: Engine, entries_before: int) -> None:
    """The screens added no entry, and the next request the host sends is clean: every
    rewrite the screens caused is attributed (DESIGN §4), and every fold still peeks back
    exactly its entries."""
    assert len(engine.view.transcript) == entries_before, "a screen added an entry"
    engine.prepare_request()
    assert_clean_audit(engine)
    assert_lossless(engine)
