"""Memory through each real SDK against the local server: the model writes a note in one
session (Anthropic's native ``memory_20250818`` type in the request body; a function tool
named ``memory`` on OpenAI's two APIs), and in a new session reading the file the note names
brings it back, as an append the wire audit sees no rewrite in."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest

from pifold_agent.loop import Agent, AgentConfig, MemoryRecorder, Tool
from pifold_agent.loop.system_prompt import ordered_tools, system_prompt
from pifold_agent.memory.resurfacing import Resurfacer
from pifold_agent.memory.store import MemoryStore
from pifold_agent.memory.tool import MemoryTool
from pifold_agent.tools.read import ReadTool
from pifold_core.canonical import wire_bytes
from pifold_core.engine import Engine
from tests.agent.providers.local_server import RecordedRequest, Reply, serve
from tests.agent.providers.scripted_sse import Turn, anthropic_turn, chat_turn, responses_turn
from tests.agent.test_end_to_end_sdks import MODELS, RecordingProvider, adapter
from tests.core.builders import CharCounter, small_options
from tests.core.engine_checks import assert_reopens_identically

NOTE = "paths: src/parser.py\n# Parser\nThe parser's magic number is 4242.\n"


class Model:
    """Plays fixed turns in the provider's streaming format."""

    def __init__(self, provider: str, turns: list[Turn]) -> None:
        self.provider = provider
        self.turns = turns
        self.played = 0

    def __call__(self, request: RecordedRequest) -> Reply:
        turn = self.turns[self.played]
        self.played += 1
        tokens, model = len(request.raw) // 4, MODELS[self.provider]
        if self.provider == "anthropic":
            return Reply(body=anthropic_turn(turn, tokens, model))
        if self.provider == "openai":
            return Reply(body=responses_turn(turn, tokens, model, self.played))
        return Reply(body=chat_turn(turn, tokens, model))


async def session(
    tmp_path: Path, name: str, provider: str, store: MemoryStore, turns: list[Turn]
) -> tuple[list[RecordedRequest], RecordingProvider, Engine]:
    repository = tmp_path / "repo"
    engine = Engine.open(tmp_path / name, small_options(budget=20_000), CharCounter())
    tools: list[Tool] = [ReadTool(), MemoryTool(store)]
    model = Model(provider, turns)
    with serve([model] * len(turns)) as server:
        recording = RecordingProvider(adapter(provider, server.base_url))
        prompt = system_prompt(ordered_tools(tools), repository, datetime.date(2026, 12, 1))
        config = AgentConfig(repository, prompt, follower=Resurfacer(store, repository))
        agent = Agent(engine, recording, tools, MemoryRecorder(), config)
        result = await agent.run("go")
    assert result.outcome == "stop", result.error
    assert engine.view.audit_counts.unattributed == 0
    return server.requests, recording, engine


@pytest.mark.parametrize("provider", ["anthropic", "openai", "openai-chat"])
async def test_a_note_written_through_an_sdk_comes_back_in_the_next_session(
    tmp_path: Path, provider: str
) -> None:
    (tmp_path / "repo" / "src").mkdir(parents=True)
    (tmp_path / "repo" / "src" / "parser.py").write_text("MAGIC = 4242\n")
    store = MemoryStore(tmp_path / "memory" / "project", tmp_path / "memory" / "user")
    create = {"command": "create", "path": "/memories/parser.md", "file_text": NOTE}
    sent, _, engine = await session(
        tmp_path,
        "one",
        provider,
        store,
        [Turn("Saving.", [("call_m", "memory", create)]), Turn("Noted.")],
    )
    assert store.read("/memories/parser.md").text == NOTE
    tools = sent[0].body["tools"]
    if provider == "anthropic":
        assert {"type": "memory_20250818", "name": "memory"} in tools
    else:
        names = [tool.get("name") or tool["function"]["name"] for tool in tools]
        assert "memory" in names
    engine.close()
    assert_reopens_identically(engine)

    sent, recording, engine = await session(
        tmp_path,
        "two",
        provider,
        store,
        [Turn("Reading.", [("call_r", "read", {"path": "src/parser.py"})]), Turn("4242.")],
    )
    assert "magic number is 4242" not in json.dumps(sent[0].body)
    assert "magic number is 4242" in json.dumps(sent[1].body)
    before, after = recording.requests
    assert [wire_bytes(m) for m in after.messages[: len(before.messages)]] == [
        wire_bytes(m) for m in before.messages
    ]
    engine.close()
    assert_reopens_identically(engine)
