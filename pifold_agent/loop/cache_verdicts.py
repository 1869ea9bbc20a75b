"""The loop's part of the cache report: the baseline each request names, the verdict kept.

Before a request, the loop names the previous reply of the same provider (its id, kept with
the assistant message) so the adapter can ask the provider to compare the two
(:class:`~pifold_agent.providers.base.ProviderRequest.cache_baseline`). After the reply, the
provider's report (``StreamDone.extra``'s ``cache_report``, put there by an adapter that
asked) is judged beside what the engine's audit knew of the request
(:class:`~pifold_agent.cache_report.verdict.EngineFacts`) and the verdict replaces it, so the
assistant message keeps it in the session file and the engine's log
(:mod:`pifold_agent.cache_report.records`). A reply without a report gets no verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from pifold_agent.cache_report.records import (
    CACHE_KEY,
    REPORT_KEY,
    entry_reply_id,
    read_report,
    verdict_record,
)
from pifold_agent.cache_report.verdict import EngineFacts, judge
from pifold_agent.loop.messages import in_context
from pifold_agent.providers.base import StreamDone
from pifold_core.entries import Entry


@dataclass(frozen=True, slots=True)
class Baseline:
    """The previous reply: what a request is compared with."""

    reply_id: str | None
    """The provider's id for it; ``None`` when another provider wrote it, or kept no id."""
    model: str | None
    """The model that wrote it (a different one now: a model switch)."""
    provider: str | None
    """The adapter that asked for it (another one now: a switch as well)."""

    def compared_id(self, provider: str) -> str | None:
        """The id ``provider`` can compare with (its own replies' only)."""
        return self.reply_id if self.provider == provider else None


def previous_reply(entries: Sequence[Entry], provider: str) -> Baseline | None:
    """The last assistant message in context, if any (``provider``: the adapter asking)."""
    for entry in reversed(entries):
        if entry.kind != "assistant" or not in_context(entry):
            continue
        wrote = entry.extra.get("provider")
        return Baseline(
            entry_reply_id(entry), entry.model, wrote if isinstance(wrote, str) else None
        )
    return None


def with_verdict(
    done: StreamDone, facts: EngineFacts | None, baseline: Baseline | None, provider: str
) -> StreamDone:
    """``done`` with the provider's cache report judged (unchanged when it has none)."""
    if REPORT_KEY not in done.extra:
        return done
    extra = dict(done.extra)
    report = read_report(extra.pop(REPORT_KEY))
    if report is None or done.stop_reason == "error":
        # A failed reply is never a baseline or a figure; an unreadable report is a defect
        # of the adapter's, not the provider's, and is dropped rather than guessed at.
        return replace(done, extra=extra)
    read = done.usage.cache_read_tokens if done.usage is not None else None
    switched = baseline is not None and (
        baseline.provider != provider
        or (baseline.model is not None and done.model is not None and baseline.model != done.model)
    )
    extra[CACHE_KEY] = verdict_record(judge(report, facts, read, switched))
    return replace(done, extra=extra)


__all__ = ["Baseline", "previous_reply", "with_verdict"]
