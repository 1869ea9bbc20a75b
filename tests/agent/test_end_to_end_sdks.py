"""The whole agent through each real SDK: a multi-turn session against a local server.

The loop, the engine, the read and bash tools and the fold tool are the real ones; the model
is a local HTTP server on 127.0.0.1 that plays scripted turns in each provider's streaming
format, tool calls included, and records every request body. The session reads a dozen
modules in one long agentic turn at a small budget, so the engine commits between two tool
batches, and then the model peeks a fold by the handle it read in its context.

For every request the test checks that what went over the wire is the engine's projection
of that moment (by the digests the engine logged) converted by the adapter, with nothing
added, dropped or reordered; that Anthropic's breakpoints sit on the settled boundary and
the tail; and that the wire audit saw no unattributed rewrite.
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pifold_agent.loop import Agent, AgentConfig, MemoryRecorder, Tool
from pifold_agent.loop.system_prompt import ordered_tools, system_prompt
from pifold_agent.providers import anthropic_messages, openai_chat, openai_responses
from pifold_agent.providers.anthropic_messages import AnthropicMessages
from pifold_agent.providers.base import Provider, ProviderRequest, StreamEvent
from pifold_agent.providers.openai_chat import OpenAIChat
from pifold_agent.providers.openai_responses import OpenAIResponses
from pifold_agent.tools.bash import BashTool
from pifold_agent.tools.read import ReadTool
from pifold_core.audit import request_digest
from pifold_core.canonical import wire_digest_of
from pifold_core.engine import Engine
from pifold_core.journal import Journal
from tests.agent.providers.local_server import RecordedRequest, Reply, serve
from tests.agent.providers.scripted_sse import Turn, anthropic_turn, chat_turn, responses_turn
from tests.core.builders import CharCounter, filler, small_options
from tests.core.engine_checks import assert_reopens_identically

MODULES = 10
SESSION_ID = "e2e-session-5c1d"
HANDLE = re.compile(r"fold-[0-9a-f]{12}")
MODELS = {"anthropic": "claude-sonnet-4-5", "openai": "gpt-5.4", "openai-chat": "qwen3-coder:30b"}


@dataclass
class RecordingProvider:
    """The real adapter, with every request the loop handed it kept (nothing else changes)."""

    inner: Provider
    requests: list[ProviderRequest] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def model(self) -> str:
        return self.inner.model

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        async for event in self.inner.stream(request):
            yield event


def make_repository(root: Path) -> Path:
    repository = root / "repo"
    (repository / "src").mkdir(parents=True)
    for number in range(MODULES):
        body = filler(3_600, seed=number, stem=f"value_{number}")
        (repository / "src" / f"module_{number}.py").write_text(
            f"# module {number}: FIRST-LINE-{number:02d}\n{body}\n"
        )
    return repository


class ScriptedModel:
    """Decides each turn from the request it answers, and writes it in the provider's format."""

    def __init__(self, provider: str) -> None:
        self.provider = provider
        self.turns = 0
        self.peeked: str | None = None

    def turn(self, request: RecordedRequest) -> Turn:
        number = self.turns
        if number == 0:
            return Turn("Listing the sources.", [("call_ls", "bash", {"command": "ls src | sort"})])
        if number <= MODULES:
            path = f"src/module_{number - 1}.py"
            return Turn(f"Reading {path}.", [(f"call_read_{number}", "read", {"path": path})])
        if self.peeked is None:
            found = HANDLE.search(request.raw.decode())
            if found is not None:
                self.peeked = found.group(0)
                arguments = {"action": "peek", "id": self.peeked, "bytes": 4000}
                return Turn(
                    "Checking the folded bytes.", [("call_peek", "pi_fold_context", arguments)]
                )
        return Turn("Every module defines numbered value constants.")

    def __call__(self, request: RecordedRequest) -> Reply:
        turn = self.turn(request)
        self.turns += 1
        tokens = len(request.raw) // 4
        model = MODELS[self.provider]
        if self.provider == "anthropic":
            body = anthropic_turn(turn, tokens, model)
        elif self.provider == "openai":
            body = responses_turn(turn, tokens, model, self.turns)
        else:
            body = chat_turn(turn, tokens, model)
        return Reply(body=body)


def adapter(provider: str, base_url: str) -> Provider:
    if provider == "anthropic":
        return AnthropicMessages(MODELS[provider], "test-key", base_url)
    if provider == "openai":
        return OpenAIResponses(MODELS[provider], "test-key", f"{base_url}/v1")
    return OpenAIChat(MODELS[provider], "not-needed", f"{base_url}/v1")


