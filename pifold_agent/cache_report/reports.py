"""The providers' own cache reports: what each documents, read into one shape.

Both providers can say why a request did not reuse the prompt cache, when the request names
an earlier reply to compare with. What they document (read 2026-12-03):

**Anthropic, cache diagnostics**
(https://platform.claude.com/docs/en/build-with-claude/cache-diagnostics, and its ``.md``
form). The request carries ``"diagnostics": {"previous_message_id": "msg_..."}`` (``null`` on
a first turn: it opts in with nothing to compare). The page still names a beta header,
``cache-diagnosis-2026-04-07``; the translated pages mark the feature GA and the installed
SDK (anthropic 2.15) takes ``diagnostics`` on ``messages.create`` without it, so no header is
sent. The reply's message (``message_start``'s ``message`` when streaming) carries
``diagnostics``:

* ``null``: no divergence was found (or the request did not ask);
* ``{"cache_miss_reason": null}``: the comparison was still running (inconclusive);
* ``{"cache_miss_reason": {"type": T, "cache_missed_input_tokens": N}}`` with ``T`` one of
  ``model_changed``, ``system_changed``, ``tools_changed``, ``messages_changed`` (``N``: the
  approximate tokens that would have been read had the prefix matched), or
  ``{"type": "previous_message_not_found"}`` (no record of the earlier request, for example
  past its retention) or ``{"type": "unavailable"}`` (no diagnosis possible).

**OpenAI Responses, prompt cache diagnostics**
(https://developers.openai.com/api/docs/guides/prompt-caching/diagnostics), for GPT-5.6 and
later. The request carries ``"prompt_cache_options": {"comparison_response_id": "resp_..."}``;
the response carries ``prompt_cache_diagnostics``, discriminated on ``type``:
``{"type": "cache_hit"}``, ``{"type": "cache_miss", "reason": R, "cache_missed_tokens": N,
"comparison_reusable_tokens": M?}`` with ``R`` one of ``model_changed``,
``prompt_cache_key_changed``, ``tools_changed``, ``text_format_changed``,
``reasoning_effort_changed``, ``verbosity_changed``, ``context_compacted``,
``input_changed``, ``service_tier_changed`` (the installed SDK's enum, openai 3.57),
``{"type": "comparison_response_not_found"}`` or ``{"type": "unavailable"}``.

A report that is not in its documented shape is bad input: it reads as ``unknown`` with the
problem named, and nothing else is taken from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

from pifold_core.canonical import JsonValue

ReportKind = Literal[
    "hit", "miss", "baseline_missing", "pending", "unavailable", "not_compared", "unknown"
]
"""What a provider said about one request's cache reuse:

* ``hit``: the request's prefix matched the earlier one's (nothing diverged);
* ``miss``: it diverged, for :attr:`ProviderCacheReport.reason`;
* ``baseline_missing``: the provider has no record of the earlier reply;
* ``pending``: the comparison had not finished (Anthropic);
* ``unavailable``: the provider could not compare;
* ``not_compared``: no earlier reply was named (a first request, or no diagnostics asked);
* ``unknown``: the report was not in its documented shape."""

REPORT_KINDS: Final[tuple[ReportKind, ...]] = (
    "hit",
    "miss",
    "baseline_missing",
    "pending",
    "unavailable",
    "not_compared",
    "unknown",
)

ANTHROPIC_CHANGES: Final = frozenset(
    {"model_changed", "system_changed", "tools_changed", "messages_changed"}
)
"""Anthropic's ``cache_miss_reason`` types that name a divergence (with a token count)."""

OPENAI_REASONS: Final = frozenset(
    {
        "model_changed",
        "prompt_cache_key_changed",
        "tools_changed",
        "text_format_changed",
        "reasoning_effort_changed",
        "verbosity_changed",
        "context_compacted",
        "input_changed",
        "service_tier_changed",
    }
)
"""OpenAI's documented ``cache_miss`` reasons."""

MAX_REASON_CHARS: Final = 64
"""The longest reason kept as sent; the documented ones are under 30 characters."""

MAX_TOKENS: Final = 100_000_000
"""The largest token count taken (as for usage, :mod:`pifold_agent.providers.reply_usage`)."""


@dataclass(frozen=True, slots=True)
class ProviderCacheReport:
    """One provider's cache report for one request, in the documented terms."""

    kind: ReportKind
    """What the provider said (see :data:`ReportKind`)."""
    reason: str | None = None
    """The provider's reason for a miss (``messages_changed``, ``input_changed``...)."""
    missed_tokens: int | None = None
    """The tokens the provider says were not reused (a miss)."""
    reusable_tokens: int | None = None
    """OpenAI's ``comparison_reusable_tokens``: the earlier reply's reusable prefix."""
    problem: str | None = None
    """For ``unknown``: what was wrong with the report."""


