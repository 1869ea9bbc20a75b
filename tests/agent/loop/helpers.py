"""What the loop tests share: an engine at a small budget, a programmable provider, tools."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pifold_agent.loop import Agent, AgentConfig, AgentEvent, MemoryRecorder, ToolOutcome
from pifold_agent.providers.base import (
    ProviderRequest,
    StreamDone,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
)
from pifold_agent.tools.protocol import ToolContext
from pifold_core.canonical import JsonValue
from pifold_core.engine import Engine
from pifold_core.entries import Block, Entry, TextBlock, ToolCallBlock, Usage
from tests.core.builders import CharCounter, small_options


def open_engine(path: Path, budget: int = 200_000, **kwargs: object) -> Engine:
    """An engine with the exact chars/4 counter (figures the tests can predict)."""
    return Engine.open(path / "state", small_options(budget=budget, **kwargs), CharCounter())


def reply(text: str = "", *calls: tuple[str, str, dict[str, JsonValue]]) -> StreamDone:
    """A complete assistant reply: text, then tool calls ``(id, name, arguments)``."""
    content: list[Block] = [TextBlock(text)] if text else []
    content += [ToolCallBlock(call_id, name, arguments) for call_id, name, arguments in calls]
    return StreamDone(tuple(content), "tool_use" if calls else "stop", Usage(input_tokens=100))


@dataclass
class ProgrammedProvider:
    """Plays the given final events in order; a ``gate`` step streams a delta then waits.

    Written for these tests against the provider Protocol (no SDK is involved).
    """

    replies: list[StreamDone | str]
    """A final event, or the word ``"hang"``: stream one delta and wait until cancelled."""
    requests: list[ProviderRequest] = field(default_factory=list)
    name: str = "programmed"
    model: str = "test-model"
    hanging: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once a ``hang`` step has streamed its delta."""

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        step = self.replies.pop(0)
        if step == "hang":
            yield TextDelta(0, "partial answ")
            self.hanging.set()
            await asyncio.Event().wait()
            return
        assert isinstance(step, StreamDone)
        for index, block in enumerate(step.content):
            if isinstance(block, TextBlock):
                yield TextDelta(index, block.text)
            elif isinstance(block, ToolCallBlock):
                yield ToolCallDelta(index, block.id, block.name, "{}")
        yield step


class FunctionTool:
    """A tool whose behaviour is an async function of (arguments, context)."""

    def __init__(
        self,
        name: str,
        body: Callable[[dict[str, JsonValue], ToolContext], Awaitable[ToolOutcome]],
    ) -> None:
        self._name = name
        self._body = body

    @property
    def name(self) -> str:
        return self._name

    @property
    def description(self) -> str:
        return f"test tool {self._name}"

    @property
    def parameters(self) -> dict[str, JsonValue]:
        return {"type": "object", "properties": {}}

    async def run(self, arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
        return await self._body(arguments, context)


def make_agent(
    engine: Engine,
    provider: object,
    tools: Sequence[object] = (),
    recorder: MemoryRecorder | None = None,
    **config: object,
) -> tuple[Agent, MemoryRecorder, list[AgentEvent]]:
    """An agent with an in-memory session and every event collected."""
    recorder = recorder if recorder is not None else MemoryRecorder()
    settings = AgentConfig(cwd=Path.cwd(), system_prompt="test system", **config)  # type: ignore[arg-type]
    agent = Agent(engine, provider, tools, recorder, settings)  # type: ignore[arg-type]
    events: list[AgentEvent] = []
    agent.subscribe(events.append)
    return agent, recorder, events


def kinds(entries: Sequence[Entry]) -> list[str]:
    """Entry kinds in order, a compact picture of a transcript."""
    return [entry.kind for entry in entries]


def of_type(events: Sequence[AgentEvent], name: str) -> list[AgentEvent]:
    """The events whose ``type`` is ``name``."""
    return [event for event in events if event.type == name]


def assert_session_consistent(engine: Engine, recorder: MemoryRecorder) -> None:
    """The cache invariant held, every fold is lossless, a reopen rebuilds the same state,
    and the engine holds exactly the session's in-context entries, in order."""
    from tests.core.engine_checks import assert_reopens_identically
    from tests.helpers.sessions import assert_engine_holds

    engine.close()  # a reopen is a second writer: the live engine gives its lock up first
    assert_reopens_identically(engine)
    assert_engine_holds(engine, recorder.entries)