def expected_wire(provider: str, request: ProviderRequest) -> tuple[str, Any]:
    """The field that carries the messages, and what the adapter makes of the projection."""
    if provider == "anthropic":
        body = anthropic_messages.build_body(request, MODELS[provider], 32_000)
        return "messages", body["messages"]
    if provider == "openai":
        return "input", openai_responses.build_body(request, MODELS[provider], True)["input"]
    return "messages", openai_chat.build_body(request, MODELS[provider], False)["messages"]


def ordered(value: Any) -> Any:
    """JSON with key order kept, so equality checks order as bytes would."""
    return json.loads(json.dumps(value), object_pairs_hook=list)


def logged_prefixes(engine: Engine) -> list[str]:
    """The request digests the engine wrote to its log, in order."""
    engine._state.journal.sync()
    log = Journal(engine._state.journal.path)  # a reader of its own: the live one is the writer
    return [record.body["prefix"] for record in log.read_all() if record.kind == "request"]


def breakpoints(messages: list[dict[str, Any]]) -> list[tuple[int, int]]:
    return [
        (message_index, block_index)
        for message_index, message in enumerate(messages)
        for block_index, block in enumerate(message["content"])
        if "cache_control" in block
    ]


@pytest.mark.parametrize("provider", ["anthropic", "openai", "openai-chat"])
async def test_a_session_through_each_sdk_sends_the_projection_byte_for_byte(
    tmp_path: Path, provider: str
) -> None:
    repository = make_repository(tmp_path)
    engine = Engine.open(tmp_path / "state", small_options(budget=9_000), CharCounter())
    tools: list[Tool] = [ReadTool(), BashTool()]
    model = ScriptedModel(provider)
    with serve([model] * (MODULES + 3)) as server:
        recording = RecordingProvider(adapter(provider, server.base_url))
        prompt = system_prompt(ordered_tools(tools), repository, datetime.date(2026, 12, 1))
        config = AgentConfig(repository, prompt, session_id=SESSION_ID, max_output_tokens=4096)
        agent = Agent(engine, recording, tools, MemoryRecorder(), config)
        result = await agent.run("Review every module in src/ and say what each defines.")

    assert result.outcome == "stop", result.error
    assert result.final_text == "Every module defines numbered value constants."
    # The engine committed inside the long turn, and the model peeked the exact bytes.
    assert engine.view.commit_count >= 1
    assert model.peeked is not None
    # Responses calls are kept as ``call_id|item_id``.
    peek = next(
        entry
        for entry in engine.view.transcript.entries
        if (entry.call_id or "").split("|")[0] == "call_peek"
    )
    assert not peek.is_error and "(verified)" in peek.text.splitlines()[0]

    sent = server.requests
    assert len(sent) == len(recording.requests) == engine.view.audit_counts.requests == MODULES + 3
    assert engine.view.audit_counts.unattributed == 0
    prefixes = logged_prefixes(engine)
    for number, (wire, handed) in enumerate(zip(sent, recording.requests, strict=True)):
        # What the loop handed the adapter is the engine's projection of that request...
        digests = [wire_digest_of(message) for message in handed.messages]
        assert request_digest(digests) == prefixes[number], f"request {number}"
        # ...and what went over the wire is exactly its conversion, key order included.
        field_name, expected = expected_wire(provider, handed)
        assert ordered(wire.body[field_name]) == ordered(expected), f"request {number}"
        assert handed.system == prompt and [tool.name for tool in handed.tools] == [
            tool.name for tool in recording.requests[0].tools
        ]
    if provider == "anthropic":
        check_breakpoints(sent, recording.requests)
    elif provider == "openai":
        assert {wire.body["prompt_cache_key"] for wire in sent} == {SESSION_ID}
        assert all(wire.body["store"] is False for wire in sent)
    else:
        assert all(wire.body["stream_options"] == {"include_usage": True} for wire in sent)
    # The final projection is the last request plus the final reply.
    assert list(recording.requests[-1].messages) == engine.view.projection.messages()[:-1]
    engine.close()
    assert_reopens_identically(engine)


def check_breakpoints(sent: list[RecordedRequest], handed: list[ProviderRequest]) -> None:
    """On every request: the system block, the settled boundary's last block, the tail."""
    inside = 0
    for wire, request in zip(sent, handed, strict=True):
        settled = request.settled_messages
        assert settled is not None
        assert wire.body["system"][0]["cache_control"] == {"type": "ephemeral"}
        positions = anthropic_messages.convert_messages(request.messages).positions
        tail = positions[-1][-1]
        # Nothing settled (a commit would rewrite from the first message): no boundary.
        boundary = next((places[-1] for places in reversed(positions[:settled]) if places), None)
        marked = breakpoints(wire.body["messages"])
        assert marked == sorted({tail} if boundary is None else {boundary, tail})
        if boundary is not None and boundary != tail:
            inside += 1
    # The boundary fell inside the window (two message breakpoints) on some requests.
    assert inside >= 1
