"""The app as a person uses it (issue 13): the real conversation, prompt, bar and footer over
a real session, driven with Pilot key presses and the scripted provider.

Every flow ends by checking the session: zero unattributed rewrites, every fold verified
byte for byte, and a reopen beside the live engine rebuilding the same state.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from pifold_agent.loop.approval import Approver
from pifold_agent.loop.batch import ABORTED_RESULT
from pifold_agent.loop.events import CommitDone, MessageEnd
from pifold_agent.native_window import NativeWindow
from pifold_agent.sessions import SessionFile
from pifold_tui.app.app import Launch, PifoldApp
from pifold_tui.app.demo import open_demo
from pifold_tui.app.footer import SessionFooter
from pifold_tui.app.launch import conversation_for, open_prompt_project, prompt_for
from pifold_tui.app.no_model import UNSENT_IN_DEMO
from pifold_tui.screens.editor import FoldEditorScreen
from pifold_tui.screens.fold import FoldScreen
from tests.ui.app.harness import (
    GREETING,
    SIZE,
    assert_session_consistent,
    conversation,
    engine_of,
    flow_app,
    opened,
    options,
    prepare,
    prompt_area,
    release,
    run_to_end,
    send,
)

LONG_TURN_BUDGET = 10_000
"""The budget the long turn runs at: small enough that it commits between its tool batches,
with room above the floor (host prompt and tools) for a commit to buy runway, without which
the runway rule holds it back (at 6,000 it no longer commits at all)."""


async def test_a_prompt_streams_tool_calls_and_the_bar_moves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folders = prepare(tmp_path, monkeypatch)
    app = flow_app(options(folders, "tools.jsonl", yes=True))
    async with app.run_test(size=SIZE) as pilot:
        watch = await opened(app, pilot)
        bar = app.bar
        assert bar is not None
        empty = bar.composition
        await send(pilot, "make greet say hello, world")
        assert prompt_area(app).text == ""  # Enter sent it and cleared the input
        await run_to_end(app, pilot)

        types = watch.types()
        assert types[0] == "run_start" and types[-1] == "run_end"
        assert "message_update" in types  # the replies streamed
        calls = conversation(app).calls
        assert sorted(calls) == ["bash1", "edit1", "ls1", "read1"]
        assert [calls[name].state for name in ("read1", "edit1", "ls1")] == ["done"] * 3
        assert calls["bash1"].state == "error"  # check.py exits 3 once the edit landed
        assert "exit" in (calls["bash1"].result.text if calls["bash1"].result else "")
        assert (folders.cwd / "src" / "greet.py").read_text() == GREETING.replace(
            '"hello"', '"hello, world"'
        )
        # The second user turn of the script landed as a follow-up, shown as a user row.
        users = [
            event.entry.text
            for event in watch.events
            if isinstance(event, MessageEnd) and event.entry.kind == "user"
        ]
        assert users == ["make greet say hello, world", "and what does ls show?"]
        assert bar.composition is not None and bar.composition != empty
        footer = app.query_one(SessionFooter)
        assert footer.totals.requests == 6
        assert_session_consistent(engine_of(app))


async def test_a_commit_inside_a_long_turn_repaints_the_bar_without_a_new_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folders = prepare(tmp_path, monkeypatch)
    app = flow_app(options(folders, "long_turn.jsonl", budget=LONG_TURN_BUDGET, yes=True))
    async with app.run_test(size=SIZE) as pilot:
        await opened(app, pilot)
        engine = engine_of(app)
        seen: list[tuple[bool, int]] = []

        def at_commit(event: object) -> None:
            # Taken as the commit is delivered: the bar must already show the new window.
            if isinstance(event, CommitDone) and app.bar is not None:
                users = sum(entry.kind == "user" for entry in engine.view.transcript.entries)
                seen.append((app.bar.composition == engine.composition(), users))

        assert app.session is not None
        app.session.agent.subscribe(at_commit)
        await send(pilot, "count ten blocks")
        await run_to_end(app, pilot)

        assert seen, "no commit landed inside the turn"
        assert all(repainted and users == 1 for repainted, users in seen)
        assert engine.view.commit_count == len(seen)
        notices = [row for row in conversation(app).rows() if "commit" in row.classes]
        assert len(notices) == len(seen)
        assert_session_consistent(engine)


async def test_slash_fold_commits_and_the_bar_repaints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folders = prepare(tmp_path, monkeypatch)
    app = flow_app(options(folders, "long_turn.jsonl", budget=LONG_TURN_BUDGET, yes=True))
    async with app.run_test(size=SIZE) as pilot:
        await opened(app, pilot)
        await send(pilot, "count ten blocks")
        await run_to_end(app, pilot)
        engine = engine_of(app)
        commits, bar = engine.view.commit_count, app.bar
        assert bar is not None
        before = bar.composition
        await send(pilot, "/fold")
        assert isinstance(app.screen, FoldScreen)
        await pilot.press("enter")
        await pilot.pause()
        assert engine.view.commit_count == commits + 1 and not engine.view.marks
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, FoldScreen)
        assert bar.composition == engine.composition() != before
        assert_session_consistent(engine)


async def test_escape_aborts_a_running_tool_and_the_session_stays_consistent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folders = prepare(tmp_path, monkeypatch)
    app = flow_app(options(folders, "held_batch.jsonl", yes=True))
    async with app.run_test(size=SIZE) as pilot:
        watch = await opened(app, pilot)
        await send(pilot, "wait for it")
        await watch.until_type("tool_execution_start")
        assert prompt_area(app).running
        await pilot.press("escape")
        await run_to_end(app, pilot)

        end = watch.events[-1]
        assert end.type == "run_end" and getattr(end, "outcome", None) == "aborted"
        assert not app.running and not prompt_area(app).running
        call = conversation(app).calls["wait1"]
        assert call.result is not None and call.result.text == ABORTED_RESULT
        engine = engine_of(app)
        assert_session_consistent(engine)
        assert app.session is not None and app.session.session_file is not None
        path = app.session.session_file.path
        logged = [entry.record_bytes for entry in engine.view.transcript.entries]
        await pilot.press("ctrl+q")
    recorded = SessionFile.open(path)
    try:
        kinds = [entry.kind for entry in recorded.messages()]
        assert kinds == ["user", "assistant", "tool_result"]
        assert [entry.record_bytes for entry in recorded.messages()] == logged
    finally:
        recorded.close()


async def test_a_message_typed_during_the_batch_is_queued_and_lands_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folders = prepare(tmp_path, monkeypatch)
    app = flow_app(options(folders, "held_batch.jsonl", yes=True))
    async with app.run_test(size=SIZE) as pilot:
        watch = await opened(app, pilot)
        await send(pilot, "wait for it")
        await watch.until_type("tool_execution_start")
        await send(pilot, "use the other folder")
        strip = prompt_area(app).strip
        assert [item.text for item in strip.queued] == ["use the other folder"]
        assert strip.display  # shown until it lands
        engine = engine_of(app)
        assert [entry.kind for entry in engine.view.transcript.entries] == ["user", "assistant"]
        release(folders)
        await run_to_end(app, pilot)

        kinds = [entry.kind for entry in engine.view.transcript.entries]
        assert kinds == ["user", "assistant", "tool_result", "user", "assistant"]
        assert engine.view.transcript.entries[3].text == "use the other folder"
        assert strip.queued == [] and not strip.display
        assert engine.view.transcript.entries[2].text.strip() == "released"
        assert_session_consistent(engine)


async def test_resume_reopens_the_session_with_the_same_bar_and_transcript(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folders = prepare(tmp_path, monkeypatch)
    app = flow_app(options(folders, "long_turn.jsonl", budget=LONG_TURN_BUDGET, yes=True))
    async with app.run_test(size=SIZE) as pilot:
        watch = await opened(app, pilot)
        await send(pilot, "count ten blocks")
        await run_to_end(app, pilot)
        first = app.session
        assert first is not None and first.session_file is not None and app.bar is not None
        first_id, composition = first.session_file.id, app.bar.composition
        transcript = [entry.record_bytes for entry in first.recorder.recorded()]
        rows = list(conversation(app).shown)

        await send(pilot, "/new")
        await until_shown(app, pilot, 2)
        assert app.session is not first and list(app.session.recorder.recorded()) == []  # type: ignore[union-attr]
        assert conversation(app).shown == {}

        await send(pilot, f"/resume {first_id[:8]}")
        await until_shown(app, pilot, 3)
        resumed = app.session
        assert resumed is not None and resumed.session_file is not None
        assert resumed.session_file.id == first_id
        assert [entry.record_bytes for entry in resumed.recorder.recorded()] == transcript
        assert app.bar is not None and app.bar.composition == composition
        assert list(conversation(app).shown) == rows  # the same rows, read from the session
        watch.follow(app)
        assert_session_consistent(engine_of(app))


async def until_shown(app: PifoldApp, pilot: Pilot[int], count: int) -> None:
    """Until the app has put its ``count``-th session on screen."""
    while app.sessions_shown < count:
        await pilot.pause()
    await pilot.wait_for_scheduled_animations()


async def test_compact_hands_the_context_to_native_compaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folders = prepare(tmp_path, monkeypatch)
    app = flow_app(options(folders, "compact.jsonl", yes=True))
    async with app.run_test(size=SIZE) as pilot:
        await opened(app, pilot)
        await send(pilot, "print batch 0")
        await run_to_end(app, pilot)
        session = app.session
        assert session is not None and session.session_file is not None
        assert_session_consistent(engine_of(app))
        await send(pilot, "/compact")
        # The summarisation runs in the command, not in a run: wait for its outcome.
        while not app.notes or not app.notes[-1].startswith(
            ("Compacted", "/compact: nothing", "/compact needs")
        ):
            await pilot.pause()
        assert app.notes[-1].startswith("Compacted"), app.notes[-1]
        assert session.engine is None and app.bar is None
        assert isinstance(session.agent.window, NativeWindow)
        compaction = session.session_file.latest_compaction()
        assert compaction is not None
        assert compaction.summary.startswith("The user asked for four batches")
        notices = [row for row in conversation(app).rows() if "commit" in row.classes]
        assert notices, "the compaction is not shown in the conversation"


async def test_the_no_key_demo_commits_pauses_and_a_fold_row_opens_the_editor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folders = prepare(tmp_path, monkeypatch)

    def load(approver: Approver) -> Launch:
        # Unpaced, so the first commit comes in seconds rather than the demo's minute.
        session, gate, opening = open_demo(folders.cwd, text_delay_s=0, call_delay_s=0)
        return Launch(session, gate, opening)

    app = PifoldApp(
        load, conversation_for, prompt_for, cwd=folders.cwd, on_session=open_prompt_project
    )
    async with app.run_test(size=SIZE) as pilot:
        watch = await opened(app, pilot)
        commit = await watch.until_type("commit")
        assert isinstance(commit, CommitDone) and commit.tokens_after < commit.tokens_before
        await pilot.press("f2")
        assert app.gate is not None and app.gate.paused
        await pilot.pause()
        engine = engine_of(app)
        assert app.bar is not None and app.bar.composition == engine.composition()
        # The conversation shows the folds where the model now sees their placeholders.
        rows = [view for view, _ in conversation(app).fold_views]
        assert rows, "no fold row in the conversation after the commit"
        await send(pilot, "fix the bug please")  # the demo has no model to send it to
        assert app.notes[-1] == UNSENT_IN_DEMO
        assert prompt_area(app).text == "fix the bug please"  # kept, not thrown away
        rows[0].focus()
        await pilot.press("enter")
        await pilot.pause()
        editor = app.screen
        assert isinstance(editor, FoldEditorScreen) and editor.read_only  # the demo plays on
        await pilot.pause()
        selected = editor.window_map.selected
        assert selected is not None and selected.handle == rows[0].handle
        peeked = engine.peek(rows[0].handle)
        assert peeked.complete
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("f2")
        assert not app.gate.paused
        assert app.bridge is not None and app.bridge.abort()  # Esc would only pause the demo
        await run_to_end(app, pilot)
        assert_session_consistent(engine)
