"""Every cache miss explained by what the engine knows, or counted as unexplained.

The provider's report (:mod:`pifold_agent.cache_report.reports`) and its usage say whether a
request reused the cache; the engine's wire audit says what pifold did to the prefix since
the request before (:class:`EngineFacts`). :func:`judge` puts the two side by side:

* a request is a **miss** when the provider names a divergence (``messages_changed``,
  ``cache_miss``...), or when it names none but read nothing from a cache it reports on
  although an earlier request of the session could have left one (an expired or evicted
  entry: Anthropic's guide reads "no divergence and zero cache reads" exactly so);
* a miss is **explained** by a *commit* (the audit classified the request as a rewrite
  attributed to a commit or verb, and the provider says the messages or input changed), an
  *expiry* (more time since the previous request than the cache's lifetime), a *host head
  change* (the system prompt or tools changed: the provider says the system, tools or input
  changed, or read nothing) or a *model switch* (the previous reply came from another model
  or provider, and the provider says the model changed, or read nothing);
* any other miss is **unexplained**: bytes the engine promised to keep were not reused, and
  nothing pifold knows says why. That is the figure to watch (zero on a healthy session).

The first request of a session reads nothing from the cache by nature: it is ``first``, not
a miss. Without an engine audit (``--no-fold``) a miss is ``unaudited``: there is nothing to
explain it by. Pure: no I/O, no clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from pifold_agent.cache_report.reports import ProviderCacheReport

Outcome = Literal["hit", "first", "explained", "unexplained", "unaudited"]
"""How one request went: reused the cache (or was not a miss), the session's first request,
a miss explained, a miss unexplained, a miss with no engine audit to explain it."""

OUTCOMES: Final[tuple[Outcome, ...]] = ("hit", "first", "explained", "unexplained", "unaudited")

MESSAGE_REASONS: Final = frozenset({"messages_changed", "input_changed"})
"""Reasons a commit's rewrite explains (OpenAI's ``input`` holds the messages)."""

HEAD_REASONS: Final = frozenset({"system_changed", "tools_changed", "input_changed"})
"""Reasons a host head change explains (OpenAI's ``input`` starts with the system prompt)."""

COMMIT: Final = "commit"
EXPIRY: Final = "expiry"
HEAD_CHANGE: Final = "host head change"
MODEL_SWITCH: Final = "model switch"


@dataclass(frozen=True, slots=True)
class EngineFacts:
    """What the engine's wire audit knew about one request before it was sent."""

    request: int
    """The engine's request number."""
    classification: str
    """The audit's verdict: ``append``, ``attributed`` or ``unattributed``."""
    first_divergence: int | None = None
    """The first message that differs from the previous request (a rewrite)."""
    causes: tuple[str, ...] = ()
    """The commits and verbs the rewrite is attributed to."""
    expired: bool = False
    """More time passed since the previous request than the cache's lifetime."""
    head_changed: bool = False
    """The host's prompt head (system prompt and tools) differs from the previous request's."""
    first: bool = False
    """No request came before it in the session."""


@dataclass(frozen=True, slots=True)
class CacheVerdict:
    """One request's cache outcome: the provider's word beside the engine's."""

    report: ProviderCacheReport
    """What the provider reported."""
    facts: EngineFacts | None
    """What the engine's audit knew (``None``: no engine, ``--no-fold``)."""
    read_tokens: int | None
    """Prompt tokens read from the cache (the usage's), when known."""
    outcome: Outcome
    """How the request went."""
    cause: str | None = None
    """What explains a miss (``commit 3``, ``expiry``, ``host head change``, ``model switch``)."""

    @property
    def missed(self) -> bool:
        """Whether the request was a miss (explained or not)."""
        return self.outcome in ("explained", "unexplained", "unaudited")


def judge(
    report: ProviderCacheReport,
    facts: EngineFacts | None,
    read_tokens: int | None,
    model_switched: bool = False,
) -> CacheVerdict:
    """The verdict on one request (see the module docstring for the rules)."""
    first = facts.first if facts is not None else report.kind == "not_compared"
    named = report.kind == "miss"
    read_nothing = read_tokens == 0
    if not named and (not read_nothing or first):
        return CacheVerdict(report, facts, read_tokens, "first" if first else "hit")
    if facts is None:
        return CacheVerdict(report, facts, read_tokens, "unaudited")
    cause = (
        _named_cause(report.reason, facts, model_switched)
        if named
        else _silent_cause(facts, model_switched)
    )
    if facts.classification == "unattributed":
        cause = None  # the engine moved bytes it cannot name: nothing it says explains that
    outcome: Outcome = "explained" if cause is not None else "unexplained"
    return CacheVerdict(report, facts, read_tokens, outcome, cause)


def _commit(facts: EngineFacts) -> str | None:
    if facts.classification != "attributed":
        return None
    return ", ".join(facts.causes) or COMMIT


def _named_cause(reason: str | None, facts: EngineFacts, model_switched: bool) -> str | None:
    """What explains a miss whose reason the provider named."""
    if reason in HEAD_REASONS and facts.head_changed:
        return HEAD_CHANGE
    if reason in MESSAGE_REASONS:
        return _commit(facts)
    if reason == "model_changed" and model_switched:
        return MODEL_SWITCH
    return None


def _silent_cause(facts: EngineFacts, model_switched: bool) -> str | None:
    """What explains a request that read nothing though the provider named no divergence
    (a switch to another provider or model starts on a cache of its own)."""
    if facts.expired:
        return EXPIRY
    if facts.head_changed:
        return HEAD_CHANGE
    if model_switched:
        return MODEL_SWITCH
    return _commit(facts)


__all__ = [
    "COMMIT",
    "EXPIRY",
    "HEAD_CHANGE",
    "HEAD_REASONS",
    "MESSAGE_REASONS",
    "MODEL_SWITCH",
    "OUTCOMES",
    "CacheVerdict",
    "EngineFacts",
    "Outcome",
    "judge",
]
