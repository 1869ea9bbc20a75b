"""The no-key demo: the bundled real Pi session played live through the whole loop.

The scripted provider streams each recorded reply to the engine's real projection, at a
pace a person can read; the recorded tool calls are answered with their recorded results;
the engine measures, marks and commits as it would behind a live model. The budget is small
(:data:`DEMO_BUDGET`) so the first commit lands within the first minute and the window drops
to the band where it can be seen. A :class:`~pifold_tui.app.demo_controls.PauseGate` holds
the stream between two chunks
while the user reads, and the fold screens work on the live engine meanwhile.

Every request is billed as the benchmark's simulated provider bills it, at the recorded
model's prices and under its prompt cache's rules, and native compaction at the same budget is
billed beside it (:mod:`pifold_agent.pricing.session_bill` says how and why): the footer shows
the cache reads and the cost as the session plays, and what compaction would have cost.

The demo's messages live in memory and its engine state in a temporary folder removed when
the app closes: nothing is written under ``~/.pifold``.
"""

from __future__ import annotations

import asyncio
import datetime
import shutil
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from pathlib import Path

from pifold_agent.bundled_traces import demo_trace
from pifold_agent.importers import load_trace
from pifold_agent.loop import Agent, AgentConfig, MemoryRecorder
from pifold_agent.loop.system_prompt import system_prompt
from pifold_agent.pricing.prices import load_price_book, main_model
from pifold_agent.pricing.session_bill import BilledProvider, SessionBill
from pifold_agent.providers.base import (
    ProviderRequest,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)
from pifold_agent.providers.registry import key_choice
from pifold_agent.run_input import HeadlessOptions
from pifold_agent.scripted.provider import ScriptedProvider, script_from_entries
from pifold_core.engine import Engine
from pifold_core.options import EngineOptions
from pifold_core.refused_settings import load_or_defaults
from pifold_core.settings import SettingsError, SettingsFile
from pifold_core.tokens import TiktokenCounter
from pifold_tui.app.demo_bill import DemoBill, footer_prices
from pifold_tui.app.demo_controls import PauseGate
from pifold_tui.app.session_setup import AppSession

DEMO_BUDGET = 24_000
"""Tokens a demo request may carry. The session's early turns pass the commit threshold
(``maxTarget`` of this) within about the first minute at the demo's pace, so the first
commit is seen soon after the app opens."""

DEMO_CHUNK_CHARS = 8
"""Characters per streamed chunk: a word or two at a time."""

DEMO_TEXT_DELAY_S = 0.016
"""Pause after each chunk of text or thinking: about 500 characters a second, readable."""

DEMO_CALL_DELAY_S = 0.0
"""Pause after each chunk of a tool call's arguments: none, so a batch of long edits does
not hold the story up for a minute (the arguments are shown once the call runs)."""

CONNECT_HINT = (
    "Demo: a recorded session is playing. To talk to a model, quit and set "
    f"{key_choice(', or --base-url for a local server')}, then run pifold."
)
"""What the prompt says in the demo."""


class PausableProvider:
    """The scripted provider's stream, paced for a reader and held at the gate between
    events."""

    def __init__(
        self,
        inner: ScriptedProvider,
        gate: PauseGate,
        text_delay_s: float = DEMO_TEXT_DELAY_S,
        call_delay_s: float = DEMO_CALL_DELAY_S,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.inner = inner
        """The scripted provider that plays the session (streaming without pauses)."""
        self.gate = gate
        self.text_delay_s = text_delay_s
        """The wait after each text or thinking chunk."""
        self.call_delay_s = call_delay_s
        """The wait after each chunk of a tool call's arguments."""
        self.sleep = sleep
        """How a wait is taken (a test records the pace instead of taking it)."""

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def model(self) -> str:
        return self.inner.model

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]:
        async for event in self.inner.stream(request):
            await self.gate.wait_open()
            yield event
            if isinstance(event, TextDelta | ThinkingDelta) and self.text_delay_s:
                await self.sleep(self.text_delay_s)
            elif isinstance(event, ToolCallDelta) and self.call_delay_s:
                await self.sleep(self.call_delay_s)


def demo_options(budget: int = DEMO_BUDGET) -> tuple[EngineOptions, SettingsError | None]:
    """The user's settings at the demo's budget (the budget is the demo's own), or the
    defaults and why the settings file was refused: the demo opens either way, and
    ``/fold-settings`` inside it can replace a refused file."""
    options, refused = load_or_defaults(SettingsFile(base=EngineOptions(budget=budget)))
    return replace(options, budget=budget), refused


def open_demo(
    cwd: Path,
    budget: int = DEMO_BUDGET,
    text_delay_s: float = DEMO_TEXT_DELAY_S,
    call_delay_s: float = DEMO_CALL_DELAY_S,
    trace: Path | None = None,
) -> tuple[AppSession, PauseGate, str | None]:
    """The demo session, its pause gate and the opening prompt to run."""
    entries = load_trace(trace if trace is not None else demo_trace()).entries
    script = replace(script_from_entries(entries), chunk_chars=DEMO_CHUNK_CHARS, chunk_delay_s=0)
    counter = TiktokenCounter()
    scripted = ScriptedProvider(script, counter)
    gate = PauseGate()
    recorder = MemoryRecorder()
    book = load_price_book()
    prices, own_prices = book.lookup(main_model(entries))
    bill = SessionBill(prices, counter, budget, recorder.recorded)
    paced = PausableProvider(scripted, gate, text_delay_s, call_delay_s)
    provider = BilledProvider(paced, bill)
    options, refused = demo_options(budget)
    folder = Path(tempfile.mkdtemp(prefix="pifold-demo-"))
    engine = Engine.open(folder / "state", options)
    tools = scripted.recorded_tools()
    # The date of the session's first message, so the demo's system prompt never changes.
    first_day = _first_day(entries[0].timestamp_ms)
    prompt_text = system_prompt(tools, cwd, first_day)
    agent = Agent(engine, provider, tools, recorder, AgentConfig(cwd, prompt_text))
    scripted.attach(agent.queues)
    session = AppSession(
        agent=agent,
        engine=engine,
        recorder=recorder,
        provider=provider,
        prices=footer_prices(prices),
        cwd=cwd,
        settings=SettingsFile(),
        options=HeadlessOptions(prompt=None, cwd=cwd),
        demo=True,
        cleanup=lambda: shutil.rmtree(folder, ignore_errors=True),
        settings_refused=refused,
        bill=DemoBill(bill, book.as_of, own_prices),
        played_through=lambda: scripted.exhausted,
    )
    return session, gate, scripted.opening_prompt()


def _first_day(timestamp_ms: int) -> datetime.date:
    return datetime.datetime.fromtimestamp(timestamp_ms / 1000, datetime.UTC).date()


__all__ = [
    "CONNECT_HINT",
    "DEMO_BUDGET",
    "DEMO_CALL_DELAY_S",
    "DEMO_CHUNK_CHARS",
    "DEMO_TEXT_DELAY_S",
    "PausableProvider",
    "open_demo",
]
