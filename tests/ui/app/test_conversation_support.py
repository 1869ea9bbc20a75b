"""Recorded event sequences for the conversation tests, made by the real loop.

Each session runs the bundled agent with the scripted provider in a tmp folder: the tools
run for real, the engine folds, the session is recorded in memory. The events the loop
emitted are kept with the final session and engine, and a test feeds them to a
``Conversation`` one by one through an :class:`EventSource` that records each message just
before its event is delivered, as the session recorder does. The tests here check the
sessions themselves: the cache invariant held and every fold is lossless.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from textual.app import App, ComposeResult

from pifold_agent.loop import Agent, AgentConfig, AgentEvent, MemoryRecorder
from pifold_agent.loop.events import CommitDone, MessageEnd, MessageUpdate
from pifold_agent.loop.system_prompt import ordered_tools, system_prompt
from pifold_agent.scripted.provider import ScriptedProvider, load_script
from pifold_agent.tools.bash import BashTool
from pifold_agent.tools.edit import EditTool
from pifold_agent.tools.protocol import Tool
from pifold_agent.tools.read import ReadTool
from pifold_agent.tools.write import WriteTool
from pifold_core.engine import Engine
from pifold_core.entries import Entry, TextBlock
from pifold_tui.app.conversation import Conversation, FoldSource
from pifold_tui.app.messages import AgentEventPosted, FoldEditorRequested
from tests.core.builders import CharCounter, filler, small_options
from tests.core.engine_checks import assert_clean_audit, assert_lossless

MODULES = 10
"""Files the folding session reads, one per turn, so its long turn passes the trigger."""


@dataclass
class RecordedSession:
    """What one scripted run left: its events, its session and its engine."""

    events: list[AgentEvent]
    recorder: MemoryRecorder
    engine: Engine


@dataclass
class EventSource:
    """A transcript source that grows as the events are fed (the recorder writes first)."""

    entries: list[Entry] = field(default_factory=list)

    def recorded(self) -> Sequence[Entry]:
        return self.entries


def user_message(number: int) -> MessageEnd:
    """User message ``number`` as the recorder delivers it (``u<number>``)."""
    return MessageEnd(Entry(f"u{number}", "user", number, (TextBlock(f"message {number}"),)))


def tool_script(path: Path) -> Path:
    """One turn with thinking, streamed text and four tool calls: a write, an edit (a
    diff), a read that fails (an error) and a bash command with a long output."""
    lines: list[dict[str, object]] = [
        {"script": "pifold", "version": 1, "tools": "execute", "chunk_chars": 6},
        {"user": "Create notes.txt, fix its typo, and count to forty."},
        {
            "thinking": "The user wants three things done; start with the file.",
            "assistant": "I will **write** the file, then edit it.",
            "tool_calls": [
                {
                    "id": "w1",
                    "name": "write",
                    "arguments": {"path": "notes.txt", "content": "helo world\n"},
                },
            ],
        },
        {
            "assistant": "Now the typo, a missing file, and the count.",
            "tool_calls": [
                {
                    "id": "e1",
                    "name": "edit",
                    "arguments": {"path": "notes.txt", "oldText": "helo", "newText": "hello"},
                },
                {"id": "r1", "name": "read", "arguments": {"path": "missing.txt"}},
                {"id": "b1", "name": "bash", "arguments": {"command": "seq 1 40"}},
            ],
        },
        {"assistant": "Done: notes.txt says hello world, and I counted to forty."},
    ]
    target = path / "tools.jsonl"
    target.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return target


def failing_script(path: Path) -> Path:
    """A transient failure the loop waits out, then a fatal one that ends the run."""
    lines: list[dict[str, object]] = [
        {"script": "pifold", "version": 1, "tools": "execute"},
        {"user": "Say hello."},
        {"error": "transient", "message": "overloaded, try again", "retry_after_s": 0.01},
        {"error": "fatal", "message": "invalid x-api-key"},
        {"assistant": "Never played: the fatal error ends the run."},
    ]
    target = path / "failing.jsonl"
    target.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return target


async def failing_session(folder: Path) -> RecordedSession:
    work = folder / "work"
    work.mkdir()
    return await run_script(work, failing_script(folder), retry_delay_s=0.01, plays_all=False)


def folding_script(path: Path) -> Path:
    """A long turn reading large files one by one: the engine commits inside it."""
    lines: list[dict[str, object]] = [
        {"script": "pifold", "version": 1, "tools": "execute", "chunk_chars": 40},
        {"user": "Read every module in src/ and say what each defines."},
    ]
    for number in range(MODULES):
        call = {
            "id": f"read-{number}",
            "name": "read",
            "arguments": {"path": f"src/module_{number}.py"},
        }
        lines.append({"assistant": f"Reading module {number}.", "tool_calls": [call]})
    lines.append({"assistant": "Every module defines numbered constants."})
    target = path / "folding.jsonl"
    target.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return target


async def run_script(
    folder: Path,
    script: Path,
    budget: int = 200_000,
    retry_delay_s: float = 2.0,
    plays_all: bool = True,
) -> RecordedSession:
    """Run ``script`` through the real loop in ``folder``; every event is kept. ``plays_all``:
    the run plays every reply (a run a fatal error ends leaves the rest)."""
    counter = CharCounter()
    engine = Engine.open(folder / "state", small_options(budget=budget), counter)
    provider = ScriptedProvider(load_script(script), counter)
    tools: list[Tool] = [ReadTool(), WriteTool(), EditTool(), BashTool()]
    prompt = system_prompt(ordered_tools(tools), folder, datetime.date(2026, 12, 1))
    recorder = MemoryRecorder()
    agent = Agent(
        engine,
        provider,
        tools,
        recorder,
        AgentConfig(folder, prompt, retry_base_delay_s=retry_delay_s),
    )
    provider.attach(agent.queues)
    events: list[AgentEvent] = []
    agent.subscribe(events.append)
    await agent.run(provider.opening_prompt())
    assert provider.exhausted == plays_all
    return RecordedSession(events, recorder, engine)


async def tool_session(folder: Path) -> RecordedSession:
    work = folder / "work"
    work.mkdir()
    return await run_script(work, tool_script(folder))


async def folding_session(folder: Path) -> RecordedSession:
    work = folder / "work"
    (work / "src").mkdir(parents=True)
    for number in range(MODULES):
        (work / "src" / f"module_{number}.py").write_text(
            filler(3_000, seed=number, stem=f"value_{number}") + "\n"
        )
    return await run_script(work, folding_script(folder), budget=9_000)


class ConversationHarness(App[None]):
    """A conversation alone, over ``source`` and ``folds``; fold requests are kept."""

    def __init__(
        self,
        source: EventSource | MemoryRecorder,
        folds: FoldSource | None = None,
        theme: str = "textual-dark",
        limit: int | None = None,
    ) -> None:
        super().__init__()
        self.source = source
        self.folds = folds
        self.limit = limit
        self.theme = theme
        self.requested: list[str | None] = []
        """Handles of every ``FoldEditorRequested`` that reached the app."""

    def compose(self) -> ComposeResult:
        if self.limit is None:
            yield Conversation(self.source, self.folds)
        else:
            yield Conversation(self.source, self.folds, limit=self.limit, batch=10)

    @property
    def conversation(self) -> Conversation:
        return self.query_one(Conversation)

    def on_fold_editor_requested(self, message: FoldEditorRequested) -> None:
        self.requested.append(message.handle)

    def feed(self, source: EventSource, event: AgentEvent) -> None:
        """Deliver ``event`` as the app does, recording its message first."""
        if isinstance(event, MessageEnd):
            source.entries.append(event.entry)
        self.conversation.post_message(AgentEventPosted(event))


async def test_the_tool_session_streams_in_pieces_and_keeps_the_cache_invariant(
    tmp_path: Path,
) -> None:
    session = await tool_session(tmp_path)
    deltas = [event for event in session.events if isinstance(event, MessageUpdate)]
    assert {event.kind for event in deltas} == {"text", "thinking", "tool_call"}
    assert len([event for event in deltas if event.kind == "text"]) > 10
    assert (tmp_path / "work" / "notes.txt").read_text() == "hello world\n"
    assert_clean_audit(session.engine)
    assert_lossless(session.engine)


async def test_the_folding_session_commits_inside_its_turn_losslessly(tmp_path: Path) -> None:
    session = await folding_session(tmp_path)
    commits = [event for event in session.events if isinstance(event, CommitDone)]
    assert commits and commits[0].folds >= 1
    assert any(row.state == "collapsed" for row in session.engine.fold_rows())
    assert_clean_audit(session.engine)
    assert_lossless(session.engine)


async def test_the_failing_session_waits_then_ends_with_the_providers_words(
    tmp_path: Path,
) -> None:
    session = await failing_session(tmp_path)
    kinds = [event.type for event in session.events]
    assert kinds.count("retry_wait") == 1 and kinds.count("error") == 1
    assert session.recorder.entries[0].kind == "user"
    assert_clean_audit(session.engine)
    assert_lossless(session.engine)
