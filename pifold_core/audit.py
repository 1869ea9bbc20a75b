"""The wire audit (DESIGN §4): every request classified against the one before it.

For each request the audit keeps the ordered per-message digests. A request is

* an **append** when the previous request's digests are a prefix of its own (an identical
  request counts as an append: nothing moved);
* an **attributed rewrite** when an earlier message changed and a commit or verb since the
  previous request declared it would rewrite;
* an **unattributed rewrite** otherwise: a byte moved for a reason the engine cannot name.
  That is a bug, and the target is zero on every trace.

Comparison is at message-digest level, never on the serialised text, so an append is never
mistaken for a divergence at the closing bracket. Each digest is the SHA-256 of the message's
wire bytes (:func:`pifold_core.canonical.wire_bytes`): the bytes a host sends, object keys
in the order the engine gives them, so a restart or a serialiser that reordered a tool
call's arguments would be caught here as a rewrite.
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

    def restore_state(
        self,
        previous: list[str],
        counts: AuditCounts,
        pending_causes: list[str],
        last: RequestRecord | None,
    ) -> None:
        """Take back what a checkpoint kept of the audit (:mod:`pifold_core.checkpoint_state`)."""
        self.previous, self.counts = previous, counts
        self.pending_causes, self.last = pending_causes, last

    def declare(self, cause: str) -> None:
        """Record that ``cause`` (for example ``commit 3`` or ``expand fold-ab12``) rewrites."""
        self.pending_causes.append(cause)

    def observe(self, digests: list[str], tokens: int) -> RequestRecord:
        """Classify a request about to be sent, then remember it as the previous one."""
        record = self.classify(digests, tokens)
        self.accept(record, digests)
        return record

    def classify(self, digests: list[str], tokens: int) -> RequestRecord:
        """The verdict on a request, changing nothing: a host logs it, then accepts
        it, so a request whose record could not be written is never counted."""
        previous = self.previous
        prefix_holds = len(digests) >= len(previous) and digests[: len(previous)] == previous
        divergence: int | None = None
        causes: tuple[str, ...] = ()
        classification: RequestClass = "append"
        if not prefix_holds:
            divergence = next(
                (
                    index
                    for index, (old, new) in enumerate(zip(previous, digests, strict=False))
                    if old != new
                ),
                min(len(previous), len(digests)),
            )
            causes = tuple(self.pending_causes)
            classification = "attributed" if causes else "unattributed"
        return RequestRecord(
            number=self.counts.requests + 1,
            classification=classification,
            message_count=len(digests),
            tokens=tokens,
            first_divergence=divergence,
            causes=causes,
        )

    def accept(self, record: RequestRecord, digests: list[str]) -> None:
        """Count ``record`` (from :meth:`classify`) as sent with ``digests``."""
        if record.number != self.counts.requests + 1:
            raise ValueError(
                f"request {record.number} is not the next one ({self.counts.requests + 1})"
            )
        if record.classification == "append":
            self.counts.appends += 1
        elif record.classification == "attributed":
            self.counts.rewrites += 1
        else:
            self.counts.unattributed += 1
        self.counts.requests += 1
        self.previous = digests
        self.pending_causes = []
        self.last = record


def request_digest(digests: list[str]) -> str:
    """One digest over a request's ordered message digests (what the log records)."""
    return sha256_hex("".join(digests).encode("ascii"))
