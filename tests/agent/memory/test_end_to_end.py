"""Memory end to end through the scripted provider: a note written in one session comes back
in a new session when the model reads the file it names, again once the first copy was
folded, and not while a copy is in the window, even across a restart.

The loop, the engine, the session files, the read tool and the memory tool are the real
ones; only the model is a script. The wire audit sees no unattributed rewrite, and the
request before each resurfacing is a byte prefix of the request that carries the note.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Sequence
from pathlib import Path

from pifold_agent.loop import Agent, AgentConfig, AgentEvent, Tool
from pifold_agent.loop.events import MemoryEvent, event_json
from pifold_agent.loop.messages import in_context
from pifold_agent.loop.system_prompt import ordered_tools, system_prompt
from pifold_agent.loop.window import shows_raw
from pifold_agent.memory.resurfacing import Resurfacer
from pifold_agent.memory.store import MemoryStore
from pifold_agent.memory.tool import MemoryTool
from pifold_agent.providers.base import ProviderRequest
from pifold_agent.scripted.provider import ScriptedProvider, load_script
from pifold_agent.sessions import SessionFile
from pifold_agent.tools.read import ReadTool
from pifold_core.canonical import wire_bytes
from pifold_core.engine import Engine
from tests.core.builders import CharCounter, filler, small_options
from tests.core.engine_checks import assert_reopens_identically

NOTE = "paths: src/parser.py\n# Parser\nThe parser's magic number is 4242; never change it.\n"
MODULES = 8
OPTIONS = small_options(budget=12_000)


def make_repository(root: Path) -> Path:
    repository = root / "repo"
    (repository / ".git").mkdir(parents=True)
    (repository / "src").mkdir()
    # Long enough that the chapter reading it is worth a fold (minFoldChars).
    (repository / "src" / "parser.py").write_text("MAGIC = 4242\n" + filler(1_500, seed=99) + "\n")
    for number in range(MODULES):
        (repository / "src" / f"module_{number}.py").write_text(
            filler(3_600, seed=number, stem=f"value_{number}") + "\n"
        )
    return repository


def write_script(path: Path, steps: Sequence[dict[str, object]]) -> Path:
    header = {"script": "pifold", "version": 1, "tools": "execute", "chunk_chars": 200}
    path.write_text("\n".join(json.dumps(line) for line in [header, *steps]) + "\n")
    return path


def read(call_id: str, file: str) -> dict[str, object]:
    arguments = {"path": file}
    return {
        "assistant": f"Reading {file}.",
        "tool_calls": [{"id": call_id, "name": "read", "arguments": arguments}],
    }


class Run:
    """One agent over a session, its engine, the scripted model and the memory."""

    def __init__(
        self, repository: Path, store: MemoryStore, session: SessionFile, script: Path
    ) -> None:
        self.counter = CharCounter()
        self.session = session
        self.engine = Engine.open(session.state_directory, OPTIONS, self.counter)
        self.provider = ScriptedProvider(load_script(script), self.counter)
        tools: list[Tool] = [ReadTool(), MemoryTool(store)]
        prompt = system_prompt(ordered_tools(tools), repository, datetime.date(2026, 12, 1))
        self.resurfacer = Resurfacer(store, repository)
        config = AgentConfig(repository, prompt, follower=self.resurfacer)
        self.agent = Agent(self.engine, self.provider, tools, session, config)
        self.agent.resume()
        self.provider.attach(self.agent.queues)
        self.events: list[AgentEvent] = []
        self.agent.subscribe(self.events.append)

    async def play(self) -> None:
        result = await self.agent.run(self.provider.opening_prompt())
        assert result.outcome == "stop" and self.provider.exhausted

    def memory_events(self, action: str) -> list[MemoryEvent]:
        return [e for e in self.events if isinstance(e, MemoryEvent) and e.action == action]

    def close_and_check(self) -> None:
        assert self.engine.view.audit_counts.unattributed == 0
        recorded = [
            entry.id
            for entry in SessionFile.open(self.session.path).messages()
            if in_context(entry)
        ]
        assert recorded == [
            entry.id
            for entry in self.engine.view.transcript.entries
            if entry.extra.get("pifold") is None
        ]
        self.engine.close()
        self.session.close()
        assert_reopens_identically(self.engine)


def ends_with_note(request: ProviderRequest) -> bool:
    last = request.messages[-1]
    return last.get("role") == "user" and "[memory]" in json.dumps(last)


def assert_prefix(before: ProviderRequest, after: ProviderRequest) -> None:
    sent = [wire_bytes(message) for message in before.messages]
    assert [wire_bytes(message) for message in after.messages[: len(sent)]] == sent


async def test_a_note_comes_back_in_a_new_session_and_again_once_folded(tmp_path: Path) -> None:
    repository = make_repository(tmp_path)
    store = MemoryStore(tmp_path / "memory" / "project", tmp_path / "memory" / "user")
    sessions = tmp_path / "sessions"

    # Session 1: the model writes the note.
    create = {"command": "create", "path": "/memories/parser.md", "file_text": NOTE}
    first = Run(
        repository,
        store,
        SessionFile.create(repository, sessions),
        write_script(
            tmp_path / "one.jsonl",
            [
                {"user": "Remember the parser's magic number."},
                {
                    "assistant": "Saving it.",
                    "tool_calls": [{"id": "m1", "name": "memory", "arguments": create}],
                },
                {"assistant": "Noted."},
            ],
        ),
    )
    await first.play()
    assert store.read("/memories/parser.md").text == NOTE
    assert [event.path for event in first.memory_events("written")] == ["/memories/parser.md"]
    assert not first.memory_events("resurfaced")
    first.close_and_check()

    # Session 2: reading the file brings the note back; a second read while it is in the
    # window does not; many more reads fold it; the next read brings it back again.
    steps: list[dict[str, object]] = [
        {"user": "Look at the parser."},
        read("p1", "src/parser.py"),
        read("p2", "src/parser.py"),
        {"assistant": "The magic number is 4242."},
        {"user": "Now read every module."},
    ]
    steps += [read(f"r{number}", f"src/module_{number}.py") for number in range(MODULES)]
    steps += [read("p3", "src/parser.py"), {"assistant": "Still 4242."}]
    second = Run(
        repository,
        store,
        SessionFile.create(repository, sessions),
        write_script(tmp_path / "two.jsonl", steps),
    )
    await second.play()

    notes = [entry for entry in second.engine.view.transcript.entries if entry.extra.get("memory")]
    assert len(notes) == 2 and all("magic number is 4242" in note.text for note in notes)
    assert len(second.memory_events("resurfaced")) == 2
    # The headless JSON stream carries them as they are (``pifold -p --json``).
    streamed = json.loads(json.dumps(event_json(second.memory_events("resurfaced")[0])))
    assert streamed["type"] == "memory" and streamed["action"] == "resurfaced"
    assert streamed["path"] == "/memories/parser.md" and streamed["about"] == ["src/parser.py"]
    assert not shows_raw(second.agent.window, notes[0].id)  # the first copy was folded
    assert shows_raw(second.agent.window, notes[1].id)
    carrying = [
        index for index, request in enumerate(second.provider.requests) if ends_with_note(request)
    ]
    assert len(carrying) == 2
    for index in carrying:
        assert_prefix(second.provider.requests[index - 1], second.provider.requests[index])
    session_path = second.session.path
    second.close_and_check()

    # A restart: the log says the note is in the window, so reading the file again brings
    # nothing back.
    third = Run(
        repository,
        store,
        SessionFile.open(session_path),
        write_script(
            tmp_path / "three.jsonl",
            [
                {"user": "Once more."},
                read("p4", "src/parser.py"),
                {"assistant": "Same."},
            ],
        ),
    )
    await third.play()
    assert not third.memory_events("resurfaced")
    third.close_and_check()


async def test_resurfacing_off_brings_nothing_back(tmp_path: Path) -> None:
    repository = make_repository(tmp_path)
    store = MemoryStore(tmp_path / "memory" / "project", tmp_path / "memory" / "user")
    store.write("/memories/parser.md", NOTE)
    run = Run(
        repository,
        store,
        SessionFile.create(repository, tmp_path / "s"),
        write_script(
            tmp_path / "a.jsonl",
            [
                {"user": "Look."},
                read("p1", "src/parser.py"),
                {"assistant": "Done."},
            ],
        ),
    )
    run.resurfacer.enabled = False
    await run.play()
    assert not run.memory_events("resurfaced")
    assert not [entry for entry in run.engine.view.transcript.entries if entry.extra.get("memory")]
    run.close_and_check()
