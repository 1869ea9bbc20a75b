"""Reading one provider stream: deltas become ``message_update`` events, the end a message.

A provider promises never to raise and to end every stream with a :class:`StreamDone`; a
provider that breaks the promise (raises, or stops without a final event) is turned into a
fatal error here so the run ends with a message rather than a traceback. What streamed so
far stays readable on the collector, which is how an aborted message is kept.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable

from pifold_agent.loop.events import (
    AgentEvent,
    MessageStart,
    MessageUpdate,
    ReplyWarningEvent,
    ServerWaiting,
)
from pifold_agent.loop.messages import streamed_blocks
from pifold_agent.providers.base import (
    ErrorClass,
    Provider,
    ProviderError,
    ProviderRequest,
    ReplyWarning,
    StreamDone,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    UsageUpdate,
)
from pifold_core.entries import Block, Usage


class StreamCollector:
    """Everything one stream has delivered so far."""

    def __init__(self) -> None:
        self.texts: dict[int, list[str]] = {}
        """Text deltas by block index."""
        self.thinking: dict[int, list[str]] = {}
        """Thinking deltas by block index."""
        self.usage: Usage | None = None
        """The latest usage the provider reported."""

    def partial_blocks(self) -> list[Block]:
        """The readable blocks streamed so far (incomplete tool calls are left out)."""
        return streamed_blocks(self.texts, self.thinking)


async def consume(
    provider: Provider,
    request: ProviderRequest,
    collector: StreamCollector,
    emit: Callable[[AgentEvent], None],
    waiting_notice_s: float = 5.0,
) -> StreamDone:
    """Stream ``request``, emitting every delta; returns the final event. Until the first
    event arrives, a :class:`ServerWaiting` every ``waiting_notice_s`` says how long."""
    emit(MessageStart("assistant"))
    done: StreamDone | None = None
    try:
        async for event in _announcing_the_wait(provider.stream(request), emit, waiting_notice_s):
            if isinstance(event, TextDelta):
                collector.texts.setdefault(event.index, []).append(event.text)
                emit(MessageUpdate("text", event.index, event.text))
            elif isinstance(event, ThinkingDelta):
                collector.thinking.setdefault(event.index, []).append(event.text)
                emit(MessageUpdate("thinking", event.index, event.text))
            elif isinstance(event, ToolCallDelta):
                emit(MessageUpdate("tool_call", event.index, event.partial_json))
            elif isinstance(event, UsageUpdate):
                collector.usage = event.usage
            elif isinstance(event, ReplyWarning):
                emit(ReplyWarningEvent(event.message))
            elif isinstance(event, StreamDone):
                done = event
    except Exception as error:
        return _failure(f"provider {provider.name} failed: {type(error).__name__}: {error}")
    if done is None:
        return _failure(f"provider {provider.name} ended its stream without a final event")
    if done.usage is None and collector.usage is not None:
        return StreamDone(
            done.content, done.stop_reason, collector.usage, done.model, done.error, done.extra
        )
    return done


async def _announcing_the_wait(
    events: AsyncIterator[StreamEvent], emit: Callable[[AgentEvent], None], every_s: float
) -> AsyncIterator[StreamEvent]:
    """``events``, with a :class:`ServerWaiting` every ``every_s`` until the first one.

    The announcements come from a task of their own, so the stream itself is read in the
    caller's task from start to end (the SDKs' HTTP clients tie their cancel scopes to it).
    """
    started = time.monotonic()

    async def announce() -> None:
        while True:
            await asyncio.sleep(every_s)
            emit(ServerWaiting(round(time.monotonic() - started)))

    announcer = asyncio.ensure_future(announce())
    try:
        async for event in events:
            announcer.cancel()
            yield event
    finally:
        announcer.cancel()


def _failure(message: str) -> StreamDone:
    return StreamDone((), "error", error=ProviderError(ErrorClass.FATAL, message))


__all__ = ["StreamCollector", "consume"]
