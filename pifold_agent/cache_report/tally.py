"""The session's cache figures: hit ratio, misses, the last miss and its cause, unexplained.

Read from the assistant messages of a session (their usage and the verdicts kept with them,
:mod:`pifold_agent.cache_report.records`), counted as they are recorded
(:class:`RunningTally`) or over a whole session at once (:meth:`CacheTally.of`), so the
footer, ``/fold-status``, the headless JSON and ``pifold replay --json`` all show the same
figures, live or after a reopen.

The **hit ratio** is the share of prompt tokens read from the cache, over every request whose
usage the provider reported. A **miss** is a request judged one
(:mod:`pifold_agent.cache_report.verdict`); **unexplained** counts the misses nothing the
engine knows explains.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pifold_agent.cache_report.records import entry_verdict
from pifold_agent.cache_report.verdict import CacheVerdict
from pifold_core.entries import Entry


@dataclass(frozen=True, slots=True)
class LastMiss:
    """The most recent miss."""

    request: int | None
    """The engine's request number, when the engine audited it."""
    cause: str | None
    """What explained it (``None``: unexplained, or unaudited)."""
    reason: str | None
    """The provider's own reason, when it named one."""
    missed_tokens: int | None
    """The tokens the provider says were not reused."""
    outcome: str
    """``explained``, ``unexplained`` or ``unaudited``."""

    def describe(self) -> str:
        """``commit 3``, ``UNEXPLAINED (messages_changed)``, ``expiry``..."""
        if self.cause is not None:
            return self.cause
        said = f" ({self.reason})" if self.reason else ""
        return ("UNEXPLAINED" if self.outcome == "unexplained" else "unaudited") + said


@dataclass(frozen=True, slots=True)
class CacheTally:
    """The cache figures of a session."""

    prompt_tokens: int = 0
    """Prompt tokens of every request with usage."""
    read_tokens: int = 0
    """Of them, read from the cache."""
    judged: int = 0
    """Requests with a verdict (the provider was asked for its report)."""
    reported: int = 0
    """Of them, requests the provider compared (a report other than ``not_compared``)."""
    unknown_reports: int = 0
    """Reports that were not in their documented shape."""
    misses: int = 0
    """Requests judged a miss."""
    explained: int = 0
    unexplained: int = 0
    last_miss: LastMiss | None = None

    @property
    def hit_ratio(self) -> float | None:
        """Share of prompt tokens read from the cache; ``None`` before any usage."""
        return self.read_tokens / self.prompt_tokens if self.prompt_tokens else None

    @classmethod
    def of(cls, entries: Iterable[Entry]) -> CacheTally:
        """The figures of the assistant messages among ``entries``."""
        running = RunningTally()
        for entry in entries:
            running.add(entry)
        return running.tally()

    def footer_figure(self) -> str | None:
        """``82% hit · last miss: commit 3 · 1 unexplained``; ``None`` when no reply carries a
        verdict (a provider or model that gives no cache report: the tokens read say it all)."""
        ratio = self.hit_ratio
        if not self.judged:
            return None
        parts = [] if ratio is None else [f"{ratio:.0%} hit"]
        if self.last_miss is not None:
            parts.append(f"last miss: {self.last_miss.describe()}")
        if self.unexplained:
            parts.append(f"{self.unexplained} unexplained")
        return " · ".join(parts)

    def to_json(self) -> dict[str, Any]:
        """The figures as the headless JSON and ``pifold replay --json`` give them."""
        ratio = self.hit_ratio
        last = self.last_miss
        return {
            "hitRatio": None if ratio is None else round(ratio, 4),
            "promptTokens": self.prompt_tokens,
            "readTokens": self.read_tokens,
            "judged": self.judged,
            "reported": self.reported,
            "unknownReports": self.unknown_reports,
            "misses": self.misses,
            "explained": self.explained,
            "unexplained": self.unexplained,
            "lastMiss": None
            if last is None
            else {
                "request": last.request,
                "outcome": last.outcome,
                "cause": last.cause,
                "reason": last.reason,
                "missedTokens": last.missed_tokens,
            },
        }


class RunningTally:
    """The cache figures counted one message at a time, as the session records them.

    A holder that is told of every recorded message (the app's footer) keeps one, so showing
    the figures reads these counters instead of every message again (a repaint stays the same
    cost at any session length). :meth:`CacheTally.of` counts with one too, so the running
    figures and a count over the whole session are the same by construction.
    """

    def __init__(self) -> None:
        self.prompt_tokens = 0
        """Prompt tokens of every request with usage, so far."""
        self.read_tokens = 0
        """Of them, read from the cache."""
        self.judged = 0
        """Requests with a verdict so far."""
        self.reported = 0
        """Of them, requests the provider compared."""
        self.unknown_reports = 0
        """Reports that were not in their documented shape."""
        self.misses = 0
        """Requests judged a miss."""
        self.explained = 0
        """Misses something the engine knows explains."""
        self.unexplained = 0
        """Misses nothing explains."""
        self.last_miss: CacheVerdict | None = None
        """The verdict of the most recent miss."""

    def add(self, entry: Entry) -> None:
        """Count one recorded message (only an assistant message carries figures)."""
        if entry.kind != "assistant":
            return
        usage = entry.usage
        if usage is not None and usage.prompt_tokens:
            self.prompt_tokens += usage.prompt_tokens
            self.read_tokens += usage.cache_read_tokens or 0
        verdict = entry_verdict(entry)
        if verdict is None:
            return
        self.judged += 1
        self.reported += verdict.report.kind != "not_compared"
        self.unknown_reports += verdict.report.kind == "unknown"
        if verdict.missed:
            self.misses += 1
            self.explained += verdict.outcome == "explained"
            self.unexplained += verdict.outcome == "unexplained"
            self.last_miss = verdict

    def tally(self) -> CacheTally:
        """The figures counted so far (a few fields copied: the same cost at any length)."""
        last = self.last_miss
        return CacheTally(
            self.prompt_tokens,
            self.read_tokens,
            self.judged,
            self.reported,
            self.unknown_reports,
            self.misses,
            self.explained,
            self.unexplained,
            None if last is None else _last(last),
        )


def _last(verdict: CacheVerdict) -> LastMiss:
    return LastMiss(
        request=None if verdict.facts is None else verdict.facts.request,
        cause=verdict.cause,
        reason=verdict.report.reason,
        missed_tokens=verdict.report.missed_tokens,
        outcome=verdict.outcome,
    )


__all__ = ["CacheTally", "LastMiss", "RunningTally"]
