"""What every adapter's stream reading shares: the door, the blocks, the usage and the end.

An adapter reads each SDK event as plain JSON (:func:`~pifold_agent.providers.reply_door.plain`)
into its :class:`StreamReader`, then yields what :meth:`StreamReader.take` hands back: the
deltas, usage updates and warnings that event produced. The stream ends with
:meth:`StreamReader.done` (the provider's end) or :meth:`StreamReader.failed` (an exception
while streaming), both of which finish the blocks and attach the reply's warnings.
:func:`read_reply` is that loop, the same for every adapter.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import replace
from typing import Protocol

import anthropic
import httpx2
import openai

from pifold_agent.cache_report.records import REPLY_ID_KEY, REPORT_KEY, report_record
from pifold_agent.cache_report.reports import ProviderCacheReport
from pifold_agent.providers.assembly import BlockAssembler
from pifold_agent.providers.base import (
    ErrorClass,
    ProviderError,
    ReplyWarning,
    StopReason,
    StreamDone,
    StreamEvent,
    UsageUpdate,
)
from pifold_agent.providers.errors import classify_exception, stream_cut
from pifold_agent.providers.reply_door import MAX_ID_CHARS, ReplyDoor, plain
from pifold_core.canonical import JsonValue
from pifold_core.entries import Usage

READER_DEFECT = "a defect in pifold, please report it"
"""Part of the message of a reply that failed for a reason of pifold's own, not the
provider's (the fault harness counts these)."""


class StreamReader:
    """One reply being read: its door, its blocks, its usage and model, events to yield."""

    def __init__(self, model: str) -> None:
        self.door = ReplyDoor()
        """Where each field is checked; its warnings become :class:`ReplyWarning` events."""
        self.assembler = BlockAssembler(self.door)
        """The message's blocks."""
        self.usage: Usage | None = None
        """The latest usage the provider reported, checked."""
        self.model = model
        """The model the reply names (the one asked for until it names one)."""
        self.kept: dict[str, JsonValue] = {}
        """What the recorded message keeps of the reply beside its warnings (the reply's id,
        the provider's cache report: :mod:`pifold_agent.cache_report.records`)."""
        self._out: list[StreamEvent] = []

    def read(self, event: JsonValue) -> None:
        """Read one event of the SDK's stream, as plain JSON (each adapter's reader knows the
        shapes of its provider's events)."""
        raise NotImplementedError

    def end(self) -> list[StreamEvent]:
        """The events after the stream's last one: the reply's end, or a cut if the provider
        never said it ended."""
        raise NotImplementedError

    def emit(self, event: StreamEvent | None) -> None:
        """Queue an event for the adapter to yield (``None``: a piece that was left out)."""
        if event is not None:
            self._out.append(event)

    def measured(self, usage: Usage) -> None:
        """The provider reported usage (already checked)."""
        self.usage = usage
        self._out.append(UsageUpdate(usage))

    def keep_reply_id(self, value: object) -> None:
        """Keep the reply's own id (the next request's cache baseline) when it is sound: an id
        the provider would not know again is no baseline, so none is made up."""
        if isinstance(value, str) and 0 < len(value) <= MAX_ID_CHARS and value.isprintable():
            self.kept[REPLY_ID_KEY] = value

    def keep_cache_report(self, report: ProviderCacheReport) -> None:
        """Keep the provider's cache report; one not in its documented shape is warned of."""
        if report.problem is not None:
            self.door.warn(
                f"the provider's cache diagnostics were not in their documented shape "
                f"({report.problem}): recorded as unknown"
            )
        self.kept[REPORT_KEY] = report_record(report)

    def take(self) -> list[StreamEvent]:
        """The events produced since the last call, warnings last."""
        events = self._out + [ReplyWarning(message) for message in self.door.take()]
        self._out = []
        return events

    def done(
        self, stop_reason: StopReason, error: ProviderError | None = None
    ) -> list[StreamEvent]:
        """The last events: what is still queued, then the whole message."""
        content = self.assembler.blocks()
        if error is not None:
            # The provider's own words (an error body's message) are text like any other.
            message = self.door.repaired(error.message, "the provider's error message")
            error = replace(error, message=message)
        events = self.take()
        extra = {**self.door.record(), **self.kept}
        events.append(StreamDone(content, stop_reason, self.usage, self.model, error, extra))
        return events

    def cut(self) -> list[StreamEvent]:
        """The stream closed cleanly before the provider's end: an error the loop retries."""
        return self.done("error", stream_cut())

    def failed(self, error: Exception) -> list[StreamEvent]:
        """The stream raised: the error classified, what had arrived kept."""
        return self.done("error", classify_reading_error(error))


class SdkStream(Protocol):
    """A reply streaming through an SDK (``AsyncStream`` of Anthropic's and OpenAI's)."""

    def __aiter__(self) -> AsyncIterator[object]: ...

    async def close(self) -> None: ...


async def read_reply(
    reader: StreamReader,
    opening: Callable[[], Awaitable[SdkStream]],
    finish: Callable[[list[StreamEvent]], Iterable[StreamEvent]] = iter,
) -> AsyncIterator[StreamEvent]:
    """The events of one reply: ``opening()`` is awaited (the SDK's request), each event of
    the stream it gives is read by ``reader`` and what it made yielded, then the reply's end
    as ``finish`` passes it on (an adapter that turns written calls into tool calls). Whatever
    the SDK, the connection or the reply's bytes raised, the request's own call included, ends
    the reply with its error instead (:meth:`StreamReader.failed`, not passed to ``finish``);
    a cancellation propagates."""
    try:
        events = await opening()
        try:
            async for event in events:
                reader.read(plain(event))
                for item in reader.take():
                    yield item
        finally:
            await events.close()
    except asyncio.CancelledError:
        raise
    except Exception as error:
        # Whatever the SDK, the connection or the reply's bytes raised (classified by
        # classify_reading_error): the stream still ends with a message.
        for item in reader.failed(error):
            yield item
        return
    for item in finish(reader.end()):
        yield item


def classify_reading_error(error: Exception) -> ProviderError:
    """An exception raised while a reply streamed: the SDK's or the connection's (classified
    as usual), an event that was not JSON (the provider's fault), or pifold's own."""
    if isinstance(
        error, anthropic.AnthropicError | openai.OpenAIError | httpx2.HTTPError | OSError
    ):
        # httpx2's errors: the Anthropic SDK lets a connection dropped mid-stream through.
        return classify_exception(error)
    if isinstance(error, json.JSONDecodeError | UnicodeDecodeError):
        # The SDK decodes each event's bytes and JSON itself, unguarded.
        return ProviderError(
            ErrorClass.FATAL, f"the provider sent an event that could not be read: {error}"
        )
    if isinstance(error, RecursionError):
        # The SDK's JSON decoding (or its models) of an event nested thousands deep.
        return ProviderError(
            ErrorClass.FATAL, "the provider sent an event nested too deeply to read"
        )
    return ProviderError(
        ErrorClass.FATAL,
        f"the reply could not be read ({READER_DEFECT}): {type(error).__name__}: {error}",
    )


__all__ = [
    "READER_DEFECT",
    "SdkStream",
    "StreamReader",
    "classify_reading_error",
    "read_reply",
]
