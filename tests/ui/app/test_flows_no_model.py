"""``pifold --resume ID`` and ``--continue`` with no API key (issue 13): the app opens that
session to look at, its transcript, bar and fold screens, takes no prompt and says how to
connect a model; options that name a model say which key to set, and nothing opens."""

from __future__ import annotations

from pathlib import Path

import pytest

from pifold_agent.run_input import HeadlessOptions
from pifold_tui.app.app import PifoldApp
from pifold_tui.app.footer import SessionFooter
from pifold_tui.app.launch import (
    choose_loader,
    conversation_for,
    open_prompt_project,
    prompt_for,
)
from pifold_tui.app.no_model import (
    DEMO_LINE,
    NO_MODEL_HINT,
    NO_MODEL_LINE,
    NO_MODEL_NAME,
    UNSENT_IN_SESSION,
    NoModelProvider,
)
from pifold_tui.app.prompt import PromptArea
from pifold_tui.app.session_setup import open_live
from pifold_tui.screens.editor import FoldEditorScreen
from tests.ui.app.harness import (
    SCRIPTS,
    SIZE,
    Folders,
    assert_session_consistent,
    conversation,
    engine_of,
    opened,
    prepare,
    send,
)
from tests.ui.app.test_flows import LONG_TURN_BUDGET


async def recorded_session(folders: Folders) -> str:
    """The long turn (it commits) run to its end through the loop with the scripted
    provider and closed, as an earlier run would leave it; its id."""
    command_line = HeadlessOptions(
        prompt=None,
        provider="scripted",
        script=SCRIPTS / "long_turn.jsonl",
        budget=LONG_TURN_BUDGET,
        cwd=folders.cwd,
    )
    session = open_live(command_line, None)
    try:
        await session.agent.run("count ten blocks")
        assert session.engine is not None and session.engine.view.commit_count > 0
        assert session.session_file is not None
        return session.session_file.id
    finally:
        session.close()


@pytest.mark.parametrize("how", ["resume", "continue"])
async def test_resume_with_no_key_opens_the_session_to_look_at(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    folders = prepare(tmp_path, monkeypatch)
    session_id = await recorded_session(folders)
    command_line = (
        HeadlessOptions(None, resume=session_id[:8], cwd=folders.cwd)
        if how == "resume"
        else HeadlessOptions(None, continue_session=True, cwd=folders.cwd)
    )
    loader = choose_loader(command_line, {})
    assert not isinstance(loader, str), loader
    app = PifoldApp(
        loader, conversation_for, prompt_for, cwd=folders.cwd, on_session=open_prompt_project
    )
    async with app.run_test(size=SIZE) as pilot:
        await opened(app, pilot)
        session = app.session
        assert session is not None and session.session_file is not None
        assert session.session_file.id == session_id
        assert isinstance(session.provider, NoModelProvider)
        engine = engine_of(app)
        entries = list(session.recorder.recorded())
        # The transcript read from the session, the bar over its engine, its fold rows.
        assert set(conversation(app).shown) == {entry.id for entry in entries}
        assert app.bar is not None and app.bar.composition == engine.composition()
        assert engine.view.commit_count > 0 and conversation(app).fold_views
        assert app.query_one(SessionFooter).model == NO_MODEL_NAME
        assert NO_MODEL_HINT in app.notes
        prompt = app.query_one(PromptArea)
        assert prompt.hint == NO_MODEL_LINE  # one row at 80 columns; the toast says the rest

        await send(pilot, "and now count to twenty")
        assert app.notes[-1] == UNSENT_IN_SESSION
        assert prompt.text == "and now count to twenty"  # kept in the input, not sent
        assert prompt.history.entries[-1] == "and now count to twenty"
        assert not app.running and list(session.recorder.recorded()) == entries
        prompt.input.load_text("")

        for command in ("/new", "/compact"):  # what needs the model says so, changes nothing
            await send(pilot, command)
            assert app.notes[-1] == f"{command} needs a model. {NO_MODEL_HINT}"
            assert app.session is session and list(session.recorder.recorded()) == entries

        await send(pilot, "/fold-editor")
        assert isinstance(app.screen, FoldEditorScreen)  # the fold screens work on it
        await pilot.press("escape")
        await pilot.pause()
        assert_session_consistent(engine)


async def test_continue_with_no_key_and_no_session_is_refused_saying_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folders = prepare(tmp_path, monkeypatch)
    loader = choose_loader(HeadlessOptions(None, continue_session=True, cwd=folders.cwd), {})
    assert not isinstance(loader, str)
    app = PifoldApp(loader, conversation_for, prompt_for, cwd=folders.cwd)
    async with app.run_test(size=SIZE):
        await app.loaded.wait()
    assert app.failure is not None
    assert app.failure.startswith(f"no session to continue in {folders.cwd.resolve()}")
    assert "demo" in app.failure


@pytest.mark.parametrize(
    ("command_line", "said"),
    [
        (HeadlessOptions(None, model="claude-sonnet-4-5"), "ANTHROPIC_API_KEY"),
        (HeadlessOptions(None, provider="openai"), "OPENAI_API_KEY is not set"),
        (HeadlessOptions(None, model="nonexistent"), "'nonexistent' is not in the model table"),
        (HeadlessOptions(None, model="claude-sonnet-4-5", resume="abc"), "ANTHROPIC_API_KEY"),
    ],
)
def test_naming_a_model_with_no_key_is_refused_saying_what_to_set(
    command_line: HeadlessOptions, said: str
) -> None:
    refusal = choose_loader(command_line, {})
    assert isinstance(refusal, str)
    assert said in refusal
    assert "pifold -p" not in refusal  # the app's own words, not the headless run's


def test_the_prompt_lines_with_no_model_fit_one_row_of_80_columns() -> None:
    # The hint line is padded by two columns each side.
    for line in (DEMO_LINE, NO_MODEL_LINE):
        assert len(line) <= 80 - 4, line
        assert "ANTHROPIC_API_KEY" in line and "OPENAI_API_KEY" in line
