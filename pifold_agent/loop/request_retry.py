"""One model request, sent again until its reply is not a recoverable failure.

Failed requests are classified by the provider (:class:`~pifold_agent.providers.base.ErrorClass`):
too long goes to the engine's overflow recovery and the same request is sent again once it
fits; a transient failure is retried after a bounded backoff, each wait an event
(:class:`~pifold_agent.loop.events.RetryWait`); anything else is the reply the run ends
with. Every failed attempt is kept in the session file only (never sent again), and the
verdict on the provider's cache report is attached to each reply as it comes
(:mod:`pifold_agent.loop.cache_verdicts`). The agent (:mod:`pifold_agent.loop.agent`) asks
for each request's reply here; what it needs of the agent is :class:`RequestingAgent`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from pifold_agent.loop.cache_verdicts import previous_reply, with_verdict
from pifold_agent.loop.config import AgentConfig
from pifold_agent.loop.events import AgentEvent, OverflowRecovered, RetryWait
from pifold_agent.loop.streaming import StreamCollector, consume
from pifold_agent.loop.window import ContextWindow, EngineWindow
from pifold_agent.providers.base import ErrorClass, Provider, ProviderRequest, StreamDone, ToolSpec


class RequestingAgent(Protocol):
    """What sending a request needs of the agent: its context, provider and prompt, where
    its events go, and where a failed or aborted attempt is recorded."""

    @property
    def window(self) -> ContextWindow:
        """What requests are built from."""
        ...

    @property
    def provider(self) -> Provider:
        """Where requests go."""
        ...

    @property
    def config(self) -> AgentConfig:
        """The retry and overflow limits, the session id, the output reservation."""
        ...

    @property
    def system(self) -> str:
        """The system prompt every request carries."""
        ...

    @property
    def specs(self) -> Sequence[ToolSpec]:
        """The tools, in the order the provider sees them."""
        ...

    @property
    def head(self) -> str:
        """The digest of the prompt and the tools (a changed head is a cold cache)."""
        ...

    def emit(self, event: AgentEvent) -> None:
        """Hand one event to the agent's listeners."""
        ...

    def record_failed(self, done: StreamDone) -> None:
        """Keep a failed attempt that will be retried, in the session file only."""
        ...

    def record_aborted(self, collector: StreamCollector) -> None:
        """Keep the partial reply of an aborted request, in the session file only."""
        ...


async def request_reply(agent: RequestingAgent) -> StreamDone:
    """Send the engine's projection until a reply that is not a recoverable failure: an
    overflow is recovered (bounded by ``overflow_recoveries``) and the same request sent
    again, a transient failure waited out and retried (bounded by ``transient_retries``);
    each failed attempt is recorded in the session file only.

    Raises:
        asyncio.CancelledError: the caller aborted; the partial reply is recorded first.
    """
    transient = 0
    overflow = 0
    while True:
        if isinstance(agent.window, EngineWindow):  # the fixed prefix counted (issue 22)
            agent.window.set_prefix(agent.system, agent.specs)
        prepared = await agent.window.prepare(agent.emit, agent.head)
        baseline = previous_reply(agent.window.entries(), agent.provider.name)
        wire = ProviderRequest(
            system=agent.system,
            messages=prepared.messages,
            tools=agent.specs,
            settled_messages=prepared.settled_messages,
            session_id=agent.config.session_id,
            max_output_tokens=agent.config.max_output_tokens,
            cache_baseline=None if baseline is None else baseline.compared_id(agent.provider.name),
        )
        collector = StreamCollector()
        try:
            done = await consume(
                agent.provider, wire, collector, agent.emit, agent.config.waiting_notice_s
            )
        except asyncio.CancelledError:
            agent.record_aborted(collector)
            raise
        done = with_verdict(done, prepared.facts, baseline, agent.provider.name)
        prompt_tokens = done.usage.prompt_tokens if done.usage is not None else None
        if done.usage is not None and prompt_tokens is not None and prompt_tokens > 0:
            # An unknown prompt is no reading: nothing is measured (pifold_core.usage).
            agent.window.report_usage(prepared, done.usage)
        if done.stop_reason != "error" or done.error is None:
            return done
        kind = done.error.kind
        if kind is ErrorClass.CONTEXT_TOO_LONG and overflow < agent.config.overflow_recoveries:
            overflow += 1
            recovery = await agent.window.recover(agent.emit)
            if recovery.refusal is not None:
                # No fold can bring it under: one clear error now, nothing committed.
                message = f"{done.error.message}; {recovery.refusal}"
                return replace(done, error=replace(done.error, message=message))
            agent.emit(OverflowRecovered(overflow, recovery.expected_tokens, recovery.fits))
            if recovery.fits:
                agent.record_failed(done)
                continue
            message = (
                f"{done.error.message} (still {recovery.expected_tokens:,} tokens after "
                f"making room, over the budget of {recovery.budget:,})"
            )
            return replace(done, error=replace(done.error, message=message))
        if kind is ErrorClass.TRANSIENT and transient < agent.config.transient_retries:
            transient += 1
            agent.record_failed(done)
            delay = retry_delay(agent.config, transient, done.error.retry_after_s)
            agent.emit(RetryWait(transient, delay, done.error.message))
            await asyncio.sleep(delay)
            continue
        return done


def retry_delay(config: AgentConfig, attempt: int, retry_after_s: float | None) -> float:
    """How long to wait before retry number ``attempt`` (from 1): what the provider asked, or
    the base wait doubled at each attempt, never below zero or above the longest wait."""
    backoff = config.retry_base_delay_s * 2 ** (attempt - 1)
    wanted = retry_after_s if retry_after_s is not None else backoff
    return max(0.0, min(wanted, config.retry_max_delay_s))


__all__ = ["RequestingAgent", "request_reply", "retry_delay"]
