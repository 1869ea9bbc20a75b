"""The provider's side of cache diagnostics, as each documents it, for the local server.

Anthropic (https://platform.claude.com/docs/en/build-with-claude/cache-diagnostics) keeps a
fingerprint of every request that opts in with a ``diagnostics`` object, under the id of the
reply it answered; a request naming that id in ``diagnostics.previous_message_id`` is
compared with it and the reply's message carries ``diagnostics``: ``null`` when nothing
diverged, else the first divergence (model, then system, then tools, then messages) with
the tokens that would have been read. OpenAI Responses
(https://developers.openai.com/api/docs/guides/prompt-caching/diagnostics) compares a request
naming ``prompt_cache_options.comparison_response_id`` with that response and answers
``prompt_cache_diagnostics`` (``cache_hit``, ``cache_miss`` with its reason,
``comparison_response_not_found``). Markers that only say where to cache
(``cache_control``, ``prompt_cache_breakpoint``) are not part of a fingerprint.

:class:`DiagnosingCache` does that over the requests the local server records, and says
what the usage should report as read from the cache: the prefix the request shares with the
previous one, unless :meth:`DiagnosingCache.expire` dropped the cached entries (a cache
entry past its lifetime). Tokens are JSON characters / 4, the test counter's rule.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

MARKERS = ("cache_control", "prompt_cache_breakpoint")


def unmarked(value: Any) -> Any:
    """``value`` without the cache markers, at any depth."""
    if isinstance(value, dict):
        return {key: unmarked(item) for key, item in value.items() if key not in MARKERS}
    if isinstance(value, list):
        return [unmarked(item) for item in value]
    return value


def tokens(value: Any) -> int:
    return len(json.dumps(value)) // 4


@dataclass(frozen=True)
class Fingerprint:
    """One request as the provider compares it."""

    fields: tuple[tuple[str, Any], ...]
    """The request's head fields in comparison order (model, system or key, tools)."""
    messages: list[Any]
    """Its messages (Anthropic) or input items (OpenAI), markers taken out."""


@dataclass
class Diagnosis:
    """What the provider answers for one request."""

    reply_id: str
    diagnostics: Any
    """The reply's ``diagnostics`` / ``prompt_cache_diagnostics`` value (``ABSENT``: none)."""
    cached: int
    """Tokens the usage reports as read from the cache."""


@dataclass
class DiagnosingCache:
    """The provider's fingerprints and cache, for one provider (``anthropic``/``openai``)."""

    provider: str
    fingerprints: dict[str, Fingerprint] = field(default_factory=dict)
    previous: Fingerprint | None = None
    expired: bool = False
    count: int = 0
    diagnoses: list[Diagnosis] = field(default_factory=list)

    def expire(self) -> None:
        """Drop the cached entries (their lifetime passed); fingerprints are kept."""
        self.expired = True

    def fingerprint(self, body: dict[str, Any]) -> Fingerprint:
        if self.provider == "anthropic":
            head = (
                ("model_changed", body.get("model")),
                ("system_changed", unmarked(body.get("system"))),
                ("tools_changed", unmarked(body.get("tools"))),
            )
            return Fingerprint(head, unmarked(body.get("messages", [])))
        head = (
            ("model_changed", body.get("model")),
            ("prompt_cache_key_changed", body.get("prompt_cache_key")),
            ("tools_changed", unmarked(body.get("tools"))),
        )
        return Fingerprint(head, unmarked(body.get("input", [])))

    def diagnose(self, body: dict[str, Any], absent: Any) -> Diagnosis:
        """The reply to one request: its id, its diagnostics and what it read from cache."""
        self.count += 1
        reply_id = f"msg_{self.count:04d}" if self.provider == "anthropic" else f"resp_{self.count}"
        current = self.fingerprint(body)
        asked, baseline_id = self._asked(body)
        diagnostics: Any = absent
        if asked:
            baseline = self.fingerprints.get(baseline_id) if baseline_id else None
            diagnostics = self._compared(current, baseline, baseline_id is not None)
            self.fingerprints[reply_id] = current
        cached = 0 if self.expired else self._shared(current, self.previous)
        self.expired = False
        self.previous = current
        diagnosis = Diagnosis(reply_id, diagnostics, cached)
        self.diagnoses.append(diagnosis)
        return diagnosis

    def _asked(self, body: dict[str, Any]) -> tuple[bool, str | None]:
        if self.provider == "anthropic":
            options = body.get("diagnostics")
            return isinstance(options, dict), (options or {}).get("previous_message_id")
        options = body.get("prompt_cache_options") or {}
        baseline = options.get("comparison_response_id")
        return baseline is not None, baseline

    def _compared(self, now: Fingerprint, before: Fingerprint | None, named: bool) -> Any:
        anthropic = self.provider == "anthropic"
        if before is None:
            if not named:
                return None  # a first request opting in: nothing to compare
            if anthropic:
                return {"cache_miss_reason": {"type": "previous_message_not_found"}}
            return {"type": "comparison_response_not_found"}
        reason, missed = self._divergence(now, before)
        if reason is None:
            return None if anthropic else {"type": "cache_hit"}
        if anthropic:
            return {"cache_miss_reason": {"type": reason, "cache_missed_input_tokens": missed}}
        return {
            "type": "cache_miss",
            "reason": reason,
            "cache_missed_tokens": missed,
            "comparison_reusable_tokens": tokens(before.messages),
        }

    def _divergence(self, now: Fingerprint, before: Fingerprint) -> tuple[str | None, int]:
        for (reason, value), (_, old) in zip(now.fields, before.fields, strict=True):
            if value != old:
                return reason, tokens(before.messages)
        shared = _shared_count(now.messages, before.messages)
        if shared < len(before.messages):
            reason = "messages_changed" if self.provider == "anthropic" else "input_changed"
            return reason, tokens(before.messages[shared:])
        return None, 0

    def _shared(self, now: Fingerprint, before: Fingerprint | None) -> int:
        if before is None or now.fields != before.fields:
            return 0
        shared = _shared_count(now.messages, before.messages)
        return tokens([value for _, value in now.fields]) + tokens(now.messages[:shared])


def _shared_count(now: list[Any], before: list[Any]) -> int:
    count = 0
    for new, old in zip(now, before, strict=False):
        if new != old:
            break
        count += 1
    return count


__all__ = ["DiagnosingCache", "Diagnosis", "Fingerprint", "tokens", "unmarked"]
