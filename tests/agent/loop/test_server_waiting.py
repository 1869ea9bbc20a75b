"""A request with nothing back yet says so, at a steady pace, until the first token."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pifold_agent.loop.events import AgentEvent, MessageUpdate, RunEnd, ServerWaiting
from pifold_agent.providers.base import ProviderRequest, StreamEvent
from tests.agent.loop.helpers import (
    ProgrammedProvider,
    assert_session_consistent,
    make_agent,
    open_engine,
    reply,
)


@dataclass
class SlowStart(ProgrammedProvider):
    """Sends nothing until :attr:`go` is set: a server reading a long prompt."""

    go: asyncio.Event = field(default_factory=asyncio.Event)

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]:
        await self.go.wait()
        async for event in super().stream(request):
            yield event


async def test_the_wait_is_announced_until_the_first_token(tmp_path: Path) -> None:
    engine = open_engine(tmp_path)
    provider = SlowStart([reply("hello")])
    agent, recorder, events = make_agent(engine, provider, waiting_notice_s=0.01)

    def release_after_three(event: AgentEvent) -> None:
        if isinstance(event, ServerWaiting) and len(waits()) == 3:
            provider.go.set()

    def waits() -> list[AgentEvent]:
        return [event for event in events if isinstance(event, ServerWaiting)]

    agent.subscribe(release_after_three)
    assert (await agent.run("hi")).outcome == "stop"
    first_token = next(i for i, event in enumerate(events) if isinstance(event, MessageUpdate))
    assert len(waits()) >= 3
    assert not [e for e in events[first_token:] if isinstance(e, ServerWaiting)]
    assert_session_consistent(engine, recorder)


async def test_an_abort_while_waiting_ends_the_wait(tmp_path: Path) -> None:
    engine = open_engine(tmp_path)
    provider = SlowStart([reply("never")])
    agent, recorder, events = make_agent(engine, provider, waiting_notice_s=0.01)
    run = asyncio.create_task(agent.run("hi"))
    while not [event for event in events if isinstance(event, ServerWaiting)]:
        await asyncio.sleep(0.01)
    run.cancel()  # the user's abort is the cancellation of the run
    with pytest.raises(asyncio.CancelledError):
        await run
    assert [event for event in events if isinstance(event, RunEnd)][-1].outcome == "aborted"
    count = len([event for event in events if isinstance(event, ServerWaiting)])
    await asyncio.sleep(0.05)  # nothing announces a wait that is over
    assert len([event for event in events if isinstance(event, ServerWaiting)]) == count
    assert_session_consistent(engine, recorder)
