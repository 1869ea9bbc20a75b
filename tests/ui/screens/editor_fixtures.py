"""A tiny host app for the editor and settings screens, and the checks every test repeats."""

from __future__ import annotations

from contextlib import suppress

from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen
from textual.worker import WorkerCancelled

from pifold_core.engine import Engine
from pifold_tui.screens.editor import FoldEditorScreen
from tests.core.engine_checks import assert_clean_audit, assert_lossless

SCREEN_SIZE = (150, 40)
"""Wide enough for the map's columns beside the source pane."""

SOURCE_WAIT = 0.2
"""Seconds to let the source pane's short rest timer fire."""


async def wait_for_source(pilot: Pilot[None]) -> None:
    """Let the source pane's rest timer fire, then wait until its newest peek is shown (the
    peek runs in a worker thread; a superseded one is cancelled, so wait for the newest)."""
    await pilot.pause(SOURCE_WAIT)
    editors = [screen for screen in pilot.app.screen_stack if isinstance(screen, FoldEditorScreen)]
    for editor in editors:
        pane = editor.source_pane
        while pane.in_flight and pane.reading is not None:
            with suppress(WorkerCancelled):
                await pane.reading.wait()
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
