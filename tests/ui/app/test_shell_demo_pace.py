"""The demo's pace (issue 13: "messages stream at a readable pace"): the bundled session's
first reply is streamed in chunks of a word or two, each followed by a pause that keeps
the text near 500 characters a second; a tool call's arguments come without pauses; the
pause gate holds the stream between two chunks. The pauses are recorded, never taken, so
nothing here depends on a clock."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pifold_agent.pricing.session_bill import BilledProvider
from pifold_agent.providers.base import (
    ProviderRequest,
    StreamDone,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)
from pifold_tui.app.demo import (
    DEMO_CHUNK_CHARS,
    DEMO_TEXT_DELAY_S,
    PausableProvider,
    open_demo,
)
from pifold_tui.app.session_setup import close_quietly

READABLE_CHARACTERS_PER_SECOND = (200, 1_000)
"""What counts as readable: faster than a slow reader, slower than a skim."""


async def test_the_demo_streams_its_first_reply_at_a_readable_pace(tmp_path: Path) -> None:
    session, _, opening = open_demo(tmp_path)
    try:
        billed = session.provider
        assert isinstance(billed, BilledProvider) and opening
        provider = billed.inner
        assert isinstance(provider, PausableProvider)
        trail: list[StreamEvent | float] = []

        async def record(seconds: float) -> None:
            trail.append(seconds)

        provider.sleep = record
        request = ProviderRequest("system", [{"role": "user", "content": opening}], ())
        async for event in provider.stream(request):
            trail.append(event)

        assert isinstance(trail[-1], StreamDone)
        texts = [item for item in trail if isinstance(item, TextDelta | ThinkingDelta)]
        assert texts, "the first reply streamed no text"
        for position, item in enumerate(trail[:-1]):
            following = trail[position + 1]
            if isinstance(item, TextDelta | ThinkingDelta):
                assert following == DEMO_TEXT_DELAY_S  # every text chunk is followed by a pause
                assert len(item.text) <= DEMO_CHUNK_CHARS
            if isinstance(item, ToolCallDelta):
                assert not isinstance(following, float)  # arguments are not held up
        characters = sum(len(item.text) for item in texts)
        paused = sum(item for item in trail if isinstance(item, float))
        low, high = READABLE_CHARACTERS_PER_SECOND
        assert low <= characters / paused <= high
    finally:
        close_quietly(session)


async def test_the_gate_holds_the_stream_between_two_chunks(tmp_path: Path) -> None:
    session, gate, opening = open_demo(tmp_path)
    try:
        billed = session.provider
        assert isinstance(billed, BilledProvider) and opening
        provider = billed.inner
        assert isinstance(provider, PausableProvider)

        async def no_wait(seconds: float) -> None:
            """The pace is not under test here."""

        provider.sleep = no_wait
        stream = provider.stream(ProviderRequest("s", [{"role": "user", "content": opening}], ()))
        await anext(stream)
        assert gate.toggle()  # paused
        waiting = asyncio.ensure_future(anext(stream))
        for _ in range(20):
            await asyncio.sleep(0)  # let it run as far as it can
        assert not waiting.done()  # held at the gate
        assert not gate.toggle()  # playing again
        assert not isinstance(await waiting, StreamDone)  # the next chunk comes
        async for _ in stream:  # the rest plays through, unheld
            pass
    finally:
        close_quietly(session)
