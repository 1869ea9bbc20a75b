"""The wire audit (DESIGN §4): every request classified against the one before it.

For each request the audit keeps the ordered per-message digests. A request is

* an **append** when the previous request's digests are a prefix of its own (an identical
  request counts as an append: nothing moved);
* an **attributed rewrite** when an earlier message changed and a commit or verb since the
  previous request declared it would rewrite;
* an **unattributed rewrite** otherwise: a byte moved for a reason the engine cannot name.
  That is a bug, and the target is zero on every trace.

Comparison is at message-digest level, never on the serialised text, so an append is never
mistaken for a divergence at the closing bracket.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pifold_core.canonical import sha256_hex

RequestClass = Literal["append", "attributed", "unattributed"]


@dataclass(frozen=True, slots=True)
class RequestRecord:
    """The audit's verdict on one request."""

    number: int
    """1-based request number in the session."""
    classification: RequestClass
    """``append``, ``attributed`` or ``unattributed``."""
    message_count: int
    """Messages in the request."""
    tokens: int
    """Estimated tokens of the request."""
    first_divergence: int | None
    """Index of the first message that differs from the previous request (rewrites only)."""
    causes: tuple[str, ...] = ()
    """The commits and verbs the rewrite is attributed to."""


@dataclass
class AuditCounts:
    """Running totals over the session."""

    requests: int = 0
    appends: int = 0
    rewrites: int = 0
    """Attributed rewrites."""
    unattributed: int = 0


@dataclass
class WireAudit:
    """Classifies each request and keeps the counts."""

    previous: list[str] = field(default_factory=list)
    """Digests of the last request sent."""
    counts: AuditCounts = field(default_factory=AuditCounts)
    """Totals so far."""
    pending_causes: list[str] = field(default_factory=list)
    """Rewrites declared since the last request (commits, verbs)."""
    last: RequestRecord | None = None
    """The most recent verdict."""

    def declare(self, cause: str) -> None:
        """Record that ``cause`` (for example ``commit 3`` or ``expand fold-ab12``) rewrites."""
        self.pending_causes.append(cause)

    def observe(self, digests: list[str], tokens: int) -> RequestRecord:
        """Classify a request about to be sent, then remember it as the previous one."""
        previous = self.previous
        prefix_holds = len(digests) >= len(previous) and digests[: len(previous)] == previous
        divergence: int | None = None
        causes: tuple[str, ...] = ()
        if prefix_holds:
            classification: RequestClass = "append"
            self.counts.appends += 1
        else:
            divergence = next(
                (
                    index
                    for index, (old, new) in enumerate(zip(previous, digests, strict=False))
                    if old != new
                ),
                min(len(previous), len(digests)),
            )
            causes = tuple(self.pending_causes)
            if causes:
                classification = "attributed"
                self.counts.rewrites += 1
            else:
                classification = "unattributed"
                self.counts.unattributed += 1
        self.counts.requests += 1
        record = RequestRecord(
            number=self.counts.requests,
            classification=classification,
            message_count=len(digests),
            tokens=tokens,
            first_divergence=divergence,
            causes=causes,
        )
        self.previous = digests
        self.pending_causes = []
        self.last = record
        return record


def request_digest(digests: list[str]) -> str:
    """One digest over a request's ordered message digests (what the log records)."""
    return sha256_hex("".join(digests).encode("ascii"))
