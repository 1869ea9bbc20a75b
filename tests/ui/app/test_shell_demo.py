"""No key: the app plays the bundled real session live through the scripted provider. The
messages stream, the bar fills, a commit lands and the window drops to the band; the pause key
holds the stream; /fold-editor opens on the live engine (read-only while it plays) and peeks;
what needs a model is refused, saying how to connect one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.widgets import Static

from pifold_agent.loop.events import CommitDone, MessageUpdate
from pifold_agent.run_input import HeadlessOptions
from pifold_tui.app.app import PifoldApp
from pifold_tui.app.demo import CONNECT_HINT, DEMO_BUDGET
from pifold_tui.app.info_screens import InfoScreen
from pifold_tui.app.launch import model_configured, names_a_model
from pifold_tui.app.no_model import UNSENT_IN_DEMO
from pifold_tui.screens.editor import FoldEditorScreen
from tests.ui.app.shell_fixtures import (
    EventLog,
    StubPrompt,
    assert_session_consistent,
    demo_loader,
    stub_app,
)

SIZE = (110, 32)


def demo_app(tmp_path: Path) -> PifoldApp:
    return stub_app(demo_loader(tmp_path), tmp_path)


async def test_the_demo_plays_commits_pauses_and_opens_the_editor(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await app.loaded.wait()
        session = app.session
        assert session is not None and session.demo and session.engine is not None
        assert session.engine.options.budget == DEMO_BUDGET
        assert CONNECT_HINT in app.notes
        log = app.query_one(EventLog)
        for _ in range(3_000):
            await pilot.pause(0.01)
            if any(isinstance(event, CommitDone) for event in log.events):
                break
        commit = next(event for event in log.events if isinstance(event, CommitDone))
        assert commit.tokens_after < commit.tokens_before
        assert commit.tokens_after <= DEMO_BUDGET * session.engine.options.thresholds.max_target
        assert any(isinstance(event, MessageUpdate) for event in log.events)
        bar = app.bar
        assert bar is not None and bar.composition is not None
        assert bar.composition.counts.folds > 0

        await pilot.press("f2")
        assert app.gate is not None and app.gate.paused
        await pilot.pause(0.2)
        seen = len(log.events)
        await pilot.pause(0.3)
        assert len(log.events) == seen  # nothing streams while paused

        app.query_one(StubPrompt).type_line("/fold-editor")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FoldEditorScreen) and screen.read_only
        fold = next(iter(session.engine.view.forest.folds.values()))
        assert session.engine.peek(fold.handle).complete
        await pilot.press("escape")

        app.query_one(StubPrompt).type_line("fix the bug please")
        app.query_one(StubPrompt).type_line("/model")
        app.query_one(StubPrompt).type_line("/session")
        await pilot.pause()
        assert app.notes[-2] == UNSENT_IN_DEMO  # a message is not sent: there is no model
        assert app.notes[-1].startswith("/model is not available while the agent works")
        assert isinstance(app.screen, InfoScreen)
        facts = str(app.screen.query_one("#info-body", Static).render())
        assert facts.startswith("the demo: messages in memory, engine state in a temporary")
        await pilot.press("escape")
        await pilot.press("f2")
        assert not app.gate.paused
        assert app.bridge is not None and app.bridge.abort()  # Esc would only pause the demo
        await app.bridge.wait()
        assert_session_consistent(session.engine)


@pytest.mark.parametrize(
    ("environment", "options", "live"),
    [
        ({}, HeadlessOptions(None), False),
        ({"ANTHROPIC_API_KEY": "k"}, HeadlessOptions(None), True),
        ({"OPENAI_API_KEY": "k"}, HeadlessOptions(None, provider="anthropic"), False),
        ({}, HeadlessOptions(None, base_url="http://127.0.0.1:1/v1"), True),
        ({"MY_KEY": "k"}, HeadlessOptions(None, api_key_env="MY_KEY"), True),
        ({}, HeadlessOptions(None, provider="scripted"), True),
    ],
)
def test_a_model_is_configured_only_by_a_key_a_url_or_a_script(
    environment: dict[str, str], options: HeadlessOptions, live: bool
) -> None:
    assert model_configured(options, environment) is live


def test_naming_a_model_or_provider_asks_for_its_key() -> None:
    assert not names_a_model(HeadlessOptions(None, cwd=Path(os.sep)))
    assert not names_a_model(HeadlessOptions(None, continue_session=True))
    assert names_a_model(HeadlessOptions(None, provider="openai"))
    assert names_a_model(HeadlessOptions(None, model="claude-sonnet-4-5"))
