"""The summarisation calls of a native compaction, made through a :class:`Provider`.

Given a :class:`~pifold_agent.compaction.planning.CompactionPlan`, :func:`summarise` asks the
provider for the history summary (or writes the fixed line when a split turn has nothing
before it) and, for a split turn, for the turn prefix's summary, one request after the other
as Pi's later versions do. Each is a standalone request: the summariser's system prompt, one
user message, no tools, and the output budget the settings give. The result is the text of
Pi's ``compaction`` entry: the summary (both joined for a split turn) and the file lists.

A failed request raises :class:`CompactionError` with the provider's words; nothing has been
written at that point, so the session is unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

from pifold_agent.compaction.planning import CompactionPlan
from pifold_agent.compaction.prompts import (
    NO_PRIOR_HISTORY,
    SUMMARISER_SYSTEM_PROMPT,
    history_prompt,
    join_split_turn,
    turn_prefix_prompt,
    with_file_lists,
)
from pifold_agent.compaction.settings import CompactionSettings
from pifold_agent.providers.base import Provider, ProviderRequest, StreamDone
from pifold_core.entries import TextBlock, Usage, text_entry


class CompactionError(RuntimeError):
    """A summarisation request failed or returned no text; nothing was compacted."""


@dataclass(frozen=True, slots=True)
class CompactionSummary:
    """What the summariser produced for one plan."""

    summary: str
    """The text for the ``compaction`` entry, file lists included."""
    requests: int
    """Summarisation requests made (two for a split turn with history, else one)."""
    usage: tuple[Usage, ...]
    """The provider's usage of each request that reported one."""


def summary_request(prompt: str, max_output_tokens: int) -> ProviderRequest:
    """One standalone summarisation request: no tools, no session cache key."""
    message = text_entry("summary-request", "user", prompt).wire
    return ProviderRequest(
        system=SUMMARISER_SYSTEM_PROMPT,
        messages=[message],
        tools=(),
        max_output_tokens=max_output_tokens,
    )


async def _ask(provider: Provider, request: ProviderRequest, usages: list[Usage]) -> str:
    done: StreamDone | None = None
    async for event in provider.stream(request):
        if isinstance(event, StreamDone):
            done = event
    if done is None:
        raise CompactionError(f"{provider.name}: the summary stream ended without a result")
    if done.stop_reason in ("error", "aborted"):
        reason = done.error.message if done.error is not None else done.stop_reason
        raise CompactionError(f"summarisation request failed: {reason}")
    if done.usage is not None:
        usages.append(done.usage)
    text = "".join(block.text for block in done.content if isinstance(block, TextBlock)).strip()
    if not text:
        raise CompactionError("summarisation request returned no text")
    return text


async def summarise(
    provider: Provider,
    plan: CompactionPlan,
    settings: CompactionSettings,
    custom_instructions: str | None = None,
    max_model_output_tokens: int | None = None,
) -> CompactionSummary:
    """Ask ``provider`` for the summary of ``plan``.

    ``max_model_output_tokens`` caps both output budgets by the model's own limit.

    Raises:
        CompactionError: a request failed, was aborted or returned no text.
    """

    def budget(tokens: int) -> int:
        if max_model_output_tokens is None:
            return tokens
        return min(tokens, max_model_output_tokens)

    usages: list[Usage] = []
    requests = 0
    if plan.history:
        prompt = history_prompt(plan.history, plan.previous_summary, custom_instructions)
        history_summary = await _ask(
            provider, summary_request(prompt, budget(settings.history_summary_budget)), usages
        )
        requests += 1
    else:
        history_summary = NO_PRIOR_HISTORY
    summary = history_summary
    if plan.is_split_turn:
        prompt = turn_prefix_prompt(plan.turn_prefix)
        prefix_summary = await _ask(
            provider, summary_request(prompt, budget(settings.turn_prefix_summary_budget)), usages
        )
        requests += 1
        summary = join_split_turn(history_summary, prefix_summary)
    text = with_file_lists(summary, plan.file_operations)
    return CompactionSummary(text, requests, tuple(usages))


__all__ = ["CompactionError", "CompactionSummary", "summarise", "summary_request"]