NOT_COMPARED: Final = ProviderCacheReport("not_compared")


def anthropic_report(diagnostics: JsonValue, present: bool, compared: bool) -> ProviderCacheReport:
    """The report in an Anthropic message's ``diagnostics`` (``present``: the key was there)."""
    if not compared:
        return NOT_COMPARED
    if not present or diagnostics is None:
        return ProviderCacheReport("hit")
    if not isinstance(diagnostics, Mapping):
        return _unknown(f"diagnostics was {_shown(diagnostics)}, not an object")
    if "cache_miss_reason" not in diagnostics or diagnostics["cache_miss_reason"] is None:
        return ProviderCacheReport("pending")
    reason = diagnostics["cache_miss_reason"]
    if not isinstance(reason, Mapping):
        return _unknown(f"cache_miss_reason was {_shown(reason)}, not an object")
    kind = reason.get("type")
    if kind == "previous_message_not_found":
        return ProviderCacheReport("baseline_missing", reason=kind)
    if kind == "unavailable":
        return ProviderCacheReport("unavailable", reason=kind)
    if not isinstance(kind, str) or kind not in ANTHROPIC_CHANGES:
        return _unknown(f"cache_miss_reason.type was {_shown(kind)}, not a documented type")
    missed = token_figure(reason.get("cache_missed_input_tokens"))
    if missed is None:
        value = _shown(reason.get("cache_missed_input_tokens"))
        return _unknown(f"cache_missed_input_tokens was {value}, not a token count")
    return ProviderCacheReport("miss", reason=str(kind), missed_tokens=missed)


def openai_report(diagnostics: JsonValue, compared: bool) -> ProviderCacheReport:
    """The report in a Responses response's ``prompt_cache_diagnostics``."""
    if not compared:
        return NOT_COMPARED
    if diagnostics is None:
        return ProviderCacheReport("unavailable")
    if not isinstance(diagnostics, Mapping):
        return _unknown(f"prompt_cache_diagnostics was {_shown(diagnostics)}, not an object")
    kind = diagnostics.get("type")
    if kind == "cache_hit":
        return ProviderCacheReport("hit")
    if kind == "comparison_response_not_found":
        return ProviderCacheReport("baseline_missing", reason=kind)
    if kind == "unavailable":
        return ProviderCacheReport("unavailable", reason=kind)
    if kind != "cache_miss":
        return _unknown(f"prompt_cache_diagnostics.type was {_shown(kind)}, not a documented type")
    reason = diagnostics.get("reason")
    if not (
        isinstance(reason, str) and 0 < len(reason) <= MAX_REASON_CHARS and reason.isprintable()
    ):
        return _unknown(f"the miss's reason was {_shown(reason)}, not a reason")
    missed = token_figure(diagnostics.get("cache_missed_tokens"))
    if missed is None:
        value = _shown(diagnostics.get("cache_missed_tokens"))
        return _unknown(f"cache_missed_tokens was {value}, not a token count")
    reusable_value = diagnostics.get("comparison_reusable_tokens")
    reusable = token_figure(reusable_value)
    if reusable_value is not None and reusable is None:
        return _unknown(f"comparison_reusable_tokens was {_shown(reusable_value)}, not a count")
    # A reason the SDK's enum does not list is still a miss the provider named: kept as sent
    # (the enum has grown before), and no explanation can match it.
    return ProviderCacheReport(
        "miss", reason=reason, missed_tokens=missed, reusable_tokens=reusable
    )


def token_figure(value: object) -> int | None:
    """A whole number of tokens from 0 to :data:`MAX_TOKENS`, else ``None``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and 0 <= value <= MAX_TOKENS:
        return value
    return None


def _unknown(problem: str) -> ProviderCacheReport:
    return ProviderCacheReport("unknown", problem=problem)


def _shown(value: object) -> str:
    text = repr(value)
    text = text.encode("utf-8", "replace").decode("utf-8")
    return text if len(text) <= 40 else f"{text[:37]}..."


__all__ = [
    "ANTHROPIC_CHANGES",
    "NOT_COMPARED",
    "OPENAI_REASONS",
    "REPORT_KINDS",
    "ProviderCacheReport",
    "ReportKind",
    "anthropic_report",
    "openai_report",
    "token_figure",
]
